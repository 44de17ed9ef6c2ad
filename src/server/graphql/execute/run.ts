import { Kind, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { ApiError } from '../../../errors.js';
import { BatchError, pgErrorInfo, StatementCancelled, type BatchStatement, type Database, type Row } from '../../../db/database.js';
import type { CancelSignal } from '../../../db/cancel.js';
import { probes } from '../../../probes.js';
import { CHECK_FAILED_STATE, STALE_PLAN_STATE } from '../../catalog.js';
import { databaseError, gqlError } from '../errors.js';
import type { RootPlan } from '../plan/index.js';
import { dataJson } from './roots.js';
import { nestedFailure, type SelectionContext } from '../compile/index.js';
import { introspect } from './introspection.js';

/** Runs an operation's plans (graphql-api.md §4.1) and splices each root field's JSON text into the response. */

function introspection(schema: GraphQLSchema, doc: DocumentNode, sel: SelectionContext, plan: Extract<RootPlan, { kind: 'introspection' }>): string {
  const op: OperationDefinitionNode = { ...sel.op, selectionSet: { kind: Kind.SELECTION_SET, selections: plan.nodes } };
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [op, ...doc.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)] };
  const result = introspect(schema, document, sel.variables);
  if (result.errors?.length) throw new Error(`introspection failed: ${String(result.errors[0])}`);
  return JSON.stringify(result.data?.[plan.key] ?? null);
}

/**
 * The request was planned on a schema cache older than the stored metadata: the service refreshes its cache and
 * plans again (nothing has run: the transaction that saw it rolls back).
 */
export class StaleSchema extends Error {
  /** `stored`: the version read, when the request read it (a mutation's statement only reports the difference). */
  constructor(readonly stored: number | null) {
    super('the metadata changed since the schema was planned');
  }
}

/** The resource_version a request was planned at and how it is compared with the stored one (graphql-api.md §2.1). */
export interface VersionGuard {
  planned: number;
  /** Fixed text reading the stored version as column `v`: sent in the round trip of BEGIN. */
  sql: string;
  /** The stored version, once read. */
  stored: number | null;
}

/** Reads the stored version on its own (requests that open no transaction, or call handlers first). */
export async function confirmVersion(db: Database, guard: VersionGuard): Promise<void> {
  if (guard.stored !== null) return;
  const rows = await db.query<{ v: number }>(guard.sql);
  seen(guard, rows[0]?.v);
}

function seen(guard: VersionGuard, v: unknown): void {
  guard.stored = Number(v ?? 0);
  if (guard.stored !== guard.planned) throw new StaleSchema(guard.stored);
}

export interface ExecuteArgs {
  db: Database;
  version: VersionGuard;
  schema: GraphQLSchema;
  doc: DocumentNode;
  sel: SelectionContext;
  plans: RootPlan[];
  args: Map<string, (string | null)[]>;
  /** Runs the operation's synchronous actions (handler calls), returning each root field's JSON text by key. */
  runActions: (roots: Extract<RootPlan, { kind: 'action' }>[]) => Promise<Map<string, string>>;
  /** Forwards the operation's remote-schema root fields (issue 35), returning each root field's JSON text by key. */
  runRemotes?: (roots: Extract<RootPlan, { kind: 'remote' }>[]) => Promise<Map<string, string>>;
  /** Replaces the statements' remote-relationship markers with the remotes' answers (issue 35.3), in `values`. */
  runJoins?: (statements: { key: string; joins: NonNullable<Extract<RootPlan, { kind: 'sql' }>['joins']> }[], values: Map<string, string>) => Promise<void>;
  /** Cancels the request's statements (time limit, client gone, stop); `seconds`: the limit, for the message. */
  limit?: { signal?: CancelSignal; seconds: number };
}

/** SQLSTATE query_canceled: statement_timeout or a cancel request. */
const QUERY_CANCELED = '57014';

/** The answer to a request whose statement was cancelled (issue 28): a GraphQL error, never a 500. */
function timedOut(limit: ExecuteArgs['limit']): ApiError {
  const reason = limit?.signal?.reason;
  if (reason === 'shutdown') return gqlError('timeout', '$', 'the operation was cancelled: the engine is stopping');
  return gqlError('timeout', '$', `the operation took longer than the time limit of ${limit?.seconds ?? 0} s and was cancelled`);
}

export async function executeQuery(x: ExecuteArgs): Promise<string> {
  const values = new Map<string, string>();
  for (const p of x.plans) {
    if (p.kind === 'json') values.set(p.key, p.json);
    else if (p.kind === 'introspection') {
      // Kept with the plan only when no variable can change it (a plan serves every value of bound variables).
      const answer = p.answer ?? introspection(x.schema, x.doc, x.sel, p);
      if ((x.sel.op.variableDefinitions ?? []).length === 0) p.answer = answer;
      values.set(p.key, answer);
    }
  }
  const statements = x.plans.filter((p): p is Extract<RootPlan, { kind: 'sql' }> => p.kind === 'sql');
  // Handlers are called, and answers without SQL given, only once the schema they were planned on is current.
  if (statements.length === 0 || x.plans.some((p) => p.kind === 'action' || p.kind === 'remote')) await confirmVersion(x.db, x.version);
  const remotes = x.plans.filter((p): p is Extract<RootPlan, { kind: 'remote' }> => p.kind === 'remote');
  if (remotes.length > 0 && x.runRemotes) for (const [key, json] of await x.runRemotes(remotes)) values.set(key, json);
  // Synchronous actions' handlers are called by the caller's runner (actions/), before the transaction (§4.1).
  const actions = x.plans.filter((p): p is Extract<RootPlan, { kind: 'action' }> => p.kind === 'action');
  if (actions.length > 0) for (const [key, json] of await x.runActions(actions)) values.set(key, json);
  if (statements.length > 0) {
    // One transaction, one round trip on PostgreSQL (§4.1, §7.1). A query's is a read-only snapshot that reads the
    // stored resource_version with BEGIN: a stale plan is planned again. A mutation's is READ COMMITTED and its COMMIT
    // goes out with the statements: each statement records who writes, for event triggers, and aborts the
    // transaction itself when its plan is stale or a permission check fails (StatementBuilder.guard, §7.3).
    const mutation = x.sel.op.operation === 'mutation';
    // A nested insert's writes go first, as their own statement (compile/nested-insert.ts).
    const batch: BatchStatement[] = [];
    const owner: { p: (typeof statements)[number]; prelude: boolean }[] = [];
    for (const p of statements) {
      const args = x.args.get(p.key) ?? [];
      if (p.prelude) {
        batch.push({ sql: p.prelude.sql, params: args.slice(p.prelude.offset), name: p.prelude.name });
        owner.push({ p, prelude: true });
      }
      batch.push({ sql: p.sql, params: p.prelude ? args.slice(0, p.prelude.offset) : args, name: p.name });
      owner.push({ p, prelude: false });
    }
    // The query log (issue 31.2, off by default): the SQL as sent and how many parameters, never their values.
    probes.queryLog?.({
      operation_name: x.sel.op.name?.value ?? null, operation_type: x.sel.op.operation,
      statements: batch.map((b, i) => ({ root_field: owner[i]?.p.key ?? '', sql: b.sql, parameters: b.params.length })),
    });
    let results: Row[][];
    try {
      const signal = x.limit?.signal;
      results = await x.db.batch(batch, mutation ? { utc: true, commitWith: true, signal } : {
        readOnlySnapshot: true, utc: true, first: x.version.stored === null ? x.version.sql : undefined, signal,
        begun: (first) => {
          if (x.version.stored === null) seen(x.version, first[0]?.['v']);
        },
      });
    } catch (e) {
      if (e instanceof StatementCancelled) throw timedOut(x.limit);
      if (!(e instanceof BatchError)) throw e;
      const o = owner[e.index];
      const p = o?.p;
      const info = pgErrorInfo(e.cause);
      if (info?.code === QUERY_CANCELED) throw timedOut(x.limit);
      if (info?.code === STALE_PLAN_STATE) throw new StaleSchema(null);
      const nested = info?.code === CHECK_FAILED_STATE && p?.nested ? nestedFailure(p.nested, info.message) : null;
      if (nested) throw nested;
      if (info?.code === CHECK_FAILED_STATE && p?.checks) {
        const check = info.message === 'insert' ? 'insert' : 'update';
        throw gqlError('permission-error', p.checks[check], `check constraint of an ${check} permission has failed`);
      }
      const sql = o?.prelude && p?.prelude ? p.prelude.sql : p?.sql ?? '';
      throw (p && o ? databaseError(e.cause, p.key, sql, (batch[e.index]?.params ?? []) as (string | null)[]) : null) ?? e.cause;
    }
    for (const [i, o] of owner.entries()) if (!o.prelude) values.set(o.p.key, (results[i]?.[0]?.['root'] as string | null | undefined) ?? 'null');
    const joined = statements.flatMap((p) => (p.joins ? [{ key: p.key, joins: p.joins }] : []));
    if (joined.length > 0 && x.runJoins) await x.runJoins(joined, values);
  }
  return dataJson(x.plans, values);
}
