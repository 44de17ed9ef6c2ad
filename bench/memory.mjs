// Issue 11 item 3: the project tool's peak memory (resident set size of the whole CLI process). The project of
// bench/project.mjs (1,000 tables with 2 relationships and 4 permissions each, 200 actions) for validate, build, diff
// and apply to an empty engine; and a tables.yaml over the engine's 50 MB request limit, which the CLI must refuse
// before reading it (metadata-too-large), for validate and apply.
// The peak is the child's own figure, written at exit by a preloaded hook: VmHWM of /proc/self/status (elsewhere
// `process.resourceUsage().maxRSS`). Goal: every run ≤ 512 MB (the issue's apply died of heap exhaustion past 4 GB).
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { count, progress, schemaSql } from './lib.mjs';
import { startEngineProcess } from './engine-process.mjs';
import { projectConfig, projectDoc } from './project.mjs';

const GROUP = 'memory';
export const SIZES = { full: { tables: 1000, actions: 200 }, quick: { tables: 200, actions: 40 } };
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'engine.js');
const GOAL_MB = 512;
/** Just over the engine's request limit (src/limits.ts ENGINE_MAX_BODY_BYTES = 50 MiB). */
const OVER_LIMIT_BYTES = 50 * 1024 * 1024 + 1024;

// VmHWM (Linux) is the peak of this process image only; getrusage's maxRSS would start at the forking parent's size
// (this process, which holds the engine under test), as Linux carries it across fork and exec.
const HOOK = `data:text/javascript,${encodeURIComponent(`import { readFileSync, writeFileSync } from 'node:fs';
process.on('exit', () => {
  let kb = process.resourceUsage().maxRSS;
  try { kb = Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]); } catch {}
  writeFileSync(process.env.ENGINE_BENCH_RSS_FILE, String(kb));
});`)}`;

/** Runs the CLI to its exit; resolves its exit code, peak RSS (MB), wall time (ms) and stderr. */
async function measure(dir, args) {
  const rssFile = join(dir, '.rss');
  const env = { ...process.env, NO_COLOR: '1', ENGINE_BENCH_RSS_FILE: rssFile };
  for (const k of Object.keys(env)) if (k.startsWith('ENGINE_GRAPHQL_')) delete env[k];
  const t0 = performance.now();
  const r = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', HOOK, BIN, ...args], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    const err = [];
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr: Buffer.concat(err).toString() }));
  });
  const ms = performance.now() - t0;
  const kb = Number(await readFile(rssFile, 'utf8'));
  return { ...r, mb: kb / 1024, ms };
}

const row = (figure, database, mb) =>
  ({ group: GROUP, figure, database, value: mb, unit: 'MB', goal: `≤ ${GOAL_MB} MB`, ratio: mb / GOAL_MB, pass: mb <= GOAL_MB });

async function expectRun(dir, args, code, match) {
  const r = await measure(dir, args);
  if (r.code !== code || (match && !match.test(r.stderr))) {
    throw new Error(`engine ${args.join(' ')} exited ${r.code} (expected ${code})\n${r.stderr.slice(0, 2000)}`);
  }
  progress(`  engine ${args.join(' ')}: exit ${r.code}, peak RSS ${r.mb.toFixed(0)} MB, ${r.ms.toFixed(0)} ms`);
  return r;
}

export async function run({ quick = false, add }) {
  const { tables, actions } = quick ? SIZES.quick : SIZES.full;
  const project = `${count(tables)} tables + ${count(actions)} actions`;
  const dir = await mkdtemp(join(tmpdir(), 'engine-bench-memory-'));
  progress(`${GROUP}: pglite, ${project}`);
  const e = await startEngineProcess('pglite');
  try {
    await e.query({ type: 'run_sql', args: { sql: schemaSql(tables) } });
    await e.query({ type: 'replace_metadata', args: projectDoc(tables, actions) });
    await writeFile(join(dir, 'config.yaml'), projectConfig(e.baseUrl));
    await expectRun(dir, ['metadata', 'export'], 0);
    for (const cmd of ['validate', 'build', 'diff']) {
      add(row(`peak RSS: metadata ${cmd}, ${project}`, cmd === 'diff' ? 'pglite' : '— (offline)', (await expectRun(dir, ['metadata', cmd], 0)).mb));
    }
    await e.query({ type: 'clear_metadata', args: {} });
    add(row(`peak RSS: metadata apply to an empty engine, ${project}`, 'pglite', (await expectRun(dir, ['metadata', 'apply'], 0)).mb));

    // Over the limit: a valid tables.yaml (the project's, then comment lines) just over 50 MB; refused unread.
    const tablesYaml = join(dir, 'metadata', 'tables.yaml');
    const text = await readFile(tablesYaml, 'utf8');
    const line = `# ${'x'.repeat(98)}\n`;
    await writeFile(tablesYaml, text + line.repeat(Math.ceil((OVER_LIMIT_BYTES - text.length) / line.length)));
    const before = (await e.query({ type: 'export_metadata', args: {} })).version;
    for (const cmd of ['validate', 'apply']) {
      const r = await expectRun(dir, ['metadata', cmd], 1, /more than the engine.s request limit of 50 MB/);
      add(row(`peak RSS: metadata ${cmd} of a 50 MB tables.yaml (refused)`, cmd === 'apply' ? 'pglite' : '— (offline)', r.mb));
    }
    if ((await e.query({ type: 'export_metadata', args: {} })).version !== before) throw new Error('the refused apply changed the engine');
  } finally {
    await e.close();
    await rm(dir, { recursive: true, force: true });
  }
}
