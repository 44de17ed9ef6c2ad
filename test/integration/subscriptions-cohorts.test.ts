import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { subscriptionsOf } from '../../src/server/http/index.js';
import { LIVE_TRIGGER } from '../../src/server/graphql/subscriptions/index.js';
import { createTestDatabase, EXTERNAL_URL, post, startOn } from '../helpers/engine.js';
import { HS_SECRET, userToken } from '../helpers/jwt.js';
import { modernClient, until, type ModernClient } from '../helpers/subscriptions.js';
import { EXAMPLE_METADATA, EXAMPLE_SQL } from './graphql-fixture.js';

// Issue 32.1–32.3 and 32.6 on engines of their own: cohorts share executions, the triggers follow the subscribers,
// a JWT's expiry closes the socket, and (on PostgreSQL) a write through one engine reaches another engine's subscribers.

const SECRET = 'cohort-s3cret';
const JWT = JSON.stringify({ type: 'HS256', key: HS_SECRET, issuer: 'https://issuer.test', audience: 'engine-tests' });
const admin = { 'x-engine-admin-secret': SECRET };

let db: Database;
let url: string;
let server: Server;
let drop: () => Promise<void>;
let dbUrl: string | undefined;
const clients: ModernClient[] = [];

beforeAll(async () => {
  ({ db, drop, url: dbUrl } = await createTestDatabase());
  ({ url, server } = await startOn(db, SECRET, { auth: { jwtSecret: JWT }, http: { liveQueriesRefetchMs: 0 } }));
  const run = await post(`${url}/v1/query`, { type: 'run_sql', args: { sql: EXAMPLE_SQL } }, admin);
  expect(run.status).toBe(200);
  const meta = await post(`${url}/v1/query`, { type: 'bulk', args: EXAMPLE_METADATA }, admin);
  expect(meta.status).toBe(200);
});

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
  await db.close();
  await drop();
});

const client = (h: Record<string, string>, at = url) => { const c = modernClient(at, h); clients.push(c); return c; };
const triggers = async () => (await db.query<{ t: string }>(
  'SELECT c.relname AS t FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid WHERE g.tgname = $1 ORDER BY 1', [LIVE_TRIGGER])).map((r) => r.t);

describe('cohorts', () => {
  it('100 subscribers with 10 variable sets are 10 cohorts sharing one statement per refetch; triggers follow the subscribers', async () => {
    const live = (await subscriptionsOf(server))!.live;
    await db.query("INSERT INTO author (name) SELECT 'A' || g FROM generate_series(4, 9) g");
    const cs = Array.from({ length: 4 }, () => client(admin));
    const subs = Array.from({ length: 100 }, (_, i) => (cs[i % 4] as ModernClient).subscribe(
      'subscription($id: Int!) { author_by_pk(id: $id) { id name } }', { id: (i % 10) + 1 }));
    for (const r of subs) await r.next(() => true);
    expect([live.cohortCount, live.subscribers]).toEqual([10, 100]);
    expect(await triggers()).toEqual(['author']);
    // Id 10 does not exist: that cohort's result is null and stays so; only changed cohorts are sent.
    expect(subs[9]!.last).toEqual({ data: { author_by_pk: null } });
    const before = { ...live.stats };
    await db.query("UPDATE author SET name = 'Ann2' WHERE id = 1");
    await until(() => (subs.filter((_, i) => i % 10 === 0).every((r) => r.last.data.author_by_pk.name === 'Ann2') ? true : undefined), 'the new name');
    await until(() => (live.stats.rounds > before.rounds ? true : undefined), 'the round');
    expect(live.stats).toEqual({ statements: before.statements + 1, single: before.single, rounds: before.rounds + 1, batches: before.batches });
    expect(subs.map((r) => r.results.length)).toEqual(subs.map((_, i) => (i % 10 === 0 ? 2 : 1)));
    for (const c of cs) await c.dispose();
    await until(() => (live.cohortCount === 0 ? true : undefined), 'no cohorts');
    for (let i = 0; (await triggers()).length > 0; i++) {
      if (i > 500) throw new Error('the trigger stayed');
      await new Promise((r) => setTimeout(r, 10));
    }
  });

  it('a write to a table no live query reads runs no statement of theirs', async () => {
    const live = (await subscriptionsOf(server))!.live;
    const c = client(admin);
    const r = c.subscribe('subscription { author(where: {id: {_eq: 2}}) { name } }');
    await r.next(() => true);
    const before = live.stats.statements;
    await db.query("UPDATE article SET views = views + 1 WHERE id = 1");
    await db.query("UPDATE author SET bio = 'x' WHERE id = 3");
    await until(() => (live.stats.statements > before ? true : undefined), 'the author write\'s refetch');
    expect(live.stats.statements - before).toBe(1);
    expect(r.results).toHaveLength(1);
    await c.dispose();
  });
});

describe('authentication at connection_init', () => {
  it('a JWT caller gets its own rows; the token\'s expiry closes the socket with 4401', async () => {
    const token = await userToken(2, { exp: 2, iss: 'https://issuer.test', aud: 'engine-tests' });
    const c = client({ authorization: `Bearer ${token}` });
    const r = c.subscribe('subscription { article(order_by: {id: asc}) { title } }');
    expect((await r.next(() => true)).data.article.map((a: { title: string }) => a.title)).not.toContain('Draft');
    await until(() => c.closed ?? undefined, 'the close at expiry');
    expect(c.closed).toEqual({ code: 4401, reason: 'Unauthorized: the JWT expired' });
  });

  it('an expired or bad token is refused at connection_init with 4403', async () => {
    const c = client({ authorization: 'Bearer nope' });
    c.subscribe('subscription { article { id } }');
    await until(() => c.closed ?? undefined, 'the close');
    expect(c.closed?.code).toBe(4403);
    expect(c.closed?.reason).toMatch(/^Forbidden: Could not verify JWT/);
  });
});

describe.skipIf(!EXTERNAL_URL)('several engines on one PostgreSQL (32.6)', () => {
  it('a mutation through engine A reaches a subscriber of engine B', async () => {
    const other = await PostgresDatabase.connect(dbUrl as string);
    const b = await startOn(other, SECRET, { auth: { jwtSecret: JWT }, http: { liveQueriesRefetchMs: 0 } });
    try {
      const c = client(admin, b.url);
      const r = c.subscribe('subscription { author_by_pk(id: 2) { name } }');
      await r.next(() => true);
      const m = await post(`${url}/v1/graphql`, { query: 'mutation { update_author_by_pk(pk_columns: {id: 2}, _set: {name: "FromA"}) { id } }' }, admin);
      expect(m.body).toEqual({ data: { update_author_by_pk: { id: 2 } } });
      await r.next((x) => x.data.author_by_pk.name === 'FromA', 'engine A\'s write on engine B');
      await c.dispose();
    } finally {
      await new Promise<void>((resolve) => { b.server.close(() => resolve()); b.server.closeAllConnections(); });
      await other.close();
    }
  });
});
