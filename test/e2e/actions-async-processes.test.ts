/**
 * End-to-end: the asynchronous action worker of real `engine serve` processes (engine-api.md §5.2.4, issue 16): a
 * call left `processing` by an engine killed with `kill -9` is made again (after a restart on the embedded database;
 * by the other engine, without a restart, on a shared PostgreSQL), while a slow call of a live engine is left alone.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';
import { tempDir } from './cli-helpers.js';
import { externalDatabase, finished, ok, serve, stopAll } from './process-helpers.js';

afterEach(stopAll);

async function setup(url: string, hook: Webhook): Promise<void> {
  await ok(url, { type: 'bulk', args: [
    { type: 'set_custom_types', args: { objects: [{ name: 'Report', fields: [{ name: 'url', type: 'String!' }] }] } },
    { type: 'create_action', args: { name: 'report', definition: { kind: 'asynchronous', handler: `${hook.url}/report`, output_type: 'Report', arguments: [{ name: 'n', type: 'Int!' }] } } },
  ] });
}

async function call(url: string, n: number): Promise<string> {
  const r = await post(`${url}/v1/graphql`, { query: `mutation { report(n: ${n}) }` });
  const id = r.body?.data?.report;
  if (typeof id !== 'string') throw new Error(`no id: ${r.text}`);
  return id;
}

async function result(url: string, id: string): Promise<unknown> {
  const r = await post(`${url}/v1/graphql`, { query: `{ report(id: "${id}") { output { url } errors } }` });
  return r.body?.data?.report;
}

let hook: Webhook | undefined;
const held: ServerResponse[] = [];
afterEach(async () => {
  for (const res of held.splice(0)) res.end();
  await hook?.close();
});

/** A handler that holds the calls of `n` = 0 (a slow one) and answers the others at once. */
async function handler(): Promise<{ hook: Webhook; release: () => void }> {
  let holding = true;
  hook = await startWebhook((r, res) => {
    if (holding && r.body.input.n === 0) {
      held.push(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ url: `u${r.body.input.n as number}` }));
  });
  return { hook, release: () => (holding = false) };
}

const callsOf = (h: Webhook, n: number): number => h.received.filter((r) => r.body.input.n === n).length;

describe('engine serve (embedded database)', () => {
  it('kill -9 during a call: after a restart the call is made again and completes', async () => {
    const cwd = await tempDir();
    const db = ['--data-dir', `${cwd}/data`];
    const { hook: h, release } = await handler();
    const first = await serve(cwd, db);
    await setup(first.url, h);
    const id = await call(first.url, 0);
    await eventually(() => callsOf(h, 0) === 1, 10_000, 'the call in flight');
    first.p.child.kill('SIGKILL');
    await finished(first.p);
    release();
    const second = await serve(cwd, db);
    await eventually(async () => ((await result(second.url, id)) as { output?: unknown } | null)?.output ?? undefined, 10_000, 'the call completed');
    expect(await result(second.url, id)).toEqual({ output: { url: 'u0' }, errors: null });
    expect(callsOf(h, 0)).toBe(2);
  }, 180_000);
});

describe.skipIf(!EXTERNAL_URL)('two engines on one PostgreSQL', () => {
  it('a slow call of a live engine stays with it; once that engine is killed, the other makes the call', async () => {
    const database = ['--database-url', await externalDatabase('engine_e2e_async')];
    const { hook: h, release } = await handler();
    const a = await serve(await tempDir(), database);
    await setup(a.url, h);
    const slow = await call(a.url, 0);
    await eventually(() => callsOf(h, 0) === 1, 10_000, 'the slow call in flight');
    const b = await serve(await tempDir(), database);
    // Both engines claim at each commit (oldest first): had the slow call's row been free, one of them would take it.
    const later = [];
    for (let n = 1; n <= 5; n++) later.push(await call(b.url, n));
    for (const id of later) await eventually(async () => ((await result(b.url, id)) as { output?: unknown } | null)?.output ?? undefined, 10_000, 'a later call');
    expect(callsOf(h, 0)).toBe(1);
    release();
    a.p.child.kill('SIGKILL');
    await finished(a.p);
    // No restart: the killed engine's connection, and with it its instance lock, is gone; b's poll takes the row.
    await eventually(async () => ((await result(b.url, slow)) as { output?: unknown } | null)?.output ?? undefined, 10_000, 'the slow call made again');
    expect(await result(b.url, slow)).toEqual({ output: { url: 'u0' }, errors: null });
    expect(callsOf(h, 0)).toBe(2);
  }, 180_000);
});
