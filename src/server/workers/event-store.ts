import type { Queryable } from '../../db/database.js';
import type { Json } from '../../metadata/json.js';
import { LIVE_INSTANCES } from './instance.js';

/** The event_log statements of the processor (engine-api.md §4.7.5, §5.3.2, §5.3.3). */

export interface ClaimedEvent {
  id: string;
  schema_name: string;
  table_name: string;
  trigger_name: string;
  /**
   * The stored payload's fields as PostgreSQL writes jsonb: they go into the webhook's body as they are, never parsed
   * (digits beyond a double's precision kept); 'null' where the stored payload has no such field.
   */
  op: string;
  data: string;
  session_variables: string;
  tries: number;
  /** UTC, six fractional digits, suffix Z (§5.3.1). */
  created_at: string;
}

/** What one attempt decided, to be written with its invocation log. */
export interface AttemptResult {
  id: string;
  trigger: string;
  delivered: boolean;
  error: boolean;
  /** A scheduled event not attempted because its time is past its tolerance (issue 20): no call, no log. */
  dead?: boolean;
  /** Seconds until the next attempt; null when delivered or error. */
  retryIn: number | null;
  status: number | null;
  /** The invocation log's request, as JSON text: the body sent is spliced in, not serialised again. */
  request: string;
  response: Json;
}

/** The invocation logs of `results` as one JSON array, for jsonb_to_recordset. */
export function logsJson(results: AttemptResult[]): string {
  const rows = results.map((r) => `{"event_id":${JSON.stringify(r.id)},"trigger_name":${JSON.stringify(r.trigger)},` +
    `"status":${r.status === null ? 'null' : String(r.status)},"request":${r.request},"response":${JSON.stringify(r.response)}}`);
  return `[${rows.join(',')}]`;
}

/**
 * A lock is free when it is older than 30 minutes (§4.7.5) or names an instance that holds no advisory lock
 * (a dead one). A lock without an instance (set by something else) is honoured for its 30 minutes.
 */
export const LOCK_HELD = `(locked IS NOT NULL AND locked > now() - interval '30 minutes'
  AND (locked_by IS NULL OR locked_by IN (${LIVE_INSTANCES})))`;

/** A trigger the processor may claim events of: `room` more at most, `busy` already in flight. */
export interface TriggerRoom {
  name: string;
  room: number;
  busy: number;
}

/**
 * Locks up to `limit` pending events for instance `me`, in one statement; FOR UPDATE SKIP LOCKED, so that
 * concurrent instances never claim the same row. Each trigger gives at most its `room` oldest events, and the
 * slots go round-robin, the least busy triggers first: a trigger whose webhook is slow, and so keeps many
 * deliveries in flight, cannot take the slots that free up from the others.
 */
export async function claimEvents(db: Queryable, me: number, triggers: TriggerRoom[], limit: number): Promise<ClaimedEvent[]> {
  const open = triggers.filter((t) => t.room > 0);
  if (open.length === 0 || limit <= 0) return [];
  const rows = await db.query<ClaimedEvent & Record<string, unknown>>(
    `WITH cand AS (
       SELECT x.id, x.created_at, t.busy + row_number() OVER (PARTITION BY t.name ORDER BY x.created_at) AS turn
         FROM unnest($1::text[], $2::int[], $3::int[]) AS t(name, room, busy)
         CROSS JOIN LATERAL (
           SELECT e.id, e.created_at FROM engine_catalog.event_log e
            WHERE e.trigger_name = t.name AND NOT e.delivered AND NOT e.error AND NOT e.archived
              AND (e.next_retry_at IS NULL OR e.next_retry_at <= now()) AND NOT ${LOCK_HELD.replace(/\b(locked|locked_by)\b/g, 'e.$1')}
            ORDER BY e.created_at LIMIT t.room FOR UPDATE SKIP LOCKED) x),
     c AS (SELECT id FROM cand ORDER BY turn, created_at LIMIT $4)
     UPDATE engine_catalog.event_log e SET locked = now(), locked_by = $5 FROM c WHERE e.id = c.id
     RETURNING e.id::text AS id, e.schema_name, e.table_name, e.trigger_name, e.tries,
       coalesce((e.payload -> 'op')::text, 'null') AS op, coalesce((e.payload -> 'data')::text, 'null') AS data,
       coalesce((e.payload -> 'session_variables')::text, 'null') AS session_variables,
       to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at`,
    [open.map((t) => t.name), open.map((t) => t.room), open.map((t) => t.busy), limit, me],
  );
  for (const r of rows) r.tries = Number(r.tries);
  return rows.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
}

/** Gives back events this instance locked but will not attempt now. */
export async function releaseEvents(db: Queryable, me: number, ids?: string[]): Promise<void> {
  if (ids === undefined) {
    await db.query('UPDATE engine_catalog.event_log SET locked = NULL, locked_by = NULL WHERE locked_by = $1', [me]);
  } else if (ids.length > 0) {
    await db.query('UPDATE engine_catalog.event_log SET locked = NULL, locked_by = NULL WHERE id = ANY($1::uuid[]) AND locked_by = $2', [ids, me]);
  }
}

/**
 * Writes a batch of attempts: their invocation logs and the events' new state. An event whose lock this instance
 * no longer holds (taken over as abandoned) keeps the state its new owner gives it.
 */
export async function recordAttempts(db: Queryable, me: number, results: AttemptResult[]): Promise<void> {
  if (results.length === 0) return;
  const ids = results.map((r) => r.id);
  // One statement (one round trip, atomic), every row found through the primary key whatever the table's size: the
  // logs of events still there (users may delete events meanwhile), then the states, where this instance holds the
  // lock. A state is looked up by the event's position in $2, so that no join depends on the planner's estimates.
  await db.query(
    `WITH logs AS (
       INSERT INTO engine_catalog.event_invocation_logs (event_id, trigger_name, status, request, response)
       SELECT x.event_id, x.trigger_name, x.status, x.request, x.response
         FROM jsonb_to_recordset($1::jsonb) AS x(event_id uuid, trigger_name text, status integer, request jsonb, response jsonb)
        WHERE x.event_id IN (SELECT e.id FROM engine_catalog.event_log e WHERE e.id = ANY($2::uuid[])))
     UPDATE engine_catalog.event_log e SET tries = e.tries + 1, locked = NULL, locked_by = NULL,
         delivered = e.id = ANY($3::uuid[]), error = e.id = ANY($4::uuid[]),
         next_retry_at = now() + make_interval(secs => ($5::integer[])[array_position($2::uuid[], e.id)])
      WHERE e.id = ANY($2::uuid[]) AND e.locked_by = $6`,
    [logsJson(results), ids, results.filter((r) => r.delivered).map((r) => r.id), results.filter((r) => r.error).map((r) => r.id),
      results.map((r) => r.retryIn), me],
  );
}
