import { badRequest } from '../../errors.js';
import { pgErrorInfo } from '../../db/database.js';
import { obj, optBool, reqStr } from '../../metadata/reader.js';
import type { Json } from '../../metadata/json.js';
import { introspect } from '../db-catalog.js';
import { reconcile } from '../sql-reconcile.js';
import { resolve } from '../schema-cache.js';
import type { OpContext } from '../context.js';
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
    await setSessionVariables(ctx);
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

/**
 * Hands the caller's session variables to SQL run in this transaction (the event-log insert records them), for the
 * rest of the transaction only; keys are sorted so the stored JSON does not depend on header order.
 */
export async function setSessionVariables(ctx: OpContext): Promise<void> {
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(ctx.sessionVariables).sort()) sorted[k] = ctx.sessionVariables[k] as string;
  await ctx.tx.query("SELECT set_config('engine.session_variables', $1, true)", [JSON.stringify(sorted)]);
}

export const sqlOperations: Record<string, Operation<unknown>> = { run_sql: op(runSql) };
