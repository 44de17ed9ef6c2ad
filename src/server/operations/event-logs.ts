import { badRequest, parseFailed } from '../../errors.js';
import type { Json } from '../../metadata/json.js';
import { at, int, obj, oneOf, opt, str } from '../../metadata/reader.js';
import { LOCK_HELD } from '../workers/event-store.js';
import type { OpContext } from '../context.js';
import { eventIdArg, findTrigger } from './event-triggers.js';
import { op, type Operation } from './operation.js';

/**
 * Inspecting events (issue 15, beyond engine-api.md): get_event_logs lists events with their state (§4.7.5),
 * newest first; get_event_invocation_logs lists one event's attempts (§5.3.3), oldest first. Admin only, like
 * every operation; reads, so they change no resource_version.
 */

export const EVENT_STATUSES = ['pending', 'delivered', 'error', 'archived', 'all'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
export const MAX_EVENT_LOGS = 1000;

interface LogsArgs {
  name: string | null;
  /** One event, whatever its state (for `engine events show`). */
  eventId: string | null;
  status: EventStatus;
  limit: number;
  offset: number;
}

/** Filters of the `status` argument: pending covers every state before the end (processing, waiting). */
const STATUS_SQL: Record<EventStatus, string> = {
  pending: 'NOT delivered AND NOT error AND NOT archived',
  delivered: 'delivered AND NOT archived',
  error: 'error AND NOT archived',
  archived: 'archived',
  all: 'true',
};

const UTC = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const STATE_SQL = `CASE WHEN archived THEN 'archived' WHEN delivered THEN 'delivered' WHEN error THEN 'error'
  WHEN ${LOCK_HELD} THEN 'processing' WHEN next_retry_at > now() THEN 'waiting' ELSE 'pending' END`;

/** Archived events exist here: they can be inspected, only not redelivered. */
async function requireEvent(ctx: OpContext, id: string): Promise<void> {
  const found = await ctx.tx.query('SELECT 1 FROM engine_catalog.event_log WHERE id = $1::uuid', [id]);
  if (found.length === 0) throw badRequest('not-exists', '$.args.event_id', `event "${id}" does not exist`);
}

/** A name is known when it is a trigger of the metadata or has events (the archived events of a deleted trigger). */
async function requireKnownTrigger(ctx: OpContext, name: string): Promise<void> {
  if (findTrigger(ctx, name)) return;
  const rows = await ctx.tx.query('SELECT 1 FROM engine_catalog.event_log WHERE trigger_name = $1 LIMIT 1', [name]);
  if (rows.length === 0) throw badRequest('not-exists', '$.args.name', `event trigger "${name}" does not exist`);
}

const getEventLogs: Operation<LogsArgs> = {
  write: false,
  parse(args, path) {
    const o = obj(args, path);
    const name = opt(o, 'name');
    const status = opt(o, 'status');
    const limit = opt(o, 'limit');
    const offset = opt(o, 'offset');
    const out: LogsArgs = {
      name: name === undefined ? null : str(name, at(path, 'name')),
      eventId: opt(o, 'event_id') === undefined ? null : eventIdArg(o, path),
      status: status === undefined ? 'all' : oneOf(status, at(path, 'status'), EVENT_STATUSES),
      limit: limit === undefined ? 100 : int(limit, at(path, 'limit'), 1),
      offset: offset === undefined ? 0 : int(offset, at(path, 'offset'), 0),
    };
    if (out.limit > MAX_EVENT_LOGS) throw parseFailed(at(path, 'limit'), `expected an integer <= ${MAX_EVENT_LOGS}, encountered ${out.limit}`);
    return out;
  },
  async run(ctx, a) {
    if (a.name !== null) await requireKnownTrigger(ctx, a.name);
    if (a.eventId !== null) await requireEvent(ctx, a.eventId);
    const rows = await ctx.tx.query<{ e: string }>(
      `SELECT jsonb_build_object('id', id, 'trigger_name', trigger_name, 'table', jsonb_build_object('schema', schema_name, 'name', table_name),
          'op', payload->'op', 'state', ${STATE_SQL}, 'tries', tries, 'created_at', ${UTC('created_at')},
          'next_retry_at', ${UTC('next_retry_at')}, 'payload', payload)::text AS e
         FROM engine_catalog.event_log
        WHERE ($1::text IS NULL OR trigger_name = $1) AND ($4::uuid IS NULL OR id = $4::uuid) AND ${STATUS_SQL[a.status]}
        ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [a.name, a.limit, a.offset, a.eventId],
    );
    // jsonb orders keys by length: they are put back in the documented order.
    return rows.map((r) => {
      const ev = ordered(JSON.parse(r.e) as Record<string, Json>, EVENT_KEYS);
      return { ...ev, table: ordered(ev['table'] as Record<string, Json>, ['schema', 'name']) };
    });
  },
};

const EVENT_KEYS = ['id', 'trigger_name', 'table', 'op', 'state', 'tries', 'created_at', 'next_retry_at', 'payload'];
const INVOCATION_KEYS = ['id', 'event_id', 'trigger_name', 'status', 'created_at', 'request', 'response'];

function ordered(o: Record<string, Json>, keys: string[]): Record<string, Json> {
  return Object.fromEntries(keys.map((k) => [k, o[k] ?? null]));
}

const getEventInvocationLogs: Operation<string> = {
  write: false,
  parse: (args, path) => eventIdArg(obj(args, path), path),
  async run(ctx, id) {
    await requireEvent(ctx, id);
    const rows = await ctx.tx.query<{ l: string }>(
      `SELECT jsonb_build_object('id', id, 'event_id', event_id, 'trigger_name', trigger_name, 'status', status,
          'created_at', ${UTC('created_at')}, 'request', request, 'response', response)::text AS l
         FROM engine_catalog.event_invocation_logs WHERE event_id = $1::uuid ORDER BY created_at, id`,
      [id],
    );
    return rows.map((r) => ordered(JSON.parse(r.l) as Record<string, Json>, INVOCATION_KEYS));
  },
};

export const eventLogOperations: Record<string, Operation<unknown>> = {
  get_event_logs: op(getEventLogs),
  get_event_invocation_logs: op(getEventInvocationLogs),
};
