import { badRequest } from '../errors.js';
import { cloneMetadata, documentJson } from '../metadata/document.js';
import { qnKey, qnQuoted } from '../metadata/names.js';
import { renameColumn, renameTable } from '../metadata/rename.js';
import type { QualifiedName } from '../metadata/types.js';
import type { OpContext } from './context.js';
import type { DbCatalog } from './db-catalog.js';
import { dependencyLabels, dependencyMessage, dependentsOf, type Target } from './dependencies.js';
import { resolve } from './resolve.js';

interface CatalogChanges {
  droppedTables: QualifiedName[];
  droppedColumns: Target[];
  retyped: { table: QualifiedName; column: string }[];
  renamedTables: [QualifiedName, QualifiedName][];
  renamedColumns: [QualifiedName, string, string][];
}

/** What the SQL did to the tracked tables, compared by OID (renames keep the OID, drops lose it). */
function tableChanges(ctx: OpContext, before: DbCatalog, after: DbCatalog): CatalogChanges {
  const c: CatalogChanges = { droppedTables: [], droppedColumns: [], retyped: [], renamedTables: [], renamedColumns: [] };
  for (const entry of ctx.metadata.tables.values()) {
    const old = before.tables.get(qnKey(entry.table));
    if (!old) continue;
    const now = after.tablesByOid.get(old.oid);
    if (!now) {
      c.droppedTables.push(entry.table);
      continue;
    }
    const byNum = new Map([...now.columns.values()].map((col) => [col.num, col]));
    for (const col of old.columns.values()) {
      const cur = byNum.get(col.num);
      if (!cur) c.droppedColumns.push({ kind: 'column', table: entry.table, column: col.name });
      else {
        if (cur.typeOid !== col.typeOid) c.retyped.push({ table: entry.table, column: col.name });
        if (cur.name !== col.name) c.renamedColumns.push([entry.table, col.name, cur.name]);
      }
    }
    if (now.schema !== entry.table.schema || now.name !== entry.table.name) c.renamedTables.push([entry.table, { schema: now.schema, name: now.name }]);
  }
  return c;
}

/**
 * Brings the metadata in line with what `run_sql` did to the catalog (engine-api.md §4.1.1 step 5), with its
 * checks in the specified order: renames propagate, computed-field functions may not turn VOLATILE or gain an
 * overload, dropped objects take their dependents along only with `cascade`, then rule 2 of §3.4.
 */
export function reconcile(ctx: OpContext, before: DbCatalog, after: DbCatalog, cascade: boolean): void {
  const original = ctx.metadata;
  const md = cloneMetadata(original);
  const changes = tableChanges(ctx, before, after);
  // Dependency checks run against the metadata as it was, whose objects still resolve against `before`.
  const beforeCache = resolve(original, before);
  // Columns first, while every table still has its old name (BoolExp walks follow relationships by old names).
  const remoteOf = (t: QualifiedName, rel: string) => beforeCache.tables.get(qnKey(t))?.relationships.get(rel)?.remote;
  for (const [t, from, to] of changes.renamedColumns) renameColumn(md, t, from, to, remoteOf);
  for (const [from, to] of changes.renamedTables) renameTable(md, from, to);

  const droppedFunctions: Target[] = [];
  for (const rt of beforeCache.tables.values()) {
    for (const [name, cf] of rt.computedFields) {
      const f = { schema: cf.fn.schema, name: cf.fn.name };
      const now = after.functions.get(qnKey(f));
      const same = now?.find((x) => x.oid === cf.fn.oid);
      const where = `${qnQuoted(f)} associated with computed field "${name}" of table ${qnQuoted(rt.entry.table)}`;
      if (same && same.volatility === 'v') {
        throw badRequest('not-supported', '$.args', `the type of function ${where} is being altered to "VOLATILE"`);
      }
      if (same && now && now.length > 1) throw badRequest('not-supported', '$.args', `the function ${where} is being overloaded`);
      if (!same) droppedFunctions.push({ kind: 'function', fn: f });
    }
  }
  for (const f of original.functions.values()) {
    // A tracked function the SQL made unsupported is refused like a computed field's (issue 27: not `unexpected`).
    const was = before.functions.get(qnKey(f.function));
    const now = after.functions.get(qnKey(f.function));
    const same = was?.length === 1 ? now?.find((x) => x.oid === was[0]?.oid) : undefined;
    if (same && now && now.length > 1) {
      throw badRequest('not-supported', '$.args', `the function ${qnQuoted(f.function)} is being overloaded; overloaded functions are not supported`);
    }
    if (same && same.volatility === 'v' && was?.[0]?.volatility !== 'v') {
      throw badRequest('not-supported', '$.args',
        `the type of function ${qnQuoted(f.function)} is being altered to "VOLATILE"; only STABLE or IMMUTABLE functions can be tracked`);
    }
  }
  for (const f of original.functions.values()) {
    const old = before.functions.get(qnKey(f.function));
    if (old && old.length === 1 && !after.functions.get(qnKey(f.function))?.some((x) => x.oid === old[0]?.oid)) md.functions.delete(qnKey(f.function));
  }
  const owners = new Set(changes.droppedTables.map(qnKey));
  const tableDeps = dependentsOf(beforeCache, changes.droppedTables.map((table) => ({ kind: 'table' as const, table })), owners, cascade);
  if (!cascade && tableDeps.length > 0) throw badRequest('dependency-error', '$.args', dependencyMessage(tableDeps));
  const otherDeps = dependentsOf(beforeCache, [...changes.droppedColumns, ...droppedFunctions], owners, cascade);
  if (!cascade && otherDeps.length > 0) throw badRequest('dependency-error', '$.args', dependencyMessage(otherDeps));
  for (const r of changes.retyped) {
    const deps = dependentsOf(beforeCache, [{ kind: 'column', table: r.table, column: r.column }], owners, cascade);
    if (deps.length > 0 && !cascade) {
      throw badRequest('dependency-error', '$.args',
        `cannot change type of column "${r.column}" in table ${qnQuoted(r.table)} because of the following dependencies : ${dependencyLabels(deps)}`);
    }
    otherDeps.push(...deps);
  }
  for (const t of changes.droppedTables) md.tables.delete(qnKey(t));
  for (const d of [...tableDeps, ...otherDeps]) d.remove(md);
  const changed = JSON.stringify(documentJson(md)) !== JSON.stringify(documentJson(original));
  // Rule 2 compares with the objects as they resolved before the SQL ran, also when the document is unchanged.
  ctx.cache = beforeCache;
  const earlier = ctx.changed;
  ctx.apply(changed ? md : original, 'incremental', undefined, after);
  // An earlier sub-operation of the same bulk may have changed the metadata: never clear its flag.
  ctx.changed = earlier || changed;
}
