/**
 * End-to-end: subscriptions of real `engine serve` processes (issue 32). The limits set by flags (32.7); `kill -9` of
 * the engine: its clients see the close and reconnect to the restarted engine, which sweeps the trigger the killed
 * one left; two engines on one PostgreSQL (32.6): a write through one reaches the other's subscribers, and a table's
 * trigger stays while any engine watches it and goes when the last one leaves — or is killed.
 */
import pg from 'pg';
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { modernClient, rawSocket, Received, until, wsUrl, type ModernClient } from '../helpers/subscriptions.js';
import { eventually } from '../helpers/webhook.js';
import { tempDir } from './cli-helpers.js';
import { externalDatabase, finished, freePort, ok, serve, stopAll } from './process-helpers.js';

const clients: { dispose(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.dispose();
  await stopAll();
});

const SQL = `CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL);
  INSERT INTO author (name) VALUES ('Ann'), ('Bob'); INSERT INTO article (title) VALUES ('Intro')`;

async function setup(url: string): Promise<void> {
  await ok(url, { type: 'run_sql', args: { sql: SQL } });
  await ok(url, { type: 'bulk', args: [{ type: 'track_table', args: 'author' }, { type: 'track_table', args: 'article' }] });
}

const modern = (url: string): ModernClient => {
  const c = modernClient(url, {});
  clients.push(c);
  return c;
};

/** The tables that have the live queries' trigger, read through `run_sql` (the embedded database has no other door). */
async function triggered(url: string): Promise<string[]> {
  const r = await ok(url, { type: 'run_sql', args: { sql: "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname = 'engine_live_query' ORDER BY 1" } });
  return (r.result as string[][]).slice(1).map((row) => row[0] as string);
}

const AUTHOR_1 = 'subscription { author_by_pk(id: 1) { name } }';
const name1 = (r: Received, name: string) => r.next((x) => x.data?.author_by_pk?.name === name, `the name ${name}`);

describe('engine serve (embedded database)', () => {
  it('the subscription limits and timers are set by flags', async () => {
    const cwd = await tempDir();
    const { url } = await serve(cwd, ['--data-dir', `${cwd}/data`, '--websocket-max-connections', '1', '--websocket-max-subscriptions', '1',
      '--websocket-connection-init-timeout', '1']);
    await setup(url);
    const c = modern(url);
    const first = c.subscribe(AUTHOR_1);
    await name1(first, 'Ann');
    const second = c.subscribe('subscription { article { title } }');
    await until(() => second.error, 'the refusal');
    expect(second.error).toEqual([{ message: 'too many subscriptions on this connection: the limit is 1', extensions: { path: '$', code: 'subscription-limit-exceeded' } }]);
    // One socket is the limit: another is closed at once with 1013.
    const other = rawSocket(url, 'graphql-transport-ws');
    clients.push({ dispose: () => other.ws.terminate() });
    await until(() => other.closed ?? undefined, 'the second socket\'s close');
    expect(other.closed).toEqual({ code: 1013, reason: 'Too many connections: the limit is 1' });
    // The first socket is unaffected, and without connection_init a socket goes after 1 s (once the first left).
    await post(`${url}/v1/graphql`, { query: 'mutation { update_author_by_pk(pk_columns: {id: 1}, _set: {name: "Ann2"}) { id } }' });
    await name1(first, 'Ann2');
    await c.dispose();
    // The server may not have seen the first socket's close yet: a socket refused with 1013 is tried again.
    const idle = await eventually(async () => {
      const s = rawSocket(url, 'graphql-transport-ws');
      clients.push({ dispose: () => s.ws.terminate() });
      const closed = await until(() => s.closed ?? undefined, 'the socket\'s close');
      return closed.code === 1013 ? undefined : closed;
    }, 10_000, 'a socket closed by the init timeout');
    expect(idle).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
  }, 120_000);

  it('kill -9: the client sees the close, reconnects to the restarted engine and is served; the old trigger is swept', async () => {
    const cwd = await tempDir();
    const port = String(await freePort());
    const flags = ['--data-dir', `${cwd}/data`, '--live-queries-refetch-interval', '0'];
    const first = await serve(cwd, [...flags, '--port', port]);
    await setup(first.url);
    const closes: number[] = [];
    const client = createClient({
      url: wsUrl(first.url), webSocketImpl: WebSocket, lazy: true, retryAttempts: 100, retryWait: () => new Promise((r) => setTimeout(r, 100)),
      shouldRetry: () => true, on: { closed: (ev) => { closes.push((ev as { code: number }).code); } },
    });
    clients.push(client);
    const r = new Received();
    client.subscribe({ query: 'subscription { article { title } }' }, { next: (v) => r.results.push(v), error: (e) => { r.error = e; }, complete: () => { r.done = true; } });
    await r.next(() => true, 'the first result');
    expect(await triggered(first.url)).toEqual(['article']);
    first.p.child.kill('SIGKILL');
    await finished(first.p);
    await until(() => (closes.length > 0 ? true : undefined), 'the close seen by the client');
    expect(closes[0]).toBe(1006);
    // `serve` adds --port 0 first; the later --port wins (commander keeps the last value).
    const second = await serve(cwd, [...flags, '--port', port]);
    expect(second.url).toBe(first.url);
    const seen = r.results.length;
    await until(() => (r.results.length > seen ? true : undefined), 'the result after reconnecting', 30_000);
    await ok(second.url, { type: 'run_sql', args: { sql: "INSERT INTO article (title) VALUES ('After')" } });
    await r.next((x) => x.data.article.length === 2, 'a commit on the restarted engine');
    expect(r.error).toBeUndefined();
    await client.dispose();
    await eventually(async () => ((await triggered(second.url)).length === 0 ? true : undefined), 10_000, 'no trigger left once the client left');
  }, 180_000);

  it('a restarted engine sweeps the trigger of a table the killed engine watched', async () => {
    const cwd = await tempDir();
    const flags = ['--data-dir', `${cwd}/data`, '--live-queries-refetch-interval', '0'];
    const first = await serve(cwd, flags);
    await setup(first.url);
    const r = modern(first.url).subscribe(AUTHOR_1);
    await name1(r, 'Ann');
    expect(await triggered(first.url)).toEqual(['author']);
    first.p.child.kill('SIGKILL');
    await finished(first.p);
    const second = await serve(cwd, flags);
    expect(await triggered(second.url)).toEqual(['author']);
    const s = modern(second.url).subscribe('subscription { article { title } }');
    await s.next(() => true, 'the first result');
    await eventually(async () => (JSON.stringify(await triggered(second.url)) === '["article"]' ? true : undefined), 10_000, 'author\'s trigger swept');
  }, 180_000);
});

describe.skipIf(!EXTERNAL_URL)('two engines on one PostgreSQL', () => {
  const count = async (c: pg.Client, table: string): Promise<number> => Number((await c.query(
    "SELECT count(*)::int AS n FROM pg_trigger t WHERE t.tgname = 'engine_live_query' AND t.tgrelid = to_regclass($1)", [table])).rows[0].n);

  it('a write through A reaches B; a table\'s trigger stays while either engine watches it, and goes with the last', async () => {
    const url = await externalDatabase('engine_e2e_subs');
    const flags = ['--database-url', url, '--live-queries-refetch-interval', '0'];
    const a = await serve(await tempDir(), flags);
    await setup(a.url);
    const b = await serve(await tempDir(), flags);
    const psql = new pg.Client({ connectionString: url });
    await psql.connect();
    clients.push({ dispose: () => psql.end() });

    const onB = modern(b.url);
    const rb = onB.subscribe(AUTHOR_1);
    await name1(rb, 'Ann');
    const m = await post(`${a.url}/v1/graphql`, { query: 'mutation { update_author_by_pk(pk_columns: {id: 1}, _set: {name: "FromA"}) { id } }' });
    expect(m.body).toEqual({ data: { update_author_by_pk: { id: 1 } } });
    await name1(rb, 'FromA');

    const onA = modern(a.url);
    const ra = onA.subscribe(AUTHOR_1);
    await name1(ra, 'FromA');
    // B's subscriber leaves: A still watches, so the trigger stays and an outside write still reaches A.
    await onB.dispose();
    // B is done leaving once its listening session's last statement is the exclusive lock it did not get (had it got
    // it, the drop and the unlock would follow).
    await eventually(async () => ((await psql.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle' AND query LIKE 'SELECT pg_try_advisory_lock(%'")).rowCount === 1 ? true : undefined), 10_000, 'B\'s leaving');
    expect(await count(psql, 'author')).toBe(1);
    await psql.query("UPDATE author SET name = 'Outside' WHERE id = 1");
    await name1(ra, 'Outside');
    expect(await count(psql, 'author')).toBe(1);
    await onA.dispose();
    await eventually(async () => ((await count(psql, 'author')) === 0 ? true : undefined), 10_000, 'the trigger dropped by the last engine');
  }, 180_000);

  it('kill -9 of one engine: the other still gets every commit, and drops the trigger when its own subscribers leave', async () => {
    const url = await externalDatabase('engine_e2e_subs_kill');
    const flags = ['--database-url', url, '--live-queries-refetch-interval', '0'];
    const a = await serve(await tempDir(), flags);
    await setup(a.url);
    const b = await serve(await tempDir(), flags);
    const psql = new pg.Client({ connectionString: url });
    await psql.connect();
    clients.push({ dispose: () => psql.end() });
    const ra = modern(a.url).subscribe(AUTHOR_1);
    await name1(ra, 'Ann');
    const onB = modern(b.url);
    const rb = onB.subscribe(AUTHOR_1);
    await name1(rb, 'Ann');
    a.p.child.kill('SIGKILL');
    await finished(a.p);
    await psql.query("UPDATE author SET name = 'AfterKill' WHERE id = 1");
    await name1(rb, 'AfterKill');
    expect(await count(psql, 'author')).toBe(1);
    // A's shared lock went with its connection: B, the last watcher, drops the trigger.
    await onB.dispose();
    await eventually(async () => ((await count(psql, 'author')) === 0 ? true : undefined), 10_000, 'the trigger dropped');
  }, 180_000);
});
