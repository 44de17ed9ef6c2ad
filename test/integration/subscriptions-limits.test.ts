import type { Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { silentLogger } from '../../src/logger.js';
import { Authenticator } from '../../src/server/auth/index.js';
import { Engine } from '../../src/server/engine.js';
import { GraphqlService } from '../../src/server/graphql/service.js';
import { createHttpServer, listen, subscriptionsOf } from '../../src/server/http/index.js';
import type { Subscriptions } from '../../src/server/graphql/subscriptions/index.js';
import { loadMetrics } from '../../src/server/http/metrics.js';
import { createTestDatabase, post } from '../helpers/engine.js';
import { HS_SECRET, userToken } from '../helpers/jwt.js';
import { modernClient, rawSocket, until, type ModernClient } from '../helpers/subscriptions.js';
import { EXAMPLE_METADATA, EXAMPLE_SQL } from './graphql-fixture.js';

// Issue 32.7 and the rest of 32.1/32.2: limits per connection, per server and of sockets, a slow consumer dropped
// without holding the others back, the metrics of subscriptions, token refresh without reconnecting (the
// `connection_refresh` extension, docs/decisions.md), cohorts keyed by the session values their statements read.

const SECRET = 'limits-s3cret';
const METRICS = 'limits-metrics-secret';
const JWT = JSON.stringify({ type: 'HS256', key: HS_SECRET, issuer: 'https://issuer.test', audience: 'engine-tests' });
const admin = { 'x-engine-admin-secret': SECRET };
const user = (id: number, extra: Record<string, string> = {}) => ({ ...admin, 'x-engine-role': 'user', 'x-engine-user-id': String(id), ...extra });
const LIMITS = { perConnection: 2, perServer: 3, connections: 6, sendBuffer: 64 * 1024 };

let db: Database;
let url: string;
let server: Server;
let drop: () => Promise<void>;
let detach: () => void;
let subscriptions: Subscriptions;
const clients: ModernClient[] = [];
const sockets: ReturnType<typeof rawSocket>[] = [];

beforeAll(async () => {
  ({ db, drop } = await createTestDatabase());
  const engine = await Engine.start(db, silentLogger);
  const logger = { ...silentLogger, error: (m: string) => console.error(m) };
  const auth = await Authenticator.create({ jwtSecret: JWT, adminSecret: SECRET }, logger);
  const graphql = new GraphqlService(engine);
  const metrics = await loadMetrics(METRICS, graphql, db);
  detach = () => metrics.detach();
  server = createHttpServer(engine, { auth, logger, graphql, metrics, liveQueriesRefetchMs: 0, subscriptionLimits: LIMITS });
  url = `http://127.0.0.1:${(await listen(server, 0, '127.0.0.1')).port}`;
  subscriptions = (await subscriptionsOf(server))!;
  expect((await post(`${url}/v1/query`, { type: 'run_sql', args: { sql: EXAMPLE_SQL } }, admin)).status).toBe(200);
  expect((await post(`${url}/v1/query`, { type: 'bulk', args: EXAMPLE_METADATA }, admin)).status).toBe(200);
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.dispose();
  for (const s of sockets.splice(0)) s.ws.terminate();
  await until(() => (subs().connectionCount === 0 && subs().live.subscribers === 0 ? true : undefined), 'every socket gone');
});

afterAll(async () => {
  detach();
  await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
  await db.close();
  await drop();
});

const subs = (): Subscriptions => subscriptions;
const client = (h: Record<string, string>) => { const c = modernClient(url, h); clients.push(c); return c; };
const raw = (protocol = 'graphql-transport-ws') => { const s = rawSocket(url, protocol); sockets.push(s); return s; };
const messages = (s: ReturnType<typeof rawSocket>, n: number, what: string) => until(() => (s.messages.length >= n ? true : undefined), what);
const Q = 'subscription { author(order_by: {id: asc}) { name } }';

describe('limits', () => {
  it('one subscription over the connection\'s limit is an error message; the socket and the others go on', async () => {
    const c = client(admin);
    const a = c.subscribe(Q);
    const b = c.subscribe('subscription { article_aggregate { aggregate { count } } }');
    await a.next(() => true);
    await b.next(() => true);
    const over = c.subscribe('subscription { author_by_pk(id: 1) { name } }');
    await until(() => over.error, 'the refusal');
    expect(over.error).toEqual([{ message: 'too many subscriptions on this connection: the limit is 2', extensions: { path: '$', code: 'subscription-limit-exceeded' } }]);
    // A query is not a subscription: it is answered.
    const once = c.subscribe('{ author_by_pk(id: 2) { name } }');
    await until(() => (once.done ? true : undefined), 'the query');
    expect(once.results).toEqual([{ data: { author_by_pk: { name: 'Bob' } } }]);
    await db.query("UPDATE author SET name = 'Ann2' WHERE id = 1");
    await a.next((x) => x.data.author[0].name === 'Ann2', 'the update');
    expect(subs().refusals.subscriptions_per_connection).toBe(1);
  });

  it('the server\'s limit counts every connection\'s subscriptions', async () => {
    const one = client(admin);
    const two = client(admin);
    for (const r of [one.subscribe(Q), one.subscribe(Q), two.subscribe(Q)]) await r.next(() => true);
    const over = two.subscribe(Q);
    await until(() => over.error, 'the refusal');
    expect(over.error).toEqual([{ message: 'too many subscriptions on this server: the limit is 3', extensions: { path: '$', code: 'subscription-limit-exceeded' } }]);
    expect([subs().live.subscribers, subs().live.cohortCount]).toEqual([3, 1]);
  });

  it('a socket over the server\'s connection limit is closed with 1013', async () => {
    const open = Array.from({ length: LIMITS.connections }, () => raw());
    for (const s of open) await s.open;
    await until(() => (subs().connectionCount === LIMITS.connections ? true : undefined), 'the open sockets');
    const over = raw();
    await until(() => over.closed ?? undefined, 'the close');
    expect(over.closed).toEqual({ code: 1013, reason: 'Too many connections: the limit is 6' });
    expect(subs().connectionCount).toBe(LIMITS.connections);
  });

  it('a client that stops reading is dropped (1013) once its results wait over the bound; the others get every result', async () => {
    const q = 'subscription { article_by_pk(id: 2) { content } }';
    const fast = client(admin);
    const r = fast.subscribe(q);
    await r.next(() => true);
    const slow = raw();
    await slow.open;
    slow.ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: admin } }));
    slow.ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: q } }));
    await messages(slow, 2, 'ack and the first result');
    // The client's end stops reading: what the server sends waits in the kernel's buffers, then in the socket's.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    for (let i = 1; subs().refusals.slow_consumer === 0; i++) {
      if (i > 200) throw new Error('the slow consumer was never dropped');
      await db.query("UPDATE article SET content = $1 || repeat(md5(random()::text), 20000) WHERE id = 2", [`v${i}:`]);
      await r.next((x) => x.data.article_by_pk.content.startsWith(`v${i}:`), `version ${i}`);
    }
    await until(() => (subs().connectionCount === 1 ? true : undefined), 'the slow socket gone');
    expect(subs().live.subscribers).toBe(1);
    await db.query("UPDATE article SET content = 'after' WHERE id = 2");
    await r.next((x) => x.data.article_by_pk.content === 'after', 'the update after the drop');
  });
});

describe('metrics', () => {
  it('GET /v1/metrics shows connections, subscribers, cohorts, streams and refusals', async () => {
    const c = client(admin);
    await c.subscribe(Q).next(() => true);
    const s = c.subscribe('subscription { article_stream(batch_size: 5, cursor: {initial_value: {id: 0}}) { id } }');
    await s.next(() => true);
    const res = await fetch(`${url}/v1/metrics`, { headers: { authorization: `Bearer ${METRICS}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    expect([value('engine_websocket_connections'), value('engine_subscription_subscribers'), value('engine_subscription_cohorts'),
      value('engine_subscription_stream_cohorts'), value('engine_subscription_watched_tables')]).toEqual([1, 2, 2, 1, 2]);
    expect(value('engine_subscription_stream_batches_total')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^engine_subscription_refusals_total\{reason="subscriptions_per_connection"\} [1-9]/m);
    expect(text).toMatch(/^engine_subscription_refusals_total\{reason="slow_consumer"\} 1$/m);
  });
});

describe('connection_refresh: new credentials without reconnecting', () => {
  const init = async (token: string, protocol = 'graphql-transport-ws') => {
    const s = raw(protocol);
    await s.open;
    s.ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: { authorization: `Bearer ${token}` } } }));
    await until(() => (s.messages.some((m) => m.type === 'connection_ack') ? true : undefined), 'the ack');
    return s;
  };

  it('a refreshed token of the same identity is acknowledged; the old expiry no longer closes; the operations go on', async () => {
    const t0 = Date.now();
    const s = await init(await userToken(2, { exp: 2 }));
    s.ws.send(JSON.stringify({ id: 'a', type: 'subscribe', payload: { query: 'subscription { article(order_by: {id: asc}) { title } }' } }));
    await until(() => (s.messages.some((m) => m.type === 'next') ? true : undefined), 'the first result');
    s.ws.send(JSON.stringify({ type: 'connection_refresh', payload: { headers: { authorization: `Bearer ${await userToken(2, { exp: 3600 })}` } } }));
    await until(() => (s.messages.some((m) => m.type === 'connection_refresh_ack') ? true : undefined), 'the refresh ack');
    // Past the first token's expiry (polled, not slept): the socket stays, and a commit still arrives.
    await until(() => (Date.now() > t0 + 3500 ? true : undefined), 'the old expiry passed', 10_000);
    await db.query("UPDATE article SET title = 'Fresh' WHERE id = 1");
    await until(() => (s.messages.some((m) => m.type === 'next' && JSON.stringify(m).includes('Fresh')) ? true : undefined), 'the update');
    expect(s.closed).toBeNull();
  });

  it('the expiry follows the refreshed token', async () => {
    const s = await init(await userToken(2, { exp: 3600 }));
    s.ws.send(JSON.stringify({ type: 'connection_refresh', payload: { headers: { authorization: `Bearer ${await userToken(2, { exp: 2 })}` } } }));
    await until(() => s.closed ?? undefined, 'the close at the new expiry');
    expect(s.messages.map((m) => m.type)).toEqual(['connection_ack', 'connection_refresh_ack']);
    expect(s.closed).toEqual({ code: 4401, reason: 'Unauthorized: the JWT expired' });
  });

  it('another user\'s token, a bad token, and a refresh before connection_init close the socket', async () => {
    const other = await init(await userToken(2));
    other.ws.send(JSON.stringify({ type: 'connection_refresh', payload: { headers: { authorization: `Bearer ${await userToken(3)}` } } }));
    await until(() => other.closed ?? undefined, 'the close');
    expect(other.closed).toEqual({ code: 4403, reason: 'Forbidden: the refreshed credentials name another role or other session variables' });
    const bad = await init(await userToken(2), 'graphql-ws');
    bad.ws.send(JSON.stringify({ type: 'connection_refresh', payload: { headers: { authorization: 'Bearer nope' } } }));
    await until(() => bad.closed ?? undefined, 'the close');
    expect(bad.closed?.code).toBe(4403);
    expect(bad.closed?.reason).toMatch(/^Forbidden: Could not verify JWT/);
    expect(bad.messages.find((m) => m.type === 'connection_error')?.payload.message).toMatch(/^Could not verify JWT/);
    const early = raw();
    await early.open;
    early.ws.send(JSON.stringify({ type: 'connection_refresh', payload: { headers: admin } }));
    await until(() => early.closed ?? undefined, 'the close');
    expect(early.closed).toEqual({ code: 4401, reason: 'Unauthorized' });
  });
});

describe('cohorts by the session values their statements read', () => {
  it('session variables no permission reads do not split a cohort; the user id does', async () => {
    // Three subscribers: the server's limit here.
    const q = 'subscription { article(order_by: {id: asc}) { id } }';
    const twos = ['a', 'b'].map((team) => client(user(2, { 'x-engine-team': team })).subscribe(q));
    const mine = client(user(1, { 'x-engine-team': 'a' })).subscribe(q);
    for (const r of [...twos, mine]) await r.next(() => true);
    // User 2 (two teams), user 1.
    expect(subs().live.cohortCount).toBe(2);
    for (const r of twos) expect(r.last.data.article.map((a: { id: number }) => a.id)).toEqual([1, 3]);
    expect(mine.last.data.article.map((a: { id: number }) => a.id)).toEqual([1, 2, 3]);
  });

  it('a permission that comes to read a session variable splits the cohort at its next refetch', async () => {
    const q = 'subscription { author(order_by: {id: asc}) { id } }';
    const one = client(user(1)).subscribe(q);
    const two = client(user(2)).subscribe(q);
    await one.next(() => true);
    await two.next(() => true);
    expect(subs().live.cohortCount).toBe(1);
    const meta = await post(`${url}/v1/query`, { type: 'bulk', args: [
      { type: 'drop_select_permission', args: { table: 'author', role: 'user' } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Engine-User-Id' } } } } },
    ] }, admin);
    expect(meta.status).toBe(200);
    await db.query("UPDATE author SET bio = 'wake' WHERE id = 3");
    await one.next((x) => x.data.author.length === 1, 'user 1\'s own row');
    await two.next((x) => x.data.author.length === 1, 'user 2\'s own row');
    expect([one.last.data.author, two.last.data.author]).toEqual([[{ id: 1 }], [{ id: 2 }]]);
    expect(subs().live.cohortCount).toBe(2);
  });
});
