/**
 * End-to-end: the event processor of real `engine serve` processes (engine-api.md §5.3.2, issue 15): at-least-once
 * across `kill -9` with every event delivered within 10 s of the restart, graceful shutdown recording deliveries in
 * flight, and two engines on one PostgreSQL delivering 2,000 events exactly once and sharing the load.
 */
import { get as httpGet } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL } from '../helpers/engine.js';
import { PgliteDatabase } from '../../src/db/pglite.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';
import { tempDir } from './cli-helpers.js';
import { externalDatabase, finished, ok, serve, stopAll } from './process-helpers.js';

afterEach(stopAll);

async function setup(url: string, hook: Webhook, extra: Record<string, unknown> = {}): Promise<void> {
  await ok(url, { type: 'run_sql', args: { sql: 'create table item (id int primary key)' } });
  await ok(url, { type: 'track_table', args: 'item' });
  await ok(url, { type: 'create_event_trigger', args: { name: 'items', table: 'item', webhook: hook.url, insert: { columns: '*' }, ...extra } });
}

const counts = async (url: string): Promise<{ delivered: number; total: number; locked: number }> => {
  const r = await ok(url, { type: 'run_sql', args: { sql: `select count(*) filter (where delivered), count(*), count(*) filter (where locked is not null)
    from engine_catalog.event_log` } });
  const [d, t, l] = (r.result as string[][])[1] as string[];
  return { delivered: Number(d), total: Number(t), locked: Number(l) };
};

let hook: Webhook | undefined;
afterEach(async () => hook?.close());

const databases: [string, () => Promise<string[]>][] = [
  ['embedded', async () => ['--data-dir', `${await tempDir()}/data`]],
  ...(EXTERNAL_URL ? [['external', async () => ['--database-url', await externalDatabase()]] as [string, () => Promise<string[]>]] : []),
];

describe.each(databases)('engine serve (%s database)', (_, database) => {
  it('kill -9 with deliveries in flight: after a restart every event is delivered within 10 s', async () => {
    const cwd = await tempDir();
    const db = await database();
    const held: (() => void)[] = [];
    let answering = false;
    hook = await startWebhook((_r, res) => (answering ? void res.end() : void held.push(() => res.end())));
    const first = await serve(cwd, db);
    await setup(first.url, hook);
    await ok(first.url, { type: 'run_sql', args: { sql: 'insert into item select generate_series(1, 300)' } });
    await eventually(() => hook?.received.length === 80, 10_000, 'deliveries in flight');
    expect((await counts(first.url)).locked).toBe(80);
    first.p.child.kill('SIGKILL');
    await finished(first.p);
    answering = true;
    const second = await serve(cwd, db);
    const restarted = Date.now();
    await eventually(async () => (await counts(second.url)).delivered === 300, 10_000 - (Date.now() - restarted), 'every event delivered');
    const ids = new Set(hook.received.map((r) => r.body.id));
    expect(ids.size).toBe(300);
    expect(await counts(second.url)).toEqual({ delivered: 300, total: 300, locked: 0 });
    for (const h of held) h();
  });

  it('SIGTERM waits for deliveries in flight and records them', async () => {
    const cwd = await tempDir();
    const db = await database();
    const arrived: (() => void)[] = [];
    hook = await startWebhook((_r, res) => void arrived.push(() => res.end('late')));
    const first = await serve(cwd, db);
    await setup(first.url, hook);
    await ok(first.url, { type: 'run_sql', args: { sql: 'insert into item values (1)' } });
    await eventually(() => arrived.length === 1, 10_000, 'the delivery in flight');
    first.p.child.kill('SIGTERM');
    // Once the engine no longer accepts connections it is stopping, yet its delivery is still waited for.
    await eventually(() => newConnectionRefused(`${first.url}/healthz`), 10_000, 'the listener closed');
    arrived[0]?.();
    expect(await finished(first.p)).toBe(0);
    hook.handler = () => { throw new Error('delivered twice'); };
    const second = await serve(cwd, db);
    expect(await counts(second.url)).toEqual({ delivered: 1, total: 1, locked: 0 });
    expect(hook.received).toHaveLength(1);
  });
});


/**
 * Whether a new connection to the URL is refused. A fresh socket each time (no agent): a pooled keep-alive socket
 * opened before the stop could still be answered, which says nothing about the listener.
 */
function newConnectionRefused(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpGet(url, { agent: false }, (res) => {
      res.resume();
      resolve(false);
    });
    req.on('error', () => resolve(true));
    req.setTimeout(1000, () => {
      req.destroy();
      resolve(false);
    });
  });
}

describe('engine serve stopping with a webhook that never answers', () => {
  it('after 10 s the delivery is abandoned unrecorded and its lock released; the restart delivers it', async () => {
    const cwd = await tempDir();
    const db = ['--data-dir', `${cwd}/data`];
    let answering = false;
    hook = await startWebhook((_r, res) => (answering ? void res.end() : undefined));
    const first = await serve(cwd, db);
    await setup(first.url, hook);
    await ok(first.url, { type: 'run_sql', args: { sql: 'insert into item values (1)' } });
    await eventually(() => hook?.received.length === 1, 10_000, 'the delivery in flight');
    first.p.child.kill('SIGTERM');
    expect(await finished(first.p)).toBe(0);
    const stopped = await PgliteDatabase.open(`${cwd}/data`);
    const rows = await stopped.query('SELECT locked, locked_by, tries, delivered FROM engine_catalog.event_log');
    await stopped.close();
    expect(rows).toEqual([{ locked: null, locked_by: null, tries: 0, delivered: false }]);
    answering = true;
    const second = await serve(cwd, db, {});
    await eventually(async () => (await counts(second.url)).delivered === 1, 10_000, 'the delivery after the restart');
    // The abandoned attempt left no trace: one log, one try, the second attempt again at current_retry 0.
    const logs = await ok(second.url, { type: 'run_sql', args: { sql: `select (select count(*) from engine_catalog.event_invocation_logs),
      (select tries from engine_catalog.event_log)` } });
    expect(logs.result[1]).toEqual(['1', '1']);
    expect(hook.received.map((r) => r.body.delivery_info.current_retry)).toEqual([0, 0]);
  });
});

describe.skipIf(!EXTERNAL_URL)('two engines on one PostgreSQL', () => {
  it('2,000 events: each delivered exactly once, by both engines', async () => {
    const db = ['--database-url', await externalDatabase()];
    hook = await startWebhook((_r, res) => void res.end());
    const a = await serve(await tempDir(), db, { INSTANCE: 'a' });
    const b = await serve(await tempDir(), db, { INSTANCE: 'b' });
    await setup(a.url, hook, { headers: [{ name: 'x-instance', value_from_env: 'INSTANCE' }] });
    for (let i = 0; i < 4; i++) {
      await ok(i % 2 ? a.url : b.url, { type: 'run_sql', args: { sql: `insert into item select generate_series(${i * 500 + 1}, ${(i + 1) * 500})` } });
    }
    await eventually(async () => (await counts(a.url)).delivered === 2000, 30_000, '2,000 deliveries');
    const ids = hook.received.map((r) => r.body.id as string);
    expect(ids).toHaveLength(2000);
    expect(new Set(ids).size).toBe(2000);
    const by = (x: string) => hook?.received.filter((r) => r.headers['x-instance'] === x).length ?? 0;
    expect(by('a') + by('b')).toBe(2000);
    expect(by('a')).toBeGreaterThan(0);
    expect(by('b')).toBeGreaterThan(0);
  });
});
