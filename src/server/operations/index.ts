import { ApiError, badRequest, parseFailed } from '../../errors.js';
import { arr, at, idx, int, obj, oneOf, str } from '../../metadata/reader.js';
import { isObject, type Json } from '../../metadata/json.js';
import { metadataOperations } from './metadata.js';
import { relationshipOperations } from './relationships.js';
import { sqlOperations } from './run-sql.js';
import { tableOperations } from './tables.js';
import { permissionOperations } from './permissions.js';
import { computedFieldOperations } from './computed-fields.js';
import { actionOperations } from './actions.js';
import { eventTriggerOperations } from './event-triggers.js';
import { inheritedRoleOperations } from './inherited-roles.js';
import { apiLimitOperations } from './api-limits.js';
import { eventLogOperations } from './event-logs.js';
import { cronTriggerOperations } from './cron-triggers.js';
import { scheduledEventOperations } from './scheduled-events.js';
import { queryCollectionOperations } from './query-collections.js';
import { restEndpointOperations } from './rest-endpoints.js';
import { op, type Operation } from './operation.js';
import type { OpContext } from '../context.js';
import { checkSource, tableSettingOperations } from './table-settings.js';
import { dataOperations } from './data.js';
import { functionPermissionOperations } from './function-permissions.js';
import { remoteSchemaOperations } from './remote-schemas.js';
import { remoteRelationshipOperations } from './remote-relationships.js';

export interface Envelope {
  type: string;
  args: Json | undefined;
  /**
   * The incumbent's optimistic lock on any request: the version the caller last read. A request made when the stored
   * resource_version is another answers 409 and changes nothing (issue 34: the console's batched permission edits).
   */
  resourceVersion?: number;
}

/** Reads `{"type","args","version"?}` (engine-api.md §1.2 step 4); `args` is checked later, at step 6. */
export function parseEnvelope(body: unknown, path: string): Envelope {
  const o = obj(body, path);
  if (o['type'] === undefined || o['type'] === null) throw parseFailed(path, 'the key "type" was not present');
  const type = str(o['type'], at(path, 'type'));
  if (!OPERATIONS.has(type)) throw parseFailed(at(path, 'type'), `unknown operation type "${type}"`);
  if (o['version'] !== undefined && o['version'] !== null) oneOf(o['version'], at(path, 'version'), [1, 2]);
  const rv = o['resource_version'];
  if (rv === undefined || rv === null) return { type, args: o['args'] ?? undefined };
  return { type, args: o['args'] ?? undefined, resourceVersion: int(rv, at(path, 'resource_version'), 0) };
}

export function requireArgs(env: Envelope, path: string): Json {
  if (env.args === undefined || env.args === null) throw parseFailed(path, 'the key "args" was not present');
  return env.args;
}

/** One item of a bulk: its envelope read, parsed and run; its errors re-rooted at `$.args[i]`. */
async function runItem(ctx: OpContext, item: Json | undefined, i: number): Promise<Json> {
  try {
    const env = parseEnvelope(item, '$');
    const operation = OPERATIONS.get(env.type) as Operation<unknown>;
    const args = operation.parse(requireArgs(env, '$'), '$.args');
    return await operation.run(ctx, args);
  } catch (e) {
    if (e instanceof ApiError) throw e.withPathPrefix(idx('$.args', i));
    throw e;
  }
}

const bulk: Operation<Json[]> = {
  write: true,
  parse: (args, path) => arr(args, path),
  async run(ctx, items) {
    const results: Json[] = [];
    for (let i = 0; i < items.length; i++) results.push(await runItem(ctx, items[i], i));
    return results;
  },
};

/**
 * The incumbent's `bulk_keep_going`: every item runs, in order, in the request's transaction; one that fails is undone
 * (its statements and its metadata change) and answers its error object in its slot, and the others are kept.
 */
const bulkKeepGoing: Operation<Json[]> = {
  write: true,
  parse: (args, path) => arr(args, path),
  async run(ctx, items) {
    const results: Json[] = [];
    for (let i = 0; i < items.length; i++) {
      const saved = { cache: ctx.cache, changed: ctx.changed, refreshed: ctx.refreshed, fullTriggerSync: ctx.fullTriggerSync };
      await ctx.tx.query('SAVEPOINT engine_bulk_item');
      try {
        results.push(await runItem(ctx, items[i], i));
        await ctx.tx.query('RELEASE SAVEPOINT engine_bulk_item');
      } catch (e) {
        // A server-side failure (a timeout, a lost database) ends the request, as in `bulk`.
        if (!(e instanceof ApiError) || e.status >= 500) throw e;
        await ctx.tx.query('ROLLBACK TO SAVEPOINT engine_bulk_item');
        await ctx.tx.query('RELEASE SAVEPOINT engine_bulk_item');
        Object.assign(ctx, saved);
        results.push({ path: e.path, error: e.message, code: e.code, ...(e.internal !== undefined ? { internal: e.internal } : {}) });
      }
    }
    return results;
  },
};

/** The operations the incumbent's metadata API also names `pg_<name>` (its PostgreSQL source), with `source` in args. */
const PG_NAMES = [
  'track_table', 'untrack_table', 'set_table_is_enum', 'set_table_customization', 'track_function', 'untrack_function',
  'create_function_permission', 'drop_function_permission',
  'create_object_relationship', 'create_array_relationship', 'drop_relationship',
  ...['insert', 'select', 'update', 'delete'].flatMap((k) => [`create_${k}_permission`, `drop_${k}_permission`]), 'set_permission_comment',
  'add_computed_field', 'drop_computed_field', 'create_event_trigger', 'delete_event_trigger', 'redeliver_event', 'invoke_event_trigger',
  'get_event_logs', 'get_event_invocation_logs',
  'create_remote_relationship', 'update_remote_relationship', 'delete_remote_relationship',
];

/** `pg_<name>`: the operation `<name>`, once `source` is known to be the one database (issue 29 point 6). */
function pgAlias(o: Operation<unknown>): Operation<unknown> {
  return {
    ...o,
    parse(args, path) {
      if (!isObject(args) || !Object.hasOwn(args, 'source')) return o.parse(args, path);
      checkSource(args, path);
      const rest = { ...args };
      delete rest['source'];
      return o.parse(rest, path);
    },
  };
}

const withPgNames = (ops: Record<string, Operation<unknown>>): Record<string, Operation<unknown>> =>
  Object.fromEntries([...Object.entries(ops), ...PG_NAMES.flatMap((n) => (ops[n] ? [[`pg_${n}`, pgAlias(ops[n])] as const] : []))]);

/** A Map, not an object: a `type` such as "constructor" or "__proto__" must not find Object.prototype's members. */
export const OPERATIONS: ReadonlyMap<string, Operation<unknown>> = new Map(
  Object.entries(withPgNames({
    ...sqlOperations,
    ...tableOperations,
    ...relationshipOperations,
    ...permissionOperations,
    ...computedFieldOperations,
    ...actionOperations,
    ...eventTriggerOperations,
    ...inheritedRoleOperations,
    ...apiLimitOperations,
    ...eventLogOperations,
    ...cronTriggerOperations,
    ...scheduledEventOperations,
    ...queryCollectionOperations,
    ...restEndpointOperations,
    ...metadataOperations,
    ...tableSettingOperations,
    ...dataOperations,
    ...functionPermissionOperations,
    ...remoteSchemaOperations,
    ...remoteRelationshipOperations,
    bulk: op(bulk),
    bulk_keep_going: op(bulkKeepGoing),
  })),
);

/** Does the request need the metadata lock? Writing operations do, bulks holding one, and reads declaring `locks`. */
export function needsLock(type: string, args: Json | undefined): boolean {
  if (type === 'bulk' || type === 'bulk_keep_going') {
    if (!Array.isArray(args)) return false;
    return args.some((item) => isObject(item) && typeof item['type'] === 'string' && needsLock(item['type'], item['args']));
  }
  const operation = OPERATIONS.get(type);
  return !!operation && (operation.write || operation.locks === true);
}

export const accessDenied = (): ApiError => badRequest('access-denied', '$.args', 'restricted access : admin only');
