// Issue 16, on `engine serve` in its own process (PGlite on a data directory; the external PostgreSQL): a synchronous
// action's round trip through the engine against a local handler that answers at once. The
// figure is the p50 overhead of the engine over calling the handler directly with the same client (goal ≤ 1 ms), and,
// for information, requests/s through the engine at concurrency 16. The handler is a node:http server on 127.0.0.1.
// Asynchronous: from sending the mutation to `engine serve` (its own process) to the handler receiving the call, p50:
// an upper bound of commit → call (goal ≤ 50 ms); the worker is woken by NOTIFY at commit.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { compareRow, count, goalRow, p50, progress, rateRow, time } from './lib.mjs';
import { SECRET, startEngineProcess } from './engine-process.mjs';

const ADMIN = { 'x-engine-admin-secret': SECRET };

const GROUP = 'actions';
export const SIZES = { full: { runs: 2000, concurrent: 8000, asyncRuns: 200 }, quick: { runs: 200, concurrent: 800, asyncRuns: 40 } };

async function startHandler() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":1}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${server.address().port}/create_user`, close: () => new Promise((r) => server.close(() => r())) };
}

async function post(url, body, headers = {}) {
  const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.body.text();
  if (res.statusCode !== 200 || text.startsWith('{"errors"')) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
  return text;
}

async function measure(kind, runs, concurrent) {
  progress(`${GROUP}: ${kind}, ${count(runs)} sequential calls, ${count(concurrent)} at concurrency 16`);
  const handler = await startHandler();
  const e = await startEngineProcess(kind);
  try {
    await e.query({ type: 'set_custom_types', args: { objects: [{ name: 'UserId', fields: [{ name: 'id', type: 'Int!' }] }] } });
    await e.query({ type: 'create_action', args: { name: 'create_user', definition: { handler: handler.url, output_type: 'UserId', arguments: [{ name: 'email', type: 'String!' }] } } });
    const gqlUrl = `${e.baseUrl}/v1/graphql`;
    const query = JSON.stringify({ query: 'mutation { create_user(email: "a@b.c") { id } }' });
    const direct = JSON.stringify({ action: { name: 'create_user' }, input: { email: 'a@b.c' }, session_variables: { 'x-engine-role': 'admin' }, request_query: 'mutation { create_user(email: "a@b.c") { id } }' });
    for (let i = 0; i < 200; i++) {
      await post(gqlUrl, query, ADMIN);
      await post(handler.url, direct);
    }
    const viaEngine = [];
    const viaHandler = [];
    // Interleaved, so that both see the same machine load.
    for (let i = 0; i < runs; i++) {
      viaHandler.push(await time(() => post(handler.url, direct)));
      viaEngine.push(await time(() => post(gqlUrl, query, ADMIN)));
    }
    let next = 0;
    const t0 = process.hrtime.bigint();
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next++ < concurrent) await post(gqlUrl, query, ADMIN);
    }));
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    return { engine: p50(viaEngine), direct: p50(viaHandler), rate: concurrent / seconds };
  } finally {
    await e.close();
    await handler.close();
  }
}

/**
 * Commit → handler call of an asynchronous action, on `engine serve` in its own process (PGlite on a data directory, as
 * users run it) with its own action worker: the commit happens inside that process, so the figure is timed from
 * sending the mutation to the handler receiving the call, which bounds commit → call from above. Each mutation is
 * sent once the previous call arrived.
 */
export async function measureAsync(kind, runs) {
  progress(`${GROUP}: ${kind}, ${count(runs)} asynchronous calls, mutation sent → handler call (engine serve process)`);
  let arrived = () => {};
  const server = createServer((req, res) => {
    arrived(performance.now());
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"url":"u"}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r()));
  const e = await startEngineProcess(kind);
  try {
    await e.query({ type: 'set_custom_types', args: { objects: [{ name: 'Report', fields: [{ name: 'url', type: 'String!' }] }] } });
    await e.query({ type: 'create_action', args: { name: 'report', definition: { kind: 'asynchronous', handler: `http://127.0.0.1:${server.address().port}/report`, output_type: 'Report', arguments: [{ name: 'n', type: 'Int!' }] } } });
    const ms = [];
    for (let i = 0; i < runs + 20; i++) {
      const called = new Promise((r) => (arrived = r));
      const t0 = performance.now();
      await e.graphql({ query: 'mutation M($n: Int!) { report(n: $n) }', variables: { n: i } });
      const t = await called;
      if (i >= 20) ms.push(t - t0);
    }
    return p50(ms);
  } finally {
    await e.close();
    await new Promise((r) => server.close(() => r()));
  }
}

/** Adds its rows through `add`; `kinds` are the databases to run on ('pglite', 'postgres'). */
export async function run({ quick = false, kinds = ['pglite', 'postgres'], add }) {
  const { runs, concurrent, asyncRuns } = quick ? SIZES.quick : SIZES.full;
  for (const kind of kinds) {
    const m = await measure(kind, runs, concurrent);
    const overhead = m.engine - m.direct;
    add(compareRow(GROUP, 'sync action round trip p50: through the engine vs the handler directly (overhead ≤ 1 ms)', kind, m.engine, m.direct, 'overhead ≤ 1 ms', overhead <= 1));
    add({ ...rateRow(GROUP, 'sync action requests/s through the engine, concurrency 16', kind, m.rate, 1), goal: 'information', ratio: null, pass: null });
    add(goalRow(GROUP, 'async action: mutation sent → handler call (bounds commit → call), p50, engine serve process', kind, await measureAsync(kind, asyncRuns), 50));
  }
}
