// "The plan-cache hit path spends ≤ 0.3 ms p50 in the engine outside PostgreSQL" (issue 13). Measured one request at a
// time (at concurrency 16 on a small machine the latency is mostly queueing for the CPU, not work), on an engine in this
// process over the peer database, whose Database is wrapped to time every transaction and statement:
//   inside  = from the HTTP server's 'request' event to the response's 'finish', minus the time spent in the
//             database calls (pool checkout, round trips and the driver's parsing of the rows count as PostgreSQL).
// Cross-check from outside, interleaved so that all three see the same load: the p50 HTTP round trip of the engine,
// minus the p50 of the same statements sent directly by one pipelining `pg` client as the engine sends them (BEGIN + SET …
// + the resource-version check, the named SELECT and COMMIT in one round trip), minus the p50 round trip of a bare node:http server answering the same bytes (the client's
// and the loopback's share). On a loaded machine it is noisier than the server-side figure (every wake-up waits for a
// core).
import { createServer } from 'node:http';
import pg from 'pg';
import { request } from 'undici';
import { PostgresDatabase } from '../../dist/db/postgres.js';
import { beginTransaction } from '../../dist/db/database.js';
import { Engine } from '../../dist/server/engine.js';
import { createHttpServer, listen } from '../../dist/server/http/index.js';
import { silentLogger } from '../../dist/logger.js';
import { p50, progress } from '../lib.mjs';

const PROBE = 4321;
const now = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * The database, timed: `spent` accumulates ms inside it; `log` records what a request sent (statements outside a
 * transaction, and transactions with their options and statements), to be replayed directly.
 */
function timedDatabase(inner) {
  const t = { spent: 0, log: [] };
  const timed = async (fn) => {
    const t0 = now();
    try {
      return await fn();
    } finally {
      t.spent += now() - t0;
    }
  };
  const logged = (q, into) => ({
    query: (sql, params, opts) => {
      into.push({ sql, params: params ?? [], name: opts?.name });
      return q.query(sql, params, opts);
    },
    runScript: (sql) => q.runScript(sql),
  });
  t.db = {
    kind: inner.kind,
    query: (sql, params, opts) => timed(() => logged(inner, t.log).query(sql, params, opts)),
    runScript: (sql) => timed(() => inner.runScript(sql)),
    transaction: (fn, opts) => {
      const tx = { opts: opts ?? {}, statements: [] };
      t.log.push(tx);
      return timed(() => inner.transaction((q) => fn(logged(q, tx.statements)), opts));
    },
    batch: (statements, opts) => {
      t.log.push({ batch: true, opts, statements: statements.map((st) => ({ sql: st.sql, params: st.params, name: st.name })) });
      return timed(() => inner.batch(statements, opts));
    },
    openSession: () => inner.openSession(),
    close: () => inner.close(),
  };
  return t;
}

/** A replay of `log` by a pg client, the parameter equal to `probe` replaced by the id given. */
function replayer(client, log, probe) {
  let found = 0;
  const bind = (st) => {
    const at = st.params.findIndex((v) => String(v) === String(probe));
    if (at >= 0) found++;
    return (i) => ({ text: st.sql, name: st.name, values: st.params.map((v, k) => (k === at ? (typeof v === 'string' ? String(i) : i) : v)) });
  };
  const steps = log.map((e) => (e.statements
    ? { batch: e.batch === true, commitWith: e.batch === true && e.opts.readOnlySnapshot === true, begin: beginTransaction(e.opts, null), statements: e.statements.map(bind) }
    : { statement: bind(e) }));
  if (found !== 1) throw new Error(`overhead: the probe id is not exactly one parameter of the request's statements: ${JSON.stringify(log)}`);
  return async (i) => {
    for (const s of steps) {
      if (s.statement) {
        await client.query(s.statement(i));
        continue;
      }
      if (s.batch) {
        // As the engine's Database.batch sends it: everything pipelined, a read-only snapshot's COMMIT with it.
        const sent = [client.query(s.begin), ...s.statements.map((st) => client.query(st(i)))];
        if (s.commitWith) sent.push(client.query('COMMIT'));
        await Promise.all(sent);
        if (!s.commitWith) await client.query('COMMIT');
        continue;
      }
      await client.query(s.begin);
      for (const st of s.statements) await client.query(st(i));
      await client.query('COMMIT');
    }
  };
}

async function post(url, body, headers) {
  const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.body.text();
  if (res.statusCode !== 200 || text.includes('"errors"')) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
  return text;
}

/** `q` is the by-pk query of the peer benchmark (body(i), headers(i)); `runs` sequential requests of each kind. */
export async function measureOverhead(databaseUrl, q, runs) {
  progress(`peer: plan-cache hit path, ${runs} sequential requests of each kind`);
  const t = timedDatabase(await PostgresDatabase.connect(databaseUrl));
  const engine = await Engine.start(t.db, silentLogger);
  const server = createHttpServer(engine, { logger: silentLogger });
  const inside = [];
  const inDb = [];
  let measuring = false;
  server.prependListener('request', (_req, res) => {
    const t0 = now();
    t.spent = 0;
    res.once('finish', () => {
      if (!measuring) return;
      inside.push(now() - t0 - t.spent);
      inDb.push(t.spent);
    });
  });
  const addr = await listen(server, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${addr.port}/v1/graphql`;
  let answer = '';
  const bare = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
  });
  await new Promise((r) => bare.listen(0, '127.0.0.1', () => r()));
  const bareUrl = `http://127.0.0.1:${bare.address().port}/v1/graphql`;
  const direct = new pg.Client({ connectionString: databaseUrl, pipeline: true });
  await direct.connect();
  // The engine's pooled connections keep the zone GraphQL answers in (src/db/postgres.ts): set once, as there.
  await direct.query("SET TIME ZONE 'UTC'");
  try {
    const ids = Array.from({ length: runs }, (_, k) => 1 + ((k * 7919) % 10_000));
    const send = (i) => post(url, JSON.stringify(q.body(i)), q.headers?.(i) ?? {});
    // Warm: the plan cache, the prepared statements on every pooled connection, the JIT of both servers.
    for (let k = 0; k < 300; k++) answer = await send(ids[k % runs]);
    // The statements of one probe request, then replayed with each request's id.
    t.log = [];
    await send(PROBE);
    const replay = replayer(direct, t.log, PROBE);
    for (let k = 0; k < 100; k++) {
      await replay(ids[k % runs]);
      await post(bareUrl, '{}', {});
    }
    const rtt = [];
    const sql = [];
    const http = [];
    measuring = true;
    for (let k = 0; k < runs; k++) {
      const i = ids[k];
      const t0 = now();
      await send(i);
      const t1 = now();
      await replay(i);
      const t2 = now();
      await post(bareUrl, JSON.stringify(q.body(i)), q.headers?.(i) ?? {});
      rtt.push(t1 - t0);
      sql.push(t2 - t1);
      http.push(now() - t2);
    }
    measuring = false;
    return { inside: p50(inside), inDb: p50(inDb), rtt: p50(rtt), sql: p50(sql), http: p50(http), outside: p50(rtt) - p50(sql) - p50(http) };
  } finally {
    await direct.end();
    await new Promise((r) => bare.close(() => r()));
    await new Promise((r) => server.close(() => r()));
    server.closeAllConnections();
    await t.db.close();
  }
}
