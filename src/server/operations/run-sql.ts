import { badRequest } from '../../errors.js';
import { pgErrorInfo } from '../../db/database.js';
import { scanTransactionControl } from '../../db/transaction-control.js';
import { obj, optBool, reqStr } from '../../metadata/reader.js';
import type { Json } from '../../metadata/json.js';
import { introspect } from '../db-catalog.js';
import { reconcile } from '../sql-reconcile.js';
import { resolve } from '../resolve.js';
import type { OpContext } from '../context.js';
import { op, type Operation } from './operation.js';

interface RunSqlArgs {
  sql: string;
  cascade: boolean;
  checkConsistency: boolean;
  readOnly: boolean;
}

const TX_CONTROL_MESSAGE = 'transaction control statements (BEGIN, COMMIT, ROLLBACK) are not allowed in run_sql';

/**
 * Refuses transaction control found by PostgreSQL's own parser, before anything runs. The statement is named in
 * `internal` (admin only) with its line and column.
 */
async function refuseTransactionControl(sql: string): Promise<void> {
  const found = (await scanTransactionControl(sql)).statements[0];
  if (!found) return;
  throw badRequest('not-supported', '$.args', TX_CONTROL_MESSAGE, {
    statement: sql.slice(found.offset, found.end).trim(), line: found.line, column: found.column,
  });
}

/** The id of the request's transaction (assigning one if it has none yet). */
async function transactionId(ctx: OpContext): Promise<string> {
  const rows = await ctx.tx.query<{ id: string }>('SELECT txid_current()::text AS id');
  return (rows[0] as { id: string }).id;
}

function postgresError(sql: string, e: unknown): never {
  const info = pgErrorInfo(e);
  if (!info) throw e;
  throw badRequest('postgres-error', '$.args', 'query execution failed', {
    statement: sql, prepared: false, arguments: [],
    error: {
      exec_status: 'FatalError', message: info.message, status_code: info.code, description: info.detail, hint: info.hint,
      // Where in `statement` it failed (project tooling shows migrations' errors at their line and column).
      ...(info.position === null ? {} : { position: info.position }),
    },
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
    await refuseTransactionControl(args.sql);
    const checking = args.checkConsistency && !args.readOnly;
    const before = checking ? await introspect(ctx.tx) : null;
    await setSessionVariables(ctx);
    const txBefore = await transactionId(ctx);
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
    // Fail closed: should anything the parser did not see have ended the request's transaction, the rest of this
    // request must not run in another one (it would be committed on its own).
    if ((await transactionId(ctx)) !== txBefore) {
      throw badRequest('not-supported', '$.args', TX_CONTROL_MESSAGE, { reason: "the SQL ended the request's transaction" });
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
  const hasura = Object.fromEntries(Object.entries(sorted).map(([k, v]) => [k.replace(/^x-engine-/, 'x-hasura-'), v]));
  // `hasura.user` too: the incumbent's name for it, read by its projects' functions and triggers (issue 29.6).
  await ctx.tx.query("SELECT set_config('engine.session_variables', $1, true), set_config('hasura.user', $2, true)", [JSON.stringify(sorted), JSON.stringify(hasura)]);
}

export const sqlOperations: Record<string, Operation<unknown>> = { run_sql: op(runSql) };
