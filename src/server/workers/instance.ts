import { randomInt } from 'node:crypto';
import type { Queryable } from '../../db/database.js';

/**
 * Processor instances and their liveness (engine-api.md §5.3.2, issue 15): each instance holds a session
 * advisory lock (INSTANCE_LOCK_NS, its id) for as long as it runs, and the event rows it locks name it in
 * `locked_by`. A lock row whose instance holds no advisory lock belongs to a dead instance and is free at once,
 * instead of after the 30 minutes of abandoned locks. PostgreSQL drops a session's advisory locks when its
 * connection ends, `kill -9` included; an embedded database starts with none, so a previous process's locks are
 * free from the start.
 */

/** The first key of the two-key advisory locks of instances ("eng"); the second is the instance id. */
export const INSTANCE_LOCK_NS = 0x656e67;

/** SQL naming the ids of live instances (a subquery): the granted two-key advisory locks of the namespace. */
export const LIVE_INSTANCES = `SELECT l.objid::bigint FROM pg_locks l
  WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.granted AND l.classid::bigint = ${INSTANCE_LOCK_NS}`;

/** Takes the advisory lock of `id`, or of a fresh random id; returns the id held. */
export async function holdInstanceLock(session: Queryable, id?: number): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const candidate = id ?? randomInt(1, 2 ** 31 - 1);
    const rows = await session.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS ok', [INSTANCE_LOCK_NS, candidate]);
    if (rows[0]?.ok) return candidate;
    if (id !== undefined) throw new Error(`the instance lock ${id} is held by another session`);
  }
  throw new Error('no free instance id');
}

export async function releaseInstanceLock(session: Queryable, id: number): Promise<void> {
  await session.query('SELECT pg_advisory_unlock($1::int, $2::int)', [INSTANCE_LOCK_NS, id]);
}
