import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { subscriptionsOf } from '../../src/server/http/index.js';
import { countingDatabase } from '../helpers/counting-db.js';
import { createTestDatabase, post, startOn, type AuthOptions } from '../helpers/engine.js';
import { modernClient, until, type ModernClient, type Received } from '../helpers/subscriptions.js';

// Issue 32.2: 1,000 subscribers with 100 distinct variable sets are 100 cohorts, refetched by one multiplexed
// statement per batch of cohorts — statements counted where they are sent to the database, not by the engine's own
// figures — and `--live-queries-batch-size` sets the batch.

const SECRET = 'scale-s3cret';
const admin = { 'x-engine-admin-secret': SECRET };
const SETS = 100;
const QUERY = 'subscription($id: Int!) { item_by_pk(id: $id) { id v } }';

let db: Database;
let drop: () => Promise<void>;
let counted: ReturnType<typeof countingDatabase>;
const servers: Server[] = [];
const clients: ModernClient[] = [];

beforeAll(async () => {
  ({ db, drop } = await createTestDatabase());
  await db.runScript(`CREATE TABLE item (id int PRIMARY KEY, v int NOT NULL); INSERT INTO item SELECT g, 0 FROM generate_series(1, ${SETS}) g;`);
  counted = countingDatabase(db);
});

afterAll(async () => {
  for (const c of clients) await c.dispose();
  for (const s of servers) await new Promise<void>((resolve) => { s.close(() => resolve()); s.closeAllConnections(); });
  await db.close();
  await drop();
});

async function engine(http: NonNullable<AuthOptions['http']>): Promise<{ url: string; server: Server }> {
  const started = await startOn(counted.db, SECRET, { http: { liveQueriesRefetchMs: 0, ...http } });
  servers.push(started.server);
  const r = await post(`${started.url}/v1/query`, { type: 'track_table', args: 'item' }, admin);
  expect([200, 400]).toContain(r.status);
  return started;
}

/** Statements sent to the database since `from`, without the transactions' BEGIN/COMMIT and version check. */
const statements = (from: number): string[] => counted.log.slice(from).filter((s) => s !== 'BEGIN' && s !== 'COMMIT' && !/resource_version/.test(s));

/** `n` subscribers over sockets of 100 each, the i-th with id (i % SETS) + 1; each has its first result. */
async function subscribe(url: string, n: number): Promise<Received[]> {
  const sockets = Array.from({ length: Math.ceil(n / 100) }, () => { const c = modernClient(url, admin); clients.push(c); return c; });
  const subs = Array.from({ length: n }, (_, i) => (sockets[Math.floor(i / 100)] as ModernClient).subscribe(QUERY, { id: (i % SETS) + 1 }));
  for (const r of subs) await r.next(() => true, 'the first result');
  return subs;
}

describe('multiplexing at scale', () => {
  it('1,000 subscribers with 100 variable sets share one statement per refetch', async () => {
    const { url, server } = await engine({});
    const live = (await subscriptionsOf(server))!.live;
    const subs = await subscribe(url, 1000);
    expect([live.cohortCount, live.subscribers]).toEqual([SETS, 1000]);
    const rounds = live.stats.rounds;
    const from = counted.log.length;
    // Every row changes in one outside commit: every cohort's result changes.
    await db.query('UPDATE item SET v = v + 1');
    await until(() => (subs.every((r) => r.last.data.item_by_pk.v === 1) ? true : undefined), 'every subscriber updated', 30_000);
    expect(live.stats.rounds).toBe(rounds + 1);
    const sent = statements(from);
    expect(sent.length).toBeLessThanOrEqual(10);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/jsonb_array_elements\(\$1::jsonb\) WITH ORDINALITY/);
    for (const c of clients.splice(0)) await c.dispose();
    await until(() => (live.cohortCount === 0 ? true : undefined), 'no cohort left');
  }, 120_000);

  it('--live-queries-batch-size: 100 cohorts in batches of 25 are four statements', async () => {
    const { url, server } = await engine({ subscriptions: { batchSize: 25 } });
    const live = (await subscriptionsOf(server))!.live;
    const subs = await subscribe(url, SETS);
    expect(live.cohortCount).toBe(SETS);
    const from = counted.log.length;
    await db.query('UPDATE item SET v = v + 1');
    await until(() => (subs.every((r) => r.last.data.item_by_pk.v === 2) ? true : undefined), 'every subscriber updated', 30_000);
    expect(statements(from)).toHaveLength(4);
  }, 120_000);
});
