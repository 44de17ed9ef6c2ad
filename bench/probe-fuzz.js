// `npm run probe` (issue 11): fuzzes a real `engine serve` (embedded database in a temporary directory, port 0)
// with ≥ 10,000 request bodies and counts the answers by status; then uploads an endless chunked body and measures
// how fast the 413 comes once the 50 MB limit is passed and that the server closes the connection.
// Exit 1 when any answer is a 500 or the upload probe fails. Progress to stderr, the summary to stdout.
// Options: --count N (10000), --seed S (1), --concurrency C (8), --database-url URL (external PostgreSQL instead).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { fuzzBody, SETUP_BODIES } from './fuzz-bodies.mjs';

const { values: opts } = parseArgs({
  options: {
    count: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '8' },
    'database-url': { type: 'string' },
  },
});
const COUNT = Number(opts.count);
const SEED = Number(opts.seed);
const CONCURRENCY = Number(opts.concurrency);
const LIMIT = 50 * 1024 * 1024;
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'engine.js');
const progress = (m) => process.stderr.write(`probe: ${m}\n`);

/** Starts `engine serve --port 0` and resolves with its URL once it listens. */
function serve(dir) {
  const db = opts['database-url'] ? ['--database-url', opts['database-url']] : ['--data-dir', join(dir, 'data')];
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...db], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1], stderr: () => err });
    });
    child.on('exit', (code) => reject(new Error(`engine serve exited with ${code}: ${err}`)));
  });
}

async function post(pool, body) {
  const { statusCode, body: rb } = await pool.request({ path: '/v1/query', method: 'POST', body, headers: { 'content-type': 'application/json' } });
  const text = await rb.text();
  return { status: statusCode, text };
}

async function fuzz(url) {
  const pool = new Pool(url, { connections: CONCURRENCY });
  const counts = new Map();
  const failures = [];
  const setup = async () => {
    for (const b of SETUP_BODIES) {
      const r = await post(pool, JSON.stringify(b));
      if (r.status !== 200) throw new Error(`setup failed: ${r.status} ${r.text}`);
    }
  };
  await setup();
  const t0 = Date.now();
  let next = 0;
  // Batches between resets to the starting point, so that fuzzed drops do not leave nothing to probe.
  const BATCH = 250;
  while (next < COUNT) {
    const end = Math.min(next + BATCH, COUNT);
    const worker = async () => {
      while (next < end) {
        const seed = SEED + next++;
        const body = fuzzBody(seed);
        const r = await post(pool, body);
        counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
        if (r.status >= 500) failures.push({ seed, body: String(body).slice(0, 300), answer: r.text });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await setup();
    if (end % 2000 === 0 || end === COUNT) progress(`${end} bodies, ${failures.length} × 5xx`);
  }
  await pool.close();
  return { counts, failures, seconds: (Date.now() - t0) / 1000 };
}

/**
 * An endless chunked upload over a raw socket: writes 64 KiB chunks as fast as the socket takes them until the
 * answer arrives and the server closes. Sender-side times: when the bytes written passed the limit, when the answer
 * came, when the connection closed.
 */
function endlessUpload(url, headers = 'Transfer-Encoding: chunked') {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunk = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 0x20), Buffer.from('\r\n')]);
    let sent = 0;
    let tLimit = null;
    let tAnswer = null;
    let sentAtAnswer = null;
    let answer = '';
    let stopped = false;
    const t0 = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
    const pump = () => {
      while (!stopped) {
        sent += chunk.length;
        if (tLimit === null && sent > LIMIT) tLimit = ms();
        if (!socket.write(chunk)) return socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(`POST /v1/query HTTP/1.1\r\nHost: ${hostname}\r\n${headers}\r\nContent-Type: application/json\r\n\r\n`);
      if (headers.startsWith('Transfer-Encoding')) pump();
    });
    socket.setEncoding('latin1').on('data', (d) => {
      if (tAnswer === null) {
        tAnswer = ms();
        sentAtAnswer = sent;
      }
      answer += d;
    });
    const done = (how) => {
      stopped = true;
      socket.destroy();
      resolve({ how, sent, sentAtAnswer, tLimit, tAnswer, tClosed: ms(), status: Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 0), answer });
    };
    socket.on('end', () => done('closed by the server (FIN)'));
    socket.on('error', (e) => done(`closed by the server (${e.code})`));
    setTimeout(() => done('still open after 30 s'), 30_000).unref();
  });
}

const MB = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;

const dir = mkdtempSync(join(tmpdir(), 'engine-probe-'));
let server;
let failed = false;
try {
  server = await serve(dir);
  progress(`engine at ${server.url}; ${COUNT} bodies from seed ${SEED}, ${CONCURRENCY} at a time`);
  const f = await fuzz(server.url);
  const byStatus = [...f.counts].sort(([a], [b]) => a - b).map(([s, n]) => `${s} × ${n}`).join(', ');
  const fives = f.failures.length;
  console.log(`fuzzed bodies: ${COUNT} in ${f.seconds.toFixed(1)} s (seed ${SEED}) → ${byStatus}; ${fives} × 5xx`);
  for (const x of f.failures.slice(0, 10)) console.log(`  5xx: seed ${x.seed}: ${x.body} → ${x.answer}`);
  if (fives > 0) failed = true;

  const up = await endlessUpload(server.url);
  const after = up.tLimit === null || up.tAnswer === null ? 'n/a' : `${(up.tAnswer - up.tLimit).toFixed(0)} ms`;
  console.log(`endless chunked upload → ${up.status} after ${MB(up.sentAtAnswer ?? up.sent)} sent (limit ${MB(LIMIT)}), ` +
    `${after} after the sender passed the limit; ${up.how} ${(up.tClosed - (up.tAnswer ?? 0)).toFixed(0)} ms after the answer; ${MB(up.sent)} sent in all`);
  if (up.status !== 413 || !up.how.startsWith('closed') || up.tAnswer === null || up.tLimit === null || up.tAnswer - up.tLimit > 1000) failed = true;

  const declared = await endlessUpload(server.url, `Content-Length: ${LIMIT + 1}`);
  console.log(`Content-Length ${LIMIT + 1} (no body sent) → ${declared.status} after ${declared.tAnswer?.toFixed(0)} ms; ${declared.how}`);
  if (declared.status !== 413 || !declared.how.startsWith('closed')) failed = true;

  const stacks = server.stderr().split('\n').filter((l) => l.includes('request failed')).slice(0, 5);
  if (stacks.length) console.log(`server errors:\n${stacks.join('\n')}`);
} catch (e) {
  progress(`FAILED: ${e instanceof Error ? e.stack : String(e)}`);
  failed = true;
} finally {
  server?.child.kill('SIGTERM');
  if (server) await new Promise((r) => server.child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
console.log(failed ? 'probe: FAILED' : 'probe: OK');
process.exitCode = failed ? 1 : 0;
