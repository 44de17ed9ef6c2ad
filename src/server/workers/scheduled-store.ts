import type { Queryable } from '../../db/database.js';
import type { Json } from '../../metadata/json.js';
import type { AttemptResult, TriggerRoom } from './event-store.js';
import { LOCK_HELD, logsJson } from './event-store.js';

/**
 * The statements of scheduled events (issue 20): the rows of engine_catalog.scheduled_events, claimed, released and
 * recorded like event_log's (event-store.ts). `trigger_name` '' stands for the one-off events, which carry their
 * own definition. Times are compared with the injected clock's `now`, passed as a parameter.
 */

export interface ClaimedScheduled {
  id: string;
  /** The cron trigger, or '' for a one-off event. */
  trigger_name: string;
  scheduled_time: string;
  /** When the row was written (UTC, as scheduled_time). */
  created_at: string;
  definition: Json;
  tries: number;
  /** When an admin last redelivered it (UTC, as scheduled_time), or null. */
  redelivered_at: string | null;
}

const UTC = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export async function claimScheduled(db: Queryable, me: number, triggers: TriggerRoom[], limit: number, now: Date): Promise<ClaimedScheduled[]> {
  const open = triggers.filter((t) => t.room > 0);
  if (open.length === 0 || limit <= 0) return [];
  const rows = await db.query<ClaimedScheduled & Record<string, unknown>>(
    `WITH cand AS (
       SELECT x.id, x.scheduled_time, t.busy + row_number() OVER (PARTITION BY t.name ORDER BY x.scheduled_time) AS turn
         FROM unnest($1::text[], $2::int[], $3::int[]) AS t(name, room, busy)
         CROSS JOIN LATERAL (
           SELECT e.id, e.scheduled_time FROM engine_catalog.scheduled_events e
            WHERE (CASE WHEN t.name = '' THEN e.trigger_name IS NULL ELSE e.trigger_name = t.name END)
              AND e.status = 'scheduled' AND e.scheduled_time <= $6::timestamptz
              AND (e.next_retry_at IS NULL OR e.next_retry_at <= $6::timestamptz)
              AND NOT ${LOCK_HELD.replace(/\b(locked|locked_by)\b/g, 'e.$1')}
            ORDER BY e.scheduled_time LIMIT t.room FOR UPDATE SKIP LOCKED) x),
     c AS (SELECT id FROM cand ORDER BY turn, scheduled_time LIMIT $4)
     UPDATE engine_catalog.scheduled_events e SET locked = now(), locked_by = $5 FROM c WHERE e.id = c.id
     RETURNING e.id::text AS id, coalesce(e.trigger_name, '') AS trigger_name, ${UTC('e.scheduled_time')} AS scheduled_time,
       ${UTC('e.created_at')} AS created_at, e.definition, e.tries, ${UTC('e.redelivered_at')} AS redelivered_at`,
    [open.map((t) => t.name), open.map((t) => t.room), open.map((t) => t.busy), limit, me, now.toISOString()],
  );
  for (const r of rows) r.tries = Number(r.tries);
  return rows.sort((a, b) => (a.scheduled_time < b.scheduled_time ? -1 : a.scheduled_time > b.scheduled_time ? 1 : 0));
}

export async function releaseScheduled(db: Queryable, me: number, ids?: string[]): Promise<void> {
  if (ids === undefined) {
    await db.query('UPDATE engine_catalog.scheduled_events SET locked = NULL, locked_by = NULL WHERE locked_by = $1', [me]);
  } else if (ids.length > 0) {
    await db.query('UPDATE engine_catalog.scheduled_events SET locked = NULL, locked_by = NULL WHERE id = ANY($1::uuid[]) AND locked_by = $2', [ids, me]);
  }
}

/** Invocation logs (none for a dead event, which was not attempted) and new states, where this instance holds the lock. */
export async function recordScheduled(db: Queryable, me: number, results: AttemptResult[], now: Date): Promise<void> {
  if (results.length === 0) return;
  const logs = logsJson(results.filter((r) => !r.dead));
  const states = results.map((r) => ({ id: r.id, delivered: r.delivered, error: r.error, dead: r.dead === true, retry_in: r.retryIn }));
  await db.query(
    `WITH logs AS (
       INSERT INTO engine_catalog.scheduled_event_invocation_logs (event_id, trigger_name, status, request, response)
       SELECT e.id, e.trigger_name, x.status, x.request, x.response
         FROM jsonb_to_recordset($1::jsonb) AS x(event_id uuid, status integer, request jsonb, response jsonb)
         JOIN engine_catalog.scheduled_events e ON e.id = x.event_id)
     UPDATE engine_catalog.scheduled_events e SET tries = e.tries + CASE WHEN x.dead THEN 0 ELSE 1 END, locked = NULL, locked_by = NULL,
         status = CASE WHEN x.dead THEN 'dead' WHEN x.delivered THEN 'delivered' WHEN x.error THEN 'error' ELSE 'scheduled' END,
         next_retry_at = CASE WHEN x.retry_in IS NULL THEN NULL ELSE $4::timestamptz + make_interval(secs => x.retry_in) END
       FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, delivered boolean, error boolean, dead boolean, retry_in integer)
      WHERE e.id = x.id AND e.locked_by = $3`,
    [logs, JSON.stringify(states), me, now.toISOString()],
  );
}

/**
 * Writes the scheduled times of cron triggers that fell due, once across instances: the state rows are locked, so
 * a second instance finds the times already written (and the unique index refuses a repeat in any case).
 * `times(name, from)` gives each trigger's times after `from` up to now, with the status each is written with.
 */
export async function writeCronEvents(
  db: { transaction<T>(f: (tx: Queryable) => Promise<T>): Promise<T> }, names: string[], now: Date,
  times: (name: string, from: Date) => { at: Date; status: 'scheduled' | 'dead' }[],
): Promise<void> {
  if (names.length === 0) return;
  await db.transaction(async (tx) => {
    // A trigger seen for the first time starts now: times before it existed are not missed times.
    await tx.query(`INSERT INTO engine_catalog.cron_trigger_state (trigger_name, generated_until)
      SELECT unnest($1::text[]), $2::timestamptz ON CONFLICT (trigger_name) DO NOTHING`, [names, now.toISOString()]);
    const rows = await tx.query<{ trigger_name: string; until: string }>(
      `SELECT trigger_name, ${UTC('generated_until')} AS until FROM engine_catalog.cron_trigger_state
        WHERE trigger_name = ANY($1::text[]) ORDER BY trigger_name FOR UPDATE`, [names]);
    const out = rows.flatMap((r) => times(r.trigger_name, new Date(r.until)).map((t) => ({ name: r.trigger_name, ...t })));
    if (out.length > 0) {
      await tx.query(`INSERT INTO engine_catalog.scheduled_events (trigger_name, scheduled_time, status)
        SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[])
        ON CONFLICT (trigger_name, scheduled_time) WHERE trigger_name IS NOT NULL DO NOTHING`,
      [out.map((o) => o.name), out.map((o) => o.at.toISOString()), out.map((o) => o.status)]);
    }
    await tx.query(`UPDATE engine_catalog.cron_trigger_state SET generated_until = $2::timestamptz
      WHERE trigger_name = ANY($1::text[]) AND generated_until < $2::timestamptz`, [names, now.toISOString()]);
  });
}

/** After a metadata change: the state and pending events of cron triggers that no longer exist go (archived). */
export async function retireCronTriggers(tx: Queryable, names: string[]): Promise<void> {
  await tx.query('DELETE FROM engine_catalog.cron_trigger_state WHERE NOT (trigger_name = ANY($1::text[]))', [names]);
  await tx.query(`UPDATE engine_catalog.scheduled_events SET status = 'archived'
    WHERE status = 'scheduled' AND trigger_name IS NOT NULL AND NOT (trigger_name = ANY($1::text[]))`, [names]);
}
