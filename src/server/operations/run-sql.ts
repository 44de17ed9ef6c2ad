import { badRequest } from '../../errors.js';
import { pgErrorInfo } from '../../db/database.js';
import { obj, optBool, reqStr } from '../../metadata/reader.js';
import type { Json } from '../../metadata/json.js';
import { cloneMetadata, documentJson } from '../../metadata/document.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { renameColumn, renameTable } from '../../metadata/rename.js';
import type { QualifiedName } from '../../metadata/types.js';
import type { OpContext } from '../context.js';
import { introspect, type DbCatalog } from '../db-catalog.js';
import { dependencyMessage, dependentsOf, type Target } from '../dependencies.js';
import { resolve } from '../schema-cache.js';
import { op, type Operation } from './operation.js';

interface RunSqlArgs {
  sql: string;
  cascade: boolean;
  checkConsistency: boolean;
  readOnly: boolean;
}

/** Statements that would end the request's transaction behind the engine's back. */
const TX_CONTROL = /^\s*(begin|commit|rollback|end|abort|start\s+transaction)\b/i;

function splitStatements(sql: string): string[] {
  // Good enough to find statement starts: skips quoted strings, quoted identifiers, comments and dollar quotes.
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i] as string;
    const rest = sql.slice(i);
    const dollar = /^\$[A-Za-z_0-9]*\$/.exec(rest);
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      const j = end < 0 ? sql.length : end;
      cur += sql.slice(i, j + 1);
      i = j;
    } else if (rest.startsWith('--')) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      cur += ' ';
    } else if (rest.startsWith('/*')) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 1;
      cur += ' ';
    } else if (dollar) {
      const tag = dollar[0];
      const end = sql.indexOf(tag, i + tag.length);
      const j = end < 0 ? sql.length : end + tag.length - 1;
      cur += sql.slice(i, j + 1);
      i = j;
    } else if (c === ';') {
      out.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  out.push(cur);
  return out;
}

function postgresError(sql: string, e: unknown): never {
  const info = pgErrorInfo(e);
  if (!info) throw e;
  throw badRequest('postgres-error', '$.args', 'query execution failed', {
    statement: sql, prepared: false, arguments: [],
    error: { exec_status: 'FatalError', message: info.message, status_code: info.code, description: info.detail, hint: info.hint },
  });
}

const runSql: Operation<RunSqlArgs> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return {
      sql: reqStr(o, 'sql', path),
      cascade: optBool(o, 'cascade', path, false),
      checkConsistency: optBool(o, 'check_metadata_consistency', path, true),
      readOnly: optBool(o, 'read_only', path, false),
    };
  },
  async run(ctx, args) {
    if (splitStatements(args.sql).some((s) => TX_CONTROL.test(s))) {
      throw badRequest('not-supported', '$.args', 'transaction control statements (BEGIN, COMMIT, ROLLBACK) are not allowed in run_sql');
    }
    const checking = args.checkConsistency && !args.readOnly;
    const before = checking ? await introspect(ctx.tx) : null;
    await ctx.tx.query("SELECT set_config('engine.session_variables', $1, true)", [sessionJson(ctx.sessionVariables)]);
    let result;
    try {
      if (args.readOnly) {
        // A savepoint scopes READ ONLY to the script: rolling back to it restores read-write for later bulk steps.
        await ctx.tx.query('SAVEPOINT engine_read_only');
        await ctx.tx.query('SET LOCAL transaction_read_only = on');
        result = await ctx.tx.runScript(args.sql);
        await ctx.tx.query('ROLLBACK TO SAVEPOINT engine_read_only');
      } else {
        result = await ctx.tx.runScript(args.sql);
      }
    } catch (e) {
      postgresError(args.sql, e);
    }
    const after = await introspect(ctx.tx);
    if (before) reconcile(ctx, before, after, args.cascade);
    else ctx.cache = resolve(ctx.metadata, after);
    ctx.refreshed = true;
    if (!result.hasRows) return { result_type: 'CommandOk', result: null };
    return { result_type: 'TuplesOk', result: [result.fields, ...result.rows] as Json };
  },
};

export function sessionJson(vars: Record<string, string>): string {
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(vars).sort()) sorted[k] = vars[k] as string;
  return JSON.stringify(sorted);
}

/** Brings the metadata in line with what the SQL did to the catalog (engine-api.md §4.1.1 step 5). */
function reconcile(ctx: OpContext, before: DbCatalog, after: DbCatalog, cascade: boolean): void {
  const original = ctx.metadata;
  const md = cloneMetadata(original);
  const dropped: QualifiedName[] = [];
  const droppedColumns: Target[] = [];
  const retyped: { table: QualifiedName; column: string }[] = [];
  const renamedTables: [QualifiedName, QualifiedName][] = [];
  const renamedColumns: [QualifiedName, string, string][] = [];
  for (const entry of original.tables.values()) {
    const old = before.tables.get(qnKey(entry.table));
    if (!old) continue;
    const now = after.tablesByOid.get(old.oid);
    if (!now) {
      dropped.push(entry.table);
      continue;
    }
    const byNum = new Map([...now.columns.values()].map((c) => [c.num, c]));
    for (const col of old.columns.values()) {
      const cur = byNum.get(col.num);
      if (!cur) droppedColumns.push({ kind: 'column', table: entry.table, column: col.name });
      else {
        if (cur.typeOid !== col.typeOid) retyped.push({ table: entry.table, column: col.name });
        if (cur.name !== col.name) renamedColumns.push([entry.table, col.name, cur.name]);
      }
    }
    if (now.schema !== entry.table.schema || now.name !== entry.table.name) renamedTables.push([entry.table, { schema: now.schema, name: now.name }]);
  }
  // Dependency checks run against the metadata as it was, whose objects still resolve against `before`.
  const beforeCache = resolve(original, before);
  // Columns first, while every table still has its old name (BoolExp walks follow relationships by old names).
  const remoteOf = (t: QualifiedName, rel: string) => beforeCache.tables.get(qnKey(t))?.relationships.get(rel)?.remote;
  for (const [t, from, to] of renamedColumns) renameColumn(md, t, from, to, remoteOf);
  for (const [from, to] of renamedTables) renameTable(md, from, to);
  for (const f of original.functions.values()) {
    const old = before.functions.get(qnKey(f.function));
    if (old && old.length === 1 && !after.functions.has(qnKey(f.function))) md.functions.delete(qnKey(f.function));
  }
  const owners = new Set(dropped.map(qnKey));
  const tableDeps = dependentsOf(beforeCache, dropped.map((table) => ({ kind: 'table' as const, table })), owners, cascade);
  const columnDeps = dependentsOf(beforeCache, droppedColumns, owners, cascade);
  if (!cascade && tableDeps.length > 0) throw badRequest('dependency-error', '$.args', dependencyMessage(tableDeps));
  if (!cascade && columnDeps.length > 0) throw badRequest('dependency-error', '$.args', dependencyMessage(columnDeps));
  for (const r of retyped) {
    const deps = dependentsOf(beforeCache, [{ kind: 'column', table: r.table, column: r.column }], owners, cascade);
    if (deps.length > 0 && !cascade) {
      throw badRequest('dependency-error', '$.args',
        `cannot change type of column "${r.column}" in table ${qnQuoted(r.table)} because of the following dependencies : ${[...new Set(deps.map((d) => d.label))].join(', ')}`);
    }
    columnDeps.push(...deps);
  }
  for (const t of dropped) md.tables.delete(qnKey(t));
  for (const d of [...tableDeps, ...columnDeps]) d.remove(md);
  const changed = JSON.stringify(documentJson(md)) !== JSON.stringify(documentJson(original));
  // Rule 2 compares with the objects as they resolved before the SQL ran, also when the document is unchanged.
  ctx.cache = beforeCache;
  const earlier = ctx.changed;
  ctx.apply(changed ? md : original, 'incremental', undefined, after);
  // An earlier sub-operation of the same bulk may have changed the metadata: never clear its flag.
  ctx.changed = earlier || changed;
}

export const sqlOperations: Record<string, Operation<unknown>> = { run_sql: op(runSql) };
