// Issue 32: commit → subscriber latency of live queries and of a streaming subscription (32.4), the engine in its own process (`engine serve`), the fallback
// refetch off (--live-queries-refetch-interval 0), so every update is pushed by a commit's notification.
// Usage: node bench/subscriptions.mjs [pglite|postgres] [writes]   (postgres: ENGINE_BENCH_DATABASE_URL or the local test server)
// Writes through the engine (a GraphQL mutation) and outside it (PostgreSQL: a separate pg connection; PGlite: run_sql,
// the only other way in), one at a time: the time from sending the write to the subscriber receiving the new value.
import WebSocket from 'ws';
import pg from 'pg';
import { createClient } from 'graphql-ws';
import { SECRET, startEngineProcess } from './engine-process.mjs';

const kind = process.argv[2] === 'postgres' ? 'postgres' : 'pglite';
const writes = Number(process.argv[3] ?? 200);
const e = await startEngineProcess(kind, { args: ['--live-queries-refetch-interval', '0'] });
try {
  await e.query({ type: 'run_sql', args: { sql: 'CREATE TABLE bench_live (id int PRIMARY KEY, v int NOT NULL); INSERT INTO bench_live VALUES (1, 0);' } });
  await e.query({ type: 'track_table', args: 'bench_live' });
  const client = createClient({ url: `${e.baseUrl.replace(/^http/, 'ws')}/v1/graphql`, webSocketImpl: WebSocket, connectionParams: { headers: { 'x-engine-admin-secret': SECRET } }, retryAttempts: 0 });
  let waiting = null;
  let latest = -1;
  client.subscribe({ query: 'subscription { bench_live_by_pk(id: 1) { v } }' }, {
    next: (r) => {
      latest = r.data.bench_live_by_pk.v;
      if (waiting && latest === waiting.v) { waiting.resolve(); waiting = null; }
    },
    error: (err) => { console.error(err); process.exitCode = 1; },
    complete: () => {},
  });
  const arrived = (v) => new Promise((resolve) => { if (latest === v) resolve(); else waiting = { v, resolve }; });
  await arrived(0);
  const outside = e.databaseUrl ? new pg.Client({ connectionString: e.databaseUrl }) : null;
  await outside?.connect();
  let v = 0;
  const measure = async (label, write) => {
    const ms = [];
    for (let i = 0; i < writes; i++) {
      v++;
      const t0 = process.hrtime.bigint();
      const got = arrived(v);
      await write(v);
      await got;
      ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    ms.sort((a, b) => a - b);
    const at = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))].toFixed(1);
    console.log(`${kind} ${label}: ${writes} writes, commit → subscriber p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${ms[ms.length - 1].toFixed(1)} ms`);
  };
  await measure('mutation through the engine', (n) => e.graphql({ query: `mutation { update_bench_live_by_pk(pk_columns: {id: 1}, _set: {v: ${n}}) { v } }` }));
  await measure(outside ? 'outside write (pg connection)' : 'outside write (run_sql)', (n) => (outside
    ? outside.query('UPDATE bench_live SET v = $1 WHERE id = 1', [n])
    : e.query({ type: 'run_sql', args: { sql: `UPDATE bench_live SET v = ${n} WHERE id = 1` } })));
  // A stream: each insert's row arrives as the next batch.
  await e.query({ type: 'run_sql', args: { sql: 'CREATE TABLE bench_stream (id serial PRIMARY KEY, v int NOT NULL);' } });
  await e.query({ type: 'track_table', args: 'bench_stream' });
  let streamed = 0;
  let streamWaiting = null;
  client.subscribe({ query: 'subscription { bench_stream_stream(batch_size: 100, cursor: {initial_value: {id: 0}}) { id v } }' }, {
    next: (r) => {
      for (const row of r.data.bench_stream_stream) streamed = Math.max(streamed, row.v);
      if (streamWaiting && streamed >= streamWaiting.v) { streamWaiting.resolve(); streamWaiting = null; }
    },
    error: (err) => { console.error(err); process.exitCode = 1; },
    complete: () => {},
  });
  const streamArrived = (n) => new Promise((resolve) => { if (streamed >= n) resolve(); else streamWaiting = { v: n, resolve }; });
  const ms = [];
  for (let i = 1; i <= writes; i++) {
    const t0 = process.hrtime.bigint();
    const got = streamArrived(i);
    await e.graphql({ query: `mutation { insert_bench_stream_one(object: {v: ${i}}) { id } }` });
    await got;
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const at = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))].toFixed(1);
  console.log(`${kind} stream (insert through the engine): ${writes} inserts, commit → subscriber p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${ms[ms.length - 1].toFixed(1)} ms`);
  await outside?.end();
  await client.dispose();
} finally {
  await e.close();
}
