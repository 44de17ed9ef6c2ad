// Issue 31 (benchmarks): the cost of observability on the peer benchmark's queries, in one run. Four `engine serve`
// of this build side by side on the same database, differing only in their environment:
//   off       no http-log (ENGINE_GRAPHQL_ENABLED_LOG_TYPES=startup), no metrics, no traces
//   metrics   ENGINE_GRAPHQL_METRICS_SECRET set (GET /v1/metrics scraped once per round, as Prometheus would)
//   logs+m    metrics, and the default log types in JSON (http-log: one line per request, written to /dev/null)
//   traces    OTEL_EXPORTER_OTLP_ENDPOINT: every request's spans exported to a receiver in this process
// Rounds are interleaved (the order of the sides rotating) so that the machine's drift falls on all alike; medians.
// Besides requests/s, the engine process's CPU time per request (/proc/<pid>/stat, all threads): on a loaded machine
// throughput follows the neighbours, CPU per request much less.
//   node bench/observability.mjs          BENCH_ROUNDS=3 BENCH_SECONDS=5 BENCH_CONNECTIONS=16 BENCH_SIDES=off,metrics,logs+m,traces
//   (after npm run build)
// Needs the external PostgreSQL (ENGINE_TEST_DATABASE_URL or the default). Markdown on stdout, progress on stderr.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { count, median, progress } from './lib.mjs';
import { applyMetadata, createDatabase, dropDatabase } from './peer/data.mjs';
import { load, sampleError } from './peer/load.mjs';
import { startEngine, THIS_CHECKOUT } from './peer/servers.mjs';
import { QUERIES } from './peer-postgraphile.mjs';

const num = (name, dflt) => (process.env[name] ? Number(process.env[name]) : dflt);
const ROUNDS = num('BENCH_ROUNDS', 3);
const SECONDS = num('BENCH_SECONDS', 5);
const CONNECTIONS = num('BENCH_CONNECTIONS', 16);
const SECRET = 'bench-metrics-secret';
/** A database of its own: the peer benchmark's (bench_peer) may be in use by another run. */
const DB = 'bench_observability';

/** An OTLP/HTTP receiver that reads and counts what it is sent, as a collector would before its own work. */
async function sink() {
  const got = { posts: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (c) => { got.bytes += c.length; });
    req.on('end', () => {
      got.posts++;
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, got, close: () => new Promise((r) => server.close(r)) };
}

/** CPU time (user + system, every thread) of a process so far, in ms; Linux only. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command (which may hold spaces): utime and stime are the 14th and 15th, in clock ticks (100/s).
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

async function main() {
  const loadStart = loadavg()[0];
  const receiver = await sink();
  progress('observability: creating the peer database');
  const db = await createDatabase(DB);
  const quiet = { ENGINE_GRAPHQL_ENABLED_LOG_TYPES: 'startup' };
  const variants = [
    ['off', quiet],
    ['metrics', { ...quiet, ENGINE_GRAPHQL_METRICS_SECRET: SECRET }],
    ['logs+m', { ENGINE_GRAPHQL_LOG_FORMAT: 'json', ENGINE_GRAPHQL_METRICS_SECRET: SECRET }],
    ['traces', { ...quiet, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '1000' }],
    // Only when asked for: a second `off` (how far two identical engines differ in one run); JSON lines without
    // metrics (`logs`) and the JSON format with no http-log (`json-quiet`), to tell the line's cost from the format's.
    ['off2', quiet],
    ['logs', { ENGINE_GRAPHQL_LOG_FORMAT: 'json' }],
    ['json-quiet', { ...quiet, ENGINE_GRAPHQL_LOG_FORMAT: 'json' }],
  ];
  // BENCH_SIDES=off,metrics,logs+m: some of the sides only (more rounds in the same time).
  const only = process.env.BENCH_SIDES?.split(',');
  const chosen = variants.filter(([l]) => (only ? only.includes(l) : !['off2', 'logs', 'json-quiet'].includes(l)));
  // BENCH_RESTART=1: new engine processes every round. Two identical engines differed by 7–14 % in one run (the
  // off2 side): a process's own luck (code layout, JIT, which core) lasts its life, so only new processes average it out.
  const RESTART = process.env.BENCH_RESTART === '1';
  let sides = [];
  const startAll = async () => {
    sides = [];
    for (const [label, env] of chosen) sides.push({ label, ...(await startEngine(THIS_CHECKOUT, db, env)) });
    // The others read the metadata the first stored (applied once: later rounds find it stored).
    for (const s of sides) await fetch(`${s.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"reload_metadata","args":{}}' });
    for (const s of sides) {
      for (const q of QUERIES) {
        const e = await sampleError(`${s.url}/v1/graphql`, q.engine);
        if (e) throw new Error(`${s.label}: ${q.label}: ${e}`);
      }
    }
  };
  const stopAll = async () => {
    for (const s of sides) await s.stop();
    sides = [];
  };
  try {
    const first = await startEngine(THIS_CHECKOUT, db, quiet);
    await applyMetadata(first.url);
    await first.stop();
    await startAll();
    const rps = Object.fromEntries(sides.map((s) => [s.label, {}]));
    const cpu = Object.fromEntries(sides.map((s) => [s.label, {}]));
    for (let round = 0; round < ROUNDS; round++) {
      if (RESTART && round > 0) {
        await stopAll();
        await startAll();
      }
      for (const q of QUERIES) {
        // Each query's sides in a rotating order: no side is always first after the previous query's load.
        const shift = (round + QUERIES.indexOf(q)) % sides.length;
        for (const s of [...sides.slice(shift), ...sides.slice(0, shift)]) {
          progress(`observability: round ${round + 1}/${ROUNDS} ${q.key} ${s.label}`);
          // Warm-up apart, so that the CPU time read covers the measured requests only.
          await load(`${s.url}/v1/graphql`, q.engine, { seconds: 1, warmup: 0, connections: CONNECTIONS });
          const before = cpuMs(s.pid);
          const m = await load(`${s.url}/v1/graphql`, q.engine, { seconds: SECONDS, warmup: 0, connections: CONNECTIONS });
          (cpu[s.label][q.key] ??= []).push(((cpuMs(s.pid) - before) * 1000) / m.total);
          if (m.failed > m.total / 100) throw new Error(`${s.label}: ${q.label}: ${m.failed} of ${m.total} requests failed`);
          (rps[s.label][q.key] ??= []).push(m.rps);
        }
      }
      for (const s of sides.filter((x) => x.label === 'metrics' || x.label === 'logs+m')) {
        const r = await fetch(`${s.url}/v1/metrics`, { headers: { authorization: `Bearer ${SECRET}` } });
        if (r.status !== 200) throw new Error(`${s.label}: GET /v1/metrics answered ${r.status}`);
        await r.text();
      }
    }
    const labels = sides.map((s) => s.label);
    const cell = (label, key) => {
      const xs = rps[label][key];
      const m = median(xs);
      const base = median(rps.off[key]);
      return `${count(Math.round(m))} (${count(Math.round(Math.min(...xs)))}–${count(Math.round(Math.max(...xs)))})${label === 'off' ? '' : ` **${(m / base).toFixed(3)}×**`}`;
    };
    console.log([
      '## Observability cost on the peer queries (issue 31)',
      '',
      `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; external PostgreSQL; ${cpus().length} cores; ${ROUNDS} interleaved rounds${RESTART ? " (new engine processes each round)" : ""} of ${SECONDS} s per query and side ` +
        `at ${CONNECTIONS} connections (after 1 s warm-up each); load average ${loadStart.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end. ` +
        `Traces: ${count(receiver.got.posts)} exports, ${count(receiver.got.bytes)} bytes received.`,
      '',
      `| query | ${labels.map((l) => `${l} req/s median (min–max)${l === 'off' ? '' : ', ÷ off'}`).join(' | ')} |`,
      `|---|${labels.map(() => '---:').join('|')}|`,
      ...QUERIES.map((q) => `| ${q.label} | ${labels.map((l) => cell(l, q.key)).join(' | ')} |`),
      '',
      `| query | ${labels.map((l) => `${l}: engine CPU µs/request, median${l === 'off' ? '' : ', ÷ off'}`).join(' | ')} |`,
      `|---|${labels.map(() => '---:').join('|')}|`,
      ...QUERIES.map((q) => `| ${q.label} | ${labels.map((l) => {
        const m = median(cpu[l][q.key]);
        return `${Math.round(m)}${l === 'off' ? '' : ` **${(m / median(cpu.off[q.key])).toFixed(3)}×**`}`;
      }).join(' | ')} |`),
    ].join('\n'));
  } finally {
    for (const s of sides) await s.stop();
    await dropDatabase(DB);
    await receiver.close();
  }
}

await main();
