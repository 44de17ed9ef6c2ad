import { badRequest, parseFailed } from '../../errors.js';
import type { Json } from '../../metadata/json.js';
import { at, int, obj, oneOf, opt, optBool, str } from '../../metadata/reader.js';
import { SCHEDULED_CHANNEL } from '../catalog.js';
import type { OpContext } from '../context.js';
import { LOCK_HELD } from '../workers/event-store.js';
import { eventIdArg } from './event-triggers.js';
import { op, SUCCESS, type Operation } from './operation.js';

/**
 * Inspecting and acting on single scheduled events, cron and one-off (issue 34, for the console): the incumbent's
 * get_scheduled_event_invocations and delete_scheduled_event (same names, args and answers), and
 * redeliver_scheduled_event, which does for a scheduled event what redeliver_event does for a table event. None
 * changes the metadata: no lock, no resource_version.
 */

export const SCHEDULED_TYPES = ['cron', 'one_off'] as const;
type ScheduledType = (typeof SCHEDULED_TYPES)[number];
const MAX_ROWS = 1000;

const UTC = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
/** The rows of one type: cron events name their trigger, one-off events have none. */
const OF_TYPE = "(($1::text = 'cron') = (e.trigger_name IS NOT NULL))";

const typeArg = (o: Record<string, Json>, path: string): ScheduledType => {
  const v = opt(o, 'type');
  if (v === undefined) throw parseFailed(path, 'the key "type" was not present');
  return oneOf(v, at(path, 'type'), SCHEDULED_TYPES);
};

const notFound = (id: string) => badRequest('not-exists', '$.args.event_id', `scheduled event "${id}" does not exist`);

/** The event of that type (archived ones are gone for these operations), locked for the request. */
async function lockEvent(ctx: OpContext, type: ScheduledType, id: string): Promise<{ busy: boolean }> {
  const rows = await ctx.tx.query<{ busy: boolean }>(
    `SELECT ${LOCK_HELD} AS busy FROM engine_catalog.scheduled_events e
      WHERE e.id = $2::uuid AND ${OF_TYPE} AND e.status <> 'archived' FOR UPDATE`, [type, id]);
  const row = rows[0];
  if (!row) throw notFound(id);
  return row;
}

interface EventArgs { type: ScheduledType; id: string }

const eventArgs = (args: Json, path: string): EventArgs => {
  const o = obj(args, path);
  return { type: typeArg(o, path), id: eventIdArg(o, path) };
};

/** Removes the event and its invocation logs; one being attempted right now is refused (its attempt would be lost). */
const deleteScheduledEvent: Operation<EventArgs> = {
  write: false,
  parse: eventArgs,
  async run(ctx, { type, id }) {
    if ((await lockEvent(ctx, type, id)).busy) throw badRequest('busy', '$.args.event_id', `scheduled event "${id}" is already being processed`);
    await ctx.tx.query('DELETE FROM engine_catalog.scheduled_events WHERE id = $1::uuid', [id]);
    return SUCCESS;
  },
};

/**
 * Attempts the event again, whatever its state (error, dead, delivered, or still waiting for a retry): its tries start
 * over, and its tolerance counts from now (the catalog's redelivered_at), so a dead event is called, not found late.
 */
const redeliverScheduledEvent: Operation<EventArgs> = {
  write: false,
  parse: eventArgs,
  async run(ctx, { type, id }) {
    if ((await lockEvent(ctx, type, id)).busy) throw badRequest('busy', '$.args.event_id', `scheduled event "${id}" is already being processed`);
    await ctx.tx.query(
      `UPDATE engine_catalog.scheduled_events SET status = 'scheduled', tries = 0, next_retry_at = NULL, locked = NULL,
          locked_by = NULL, redelivered_at = $2::timestamptz WHERE id = $1::uuid`, [id, ctx.now().toISOString()]);
    // Wakes the processors at commit, as a new one-off event does.
    await ctx.tx.query('SELECT pg_notify($1, $2)', [SCHEDULED_CHANNEL, '']);
    return SUCCESS;
  },
};

interface InvocationArgs {
  type: ScheduledType;
  /** One event's invocations; else those of the cron trigger, or of every one-off event. */
  eventId: string | null;
  trigger: string | null;
  limit: number;
  offset: number;
  count: boolean;
}

const INVOCATION_KEYS = ['id', 'event_id', 'status', 'request', 'response', 'created_at'];

/** A cron trigger is known when the metadata has it or it left events (those of a deleted trigger). */
async function requireKnownCron(ctx: OpContext, name: string): Promise<void> {
  if (ctx.metadata.cron_triggers.has(name)) return;
  const rows = await ctx.tx.query('SELECT 1 FROM engine_catalog.scheduled_events WHERE trigger_name = $1 LIMIT 1', [name]);
  if (rows.length === 0) throw badRequest('not-exists', '$.args.trigger_name', `cron trigger "${name}" does not exist`);
}

/** Invocation logs, the latest first, as `{"invocations": [...]}` and, with get_rows_count, `"count"` of them all. */
const getScheduledEventInvocations: Operation<InvocationArgs> = {
  write: false,
  parse(args, path) {
    const o = obj(args, path);
    const type = typeArg(o, path);
    const eventId = opt(o, 'event_id') === undefined ? null : eventIdArg(o, path);
    const name = opt(o, 'trigger_name');
    const trigger = name === undefined ? null : str(name, at(path, 'trigger_name'));
    if (type === 'one_off' && trigger !== null) throw parseFailed(at(path, 'trigger_name'), 'trigger_name is only for type "cron"');
    if (type === 'cron' && trigger === null && eventId === null) throw parseFailed(path, 'the key "trigger_name" (or "event_id") was not present');
    const limit = opt(o, 'limit');
    const offset = opt(o, 'offset');
    const out: InvocationArgs = {
      type, eventId, trigger,
      limit: limit === undefined ? 100 : int(limit, at(path, 'limit'), 1),
      offset: offset === undefined ? 0 : int(offset, at(path, 'offset'), 0),
      count: optBool(o, 'get_rows_count', path, false),
    };
    if (out.limit > MAX_ROWS) throw parseFailed(at(path, 'limit'), `expected an integer <= ${MAX_ROWS}, encountered ${out.limit}`);
    return out;
  },
  async run(ctx, a) {
    if (a.eventId !== null) {
      const found = await ctx.tx.query(`SELECT 1 FROM engine_catalog.scheduled_events e WHERE e.id = $2::uuid AND ${OF_TYPE}`, [a.type, a.eventId]);
      if (found.length === 0) throw notFound(a.eventId);
    }
    if (a.trigger !== null) await requireKnownCron(ctx, a.trigger);
    const where = `${OF_TYPE} AND ($2::uuid IS NULL OR e.id = $2::uuid) AND ($3::text IS NULL OR e.trigger_name = $3)`;
    const params = [a.type, a.eventId, a.trigger];
    const rows = await ctx.tx.query<{ l: string }>(
      `SELECT json_build_object('id', l.id, 'event_id', l.event_id, 'status', l.status, 'request', l.request,
          'response', l.response, 'created_at', ${UTC('l.created_at')})::text AS l
         FROM engine_catalog.scheduled_event_invocation_logs l JOIN engine_catalog.scheduled_events e ON e.id = l.event_id
        WHERE ${where} ORDER BY l.created_at DESC, l.id DESC LIMIT $4 OFFSET $5`,
      [...params, a.limit, a.offset],
    );
    const invocations: Json[] = rows.map((r) => {
      const l = JSON.parse(r.l) as Record<string, Json>;
      return Object.fromEntries(INVOCATION_KEYS.map((k) => [k, l[k] ?? null]));
    });
    const answer: Record<string, Json> = { invocations };
    if (!a.count) return answer;
    const n = await ctx.tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM engine_catalog.scheduled_event_invocation_logs l
         JOIN engine_catalog.scheduled_events e ON e.id = l.event_id WHERE ${where}`, params);
    answer['count'] = n[0]?.n ?? 0;
    return answer;
  },
};

export const scheduledEventOperations: Record<string, Operation<unknown>> = {
  get_scheduled_event_invocations: op(getScheduledEventInvocations),
  delete_scheduled_event: op(deleteScheduledEvent),
  redeliver_scheduled_event: op(redeliverScheduledEvent),
};
