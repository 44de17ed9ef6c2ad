// `npm run bench`: every benchmark of the milestone in one run, then one table of every figure with its goal and ratio
// (to stdout, markdown, to paste into an issue note) and a one-line summary. Progress goes to stderr.
// `npm run bench -- --quick` (or BENCH_QUICK=1): smaller sizes and fewer runs, a smoke check.
// Exit code 0 even when figures are over their goals (benchmarks are not tests); 1 when a benchmark failed to run.
import { cpus, loadavg } from 'node:os';
import { count, DATABASE_LABELS, externalDatabase, progress, QUICK, table } from './lib.mjs';
import * as replaceExport from './replace-export.mjs';
import * as singleChange from './single-change.mjs';
import * as project from './project.mjs';
import * as events from './events.mjs';
import * as graphqlBench from './graphql.mjs';
import * as memory from './memory.mjs';
import * as graphqlMemory from './graphql-memory.mjs';
import * as serveStartup from './serve-startup.mjs';
import * as actions from './actions.mjs';
import * as mutations from './mutations.mjs';
import * as peer from './peer-postgraphile.mjs';
import * as queryTimeout from './query-timeout.mjs';
import * as engineTest from './engine-test.mjs';
import * as remoteJoin from './remote-join.mjs';

const t0 = Date.now();
const load = loadavg()[0];
const external = await externalDatabase().catch((err) => {
  console.error(`bench: ${err.message}`);
  process.exit(1);
});
// PGlite on a data directory, as `engine serve` runs it; in memory as an extra column when asked (issue 18).
const inMemory = ['1', 'true', 'yes'].includes(process.env.BENCH_PGLITE_MEMORY ?? '');
const kinds = ['pglite', ...(inMemory ? ['pglite-memory'] : []), ...(external.ok ? ['postgres'] : [])];
progress(`${QUICK ? 'quick' : 'full'} run; postgres: ${external.label}`);

const rows = [];
const add = (added) => {
  // Modules name the database by its kind; the table says which configuration it was.
  const row = { ...added, database: DATABASE_LABELS[added.database] ?? added.database };
  rows.push(row);
  progress(`  ${row.figure} [${row.database}]: ${row.text ?? `${row.value.toFixed(2)} ${row.unit ?? 'ms'}`}${row.comparison && row.text === undefined ? ` vs ${row.base.toFixed(2)} ms` : ''}`);
};
const failures = [];
// `--only <text>`: just the benchmarks whose name contains it (e.g. `--only graphql`).
const only = process.argv.includes('--only') ? (process.argv[process.argv.indexOf('--only') + 1] ?? '') : '';
const all = [['replace/export (issue 2)', replaceExport], ['one change (issue 3)', singleChange], ['project tool (issue 4)', project], ['event delivery (issue 15)', events], ['graphql (issue 13)', graphqlBench], ['mutations (issue 14)', mutations], ['actions (issue 16)', actions], ['peak memory (issue 11)', memory], ['graphql memory (issue 28)', graphqlMemory], ['start-up (issue 18)', serveStartup], ['query time limit (issue 28)', queryTimeout], ['engine test (issue 33)', engineTest], ['remote joins (issue 35)', remoteJoin], ['peer: PostGraphile v5 (issues 13, 14)', peer]];
for (const [name, mod] of all.filter(([n]) => n.includes(only))) {
  progress(`# ${name}`);
  try {
    await mod.run({ quick: QUICK, kinds, add });
  } catch (err) {
    failures.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    progress(`# ${name} FAILED: ${err instanceof Error ? err.stack : String(err)}`);
  }
}

const r = replaceExport.SIZES[QUICK ? 'quick' : 'full'];
const s = singleChange.SIZES[QUICK ? 'quick' : 'full'];
const p = project.SIZES[QUICK ? 'quick' : 'full'];
const minutes = ((Date.now() - t0) / 60000).toFixed(1);
console.log(`## Benchmarks${QUICK ? ' — quick (smaller sizes, fewer runs: a smoke check, not the figures of the goals)' : ''}`);
console.log();
console.log(`${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, node ${process.version}, ${cpus().length} cores, load ${load.toFixed(2)} at start; ${minutes} min.`);
console.log(`postgres: ${external.label}; PGlite: embedded, on a data directory (as \`engine serve\` runs it)${inMemory ? ', and in memory' : ''}; ` +
  'the project tool spawns the real bin against `engine serve` in its own process. Every benchmark has its own database.');
console.log();
console.log(table(rows));
console.log();
console.log(`value: p50 of ${r.runs} runs (replace/export), ${s.runs} (one change), ${p.runs} (project CLI at ${count(p.tables)} tables, process spawn to exit; at 10× that size ${Math.min(3, p.runs)}), ` +
  `${p.startupRuns} (start-up). The project: N tables × (2 relationships + 4 permissions) + N/5 actions.`);
const ev = events.SIZES[QUICK ? 'quick' : 'full'];
console.log(`event delivery: \`engine serve\` in its own process (PGlite on a data directory); commit → webhook over ${ev.commits} single-row ` +
  `\`insert_item_one\` mutations, timed from sending the request to the webhook's receipt; events/s: ${count(ev.events)} events from one statement, ` +
  'until all are recorded delivered, with one engine process and (PostgreSQL) two on one database; the webhook answers at once.');
console.log(`peer: engine vs PostGraphile ${peer.POSTGRAPHILE_VERSION} (each its own process) on the external PostgreSQL, ${count(10_000)} authors × 10 articles, ` +
  `autocannon at ${peer.settings(QUICK).connections} connections for ${peer.settings(QUICK).seconds} s per query; \`npm run bench:peer\` prints its side-by-side table (p50/p99 too).`);
console.log('peak RSS: the CLI process\'s peak resident set size (VmHWM), one run each; the 50 MB file is refused unread (metadata-too-large).');
console.log('ratio: value / goal (≤ 1.00 is within the goal); for a comparison (A vs B) it is A / B (×), and the goal says what is judged.');
console.log();
const judged = rows.filter((x) => x.pass !== null);
const over = judged.filter((x) => !x.pass);
const summary = over.length === 0
  ? `All ${judged.length} figures within their goals.`
  : `${over.length} of ${judged.length} figures over their goals: ${over.map((x) => `${x.figure} [${x.database}]`).join('; ')}. ` +
    '(Benchmarks are not tests: the exit code stays 0.)';
console.log(`${QUICK ? 'Quick run: ' : ''}${summary}${external.ok ? '' : ' PostgreSQL rows skipped.'}`);
if (failures.length) {
  console.log(`${failures.length} benchmark(s) failed to run: ${failures.join('; ')}`);
  process.exitCode = 1;
}
