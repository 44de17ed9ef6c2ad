// Runs the incumbent's published GraphQL test cases (its `server/tests-py`: YAML request/response pairs, grouped by the
// Python test classes that set up each folder) against this engine, to measure parity (issue 30). The cases are read
// from a copy outside this repository (bring it with the `fetch` tool; never commit them):
//   node scripts/incumbent-cases.mjs <path to tests-py> [--filter TEXT] [--verbose] [--json FILE] [--keep-prefix]
// Each class gets a fresh database on the external PostgreSQL (ENGINE_TEST_DATABASE_URL or 127.0.0.1:5432/test's
// server) and its own `engine serve`. Setup files go through /v1/query (as the incumbent's harness does for PostgreSQL);
// `X-Hasura-` becomes `X-Engine-` in headers and setup unless --keep-prefix. A case passes as the incumbent's harness
// decides: same status, and the same body (object key order ignored); where both bodies are errors, differing messages
// still pass (its harness only warns) — those are counted apart as "error text differs".
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import YAML from 'yaml';

const BIN = fileURLToPath(new URL('../bin/engine.js', import.meta.url));
const BASE_URL = process.env.ENGINE_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const args = process.argv.slice(2);
const root = args.find((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--filter' && args[args.indexOf(a) - 1] !== '--json');
const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const FILTER = opt('--filter');
const VERBOSE = args.includes('--verbose');
const KEEP_PREFIX = args.includes('--keep-prefix');
const FILES = ['test_graphql_queries.py', 'test_graphql_mutations.py'];
const FOLDERS = /^queries\/graphql_(query|mutation)\//;
// Fixtures that need a part this harness does not provide (an auth webhook, remote servers, settings of the server).
const NEEDS = /hge_env|admin_secret|jwt|auth_hook|webhook|remote|gql_server|actions_fixture|evts_webhook|scheduled|hge_fixture_env|skip_server/i;

/** The Python test classes: decorators, dir(), fixtures and the case files their tests check. */
function parseClasses(text) {
  // A module-level alias (`use_mutation_fixtures = usefixtures(...)`) stands for its fixtures where it decorates a class.
  const aliases = new Map([...text.matchAll(/^(\w+)\s*=\s*usefixtures\(([^)]*)\)/gm)].map((m) => [m[1], `usefixtures(${m[2].replace(/\s+/g, ' ')})`]));
  const lines = text.split('\n').map((l) => (/^@(\w+)\s*$/.test(l) && aliases.has(l.slice(1).trim()) ? `@${aliases.get(l.slice(1).trim())}` : l));
  const classes = [];
  let decorators = [];
  let cur = null;
  let method = null;
  for (const line of lines) {
    if (/^@/.test(line)) { decorators.push(line); continue; }
    const m = /^class (\w+)/.exec(line);
    if (m) {
      cur = { name: m[1], decorators, dir: null, cases: [], apiVersion: 'v1', attrs: {} };
      classes.push(cur);
      decorators = [];
      method = null;
      continue;
    }
    if (/^\S/.test(line) && !/^#/.test(line)) { cur = null; decorators = []; continue; }
    if (!cur) continue;
    const d = /return\s+['"]([^'"]+)['"]/.exec(line);
    if (d && method === 'dir') cur.dir = d[1];
    const def = /^\s+def (\w+)\(([^)]*)\)/.exec(line);
    if (def) {
      method = def[1];
      // The marks written above a method apply to the cases its body checks.
      cur.marks = { skipped: cur.skipNext === true, xfail: cur.xfailNext === true };
      cur.skipNext = false;
      cur.xfailNext = false;
    }
    if (/setup_metadata_api_version\s*=\s*['"]v2['"]/.test(line)) cur.apiVersion = 'v2';
    const skip = /^\s+@pytest\.mark\.skip/.test(line);
    if (skip) cur.skipNext = true;
    // A case the incumbent itself is expected to fail (a known bug of its own) is not one to match.
    if (/^\s+@pytest\.mark\.xfail/.test(line)) cur.xfailNext = true;
    const c = /check_query_f\(\s*hge_ctx\s*,\s*self\.dir\(\)\s*\+\s*['"]\/?([^'"]+)['"]/.exec(line);
    if (c && method?.startsWith('test_')) {
      cur.cases.push({ method, file: c[1], ...cur.marks });
    }
    // The Relay classes check their pages through a helper: page_1.yaml … page_<n>.yaml of a folder, in order.
    const pages = /_test_relay_pagination\(\s*hge_ctx\s*,\s*transport\s*,\s*self\.dir\(\)\s*\+\s*['"]\/?([^'"]+)['"]\s*,\s*(\d+)\s*\)/.exec(line);
    if (pages && method?.startsWith('test_')) {
      for (let i = 1; i <= Number(pages[2]); i++) cur.cases.push({ method, file: `${pages[1]}/page_${i}.yaml`, ...cur.marks });
    }
  }
  return classes;
}

const backendOk = (c) => {
  const b = c.decorators.find((d) => d.includes('mark.backend'));
  return !b || b.includes("'postgres'") || b.includes('"postgres"');
};
// `@use_mutation_fixtures` (test_graphql_mutations.py) names the per-class schema and per-method data fixtures.
const fixtures = (c) => c.decorators.filter((d) => d.includes('usefixtures') || d.includes('use_mutation_fixtures'))
  .map((d) => (d.includes('use_mutation_fixtures') ? 'per_class_db_schema_for_mutation_tests per_method_db_data_for_mutation_tests' : d)).join(' ');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function admin(fn) {
  const c = new pg.Client({ connectionString: BASE_URL });
  await c.connect();
  try { return await fn(c); } finally { await c.end(); }
}

async function startEngine(databaseUrl) {
  const cwd = mkdtempSync(join(tmpdir(), 'engine-incumbent-'));
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--database-url', databaseUrl, '--port', String(port), '--log-level', 'warn', '--no-color'],
    // The incumbent's harness starts its server with --stringify-numeric-types (tests-py/fixtures/hge.py): its expected
    // answers have bigint, numeric and float8 as strings.
    { cwd, env: { ...process.env, NO_COLOR: '1', ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'true' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { err += d; });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`engine exited: ${err.slice(-500)}`);
    try { if ((await fetch(`${url}/healthz`)).status === 200) break; } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error('engine did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: () => new Promise((r) => { if (child.exitCode !== null) return r(); child.once('exit', r); child.kill('SIGTERM'); }).then(() => rmSync(cwd, { recursive: true, force: true })) };
}

const rename = (text) => (KEEP_PREFIX ? text : text.replace(/x-hasura-/gi, (m) => (m[0] === 'X' ? 'X-Engine-' : m === 'x-hasura-' ? 'x-engine-' : 'X-ENGINE-')));

async function post(url, path, body, headers = {}) {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, body: json };
}

async function runSetupFile(url, path) {
  if (!existsSync(path)) return null;
  const doc = YAML.parse(rename(readFileSync(path, 'utf8')));
  if (doc === null || doc === undefined) return null;
  const r = await post(url, '/v1/query', doc);
  if (r.status === 200) return null;
  const b = r.body ?? {};
  return `${path.split('/').slice(-2).join('/')}: HTTP ${r.status} ${b.code ?? ''} at ${b.path ?? ''}: ${b.error ?? ''} ${JSON.stringify(b.internal?.error ?? '').slice(0, 300)}`;
}

function equal(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return equal(ka, kb) && ka.every((k) => equal(a[k], b[k]));
  }
  return a === b;
}
const isError = (x) => x && typeof x === 'object' && !Array.isArray(x) && (x.errors !== undefined || x.error !== undefined);
const asList = (x) => (Array.isArray(x) ? x : [x]);

async function runCase(url, conf) {
  const headers = Object.fromEntries(Object.entries(conf.headers ?? {}).map(([k, v]) => [rename(k), rename(String(v))]));
  const r = await post(url, conf.url, rename(JSON.stringify(conf.query)), headers);
  const status = conf.status ?? 200;
  if (r.status >= 500) return { result: 'fail', fiveHundred: true, why: `HTTP ${r.status}`, got: r.body };
  if (r.status !== status) return { result: 'fail', why: `HTTP ${r.status}, expected ${status}`, got: r.body };
  if (conf.response === undefined) return { result: 'pass' };
  const expected = JSON.parse(rename(JSON.stringify(conf.response)));
  if (equal(expected, r.body)) return { result: 'pass' };
  const pairs = asList(expected).map((e, i) => [e, asList(r.body)[i]]);
  if (pairs.every(([e, o]) => equal(e, o) || (isError(e) && isError(o)))) return { result: 'pass-error-text', got: r.body };
  return { result: 'fail', why: 'body differs', got: r.body, expected };
}

async function main() {
  if (!root) throw new Error('usage: node scripts/incumbent-cases.mjs <path to tests-py> [--filter TEXT] [--verbose] [--json FILE]');
  const classes = FILES.flatMap((f) => parseClasses(readFileSync(join(root, f), 'utf8')).map((c) => ({ ...c, pyFile: f })))
    .filter((c) => c.dir && FOLDERS.test(c.dir) && backendOk(c) && c.cases.length > 0)
    .filter((c) => !FILTER || `${c.name} ${c.dir}`.includes(FILTER));
  const results = [];
  let n = 0;
  for (const c of classes) {
    const fx = fixtures(c);
    const skipWhy = NEEDS.test(c.decorators.join(' ')) ? `needs ${NEEDS.exec(c.decorators.join(' '))[0]}` : c.apiVersion === 'v2' ? 'v2 setup (metadata API + /v2/query)' : null;
    const dir = join(root, c.dir);
    if (skipWhy) {
      for (const k of c.cases) results.push({ cls: c.name, file: k.file, result: 'skipped', why: skipWhy });
      continue;
    }
    // Per process: engineers running this script at once on one server must not drop each other's databases.
    const db = `incumbent_${process.pid}_${++n}`;
    await admin((a) => a.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).then(() => a.query(`CREATE DATABASE ${db}`)));
    const u = new URL(BASE_URL);
    u.pathname = `/${db}`;
    // The incumbent's test database has PostGIS in it (its setups use `geometry` without creating the extension).
    const c0 = new pg.Client({ connectionString: u.toString() });
    await c0.connect();
    for (const ext of ['postgis', 'postgis_raster']) await c0.query(`CREATE EXTENSION IF NOT EXISTS ${ext}`).catch(() => {});
    await c0.end();
    const engine = await startEngine(u.toString());
    try {
      const perMethod = fx.includes('per_method_tests_db_state');
      const mutation = fx.includes('per_class_db_schema_for_mutation_tests') || fx.includes('per_method_db_data_for_mutation_tests');
      const classSetup = async () => (mutation ? runSetupFile(engine.url, join(dir, 'schema_setup.yaml')) : runSetupFile(engine.url, join(dir, 'setup.yaml')));
      const classTeardown = async () => (mutation ? runSetupFile(engine.url, join(dir, 'schema_teardown.yaml')) : runSetupFile(engine.url, join(dir, 'teardown.yaml')));
      let setupError = perMethod ? null : await classSetup();
      for (const k of c.cases) {
        if (k.skipped) { results.push({ cls: c.name, file: k.file, result: 'skipped', why: 'marked skip' }); continue; }
        if (k.xfail) { results.push({ cls: c.name, file: k.file, result: 'skipped', why: "the incumbent's own xfail" }); continue; }
        const path = join(dir, k.file);
        if (!existsSync(path)) { results.push({ cls: c.name, file: k.file, result: 'skipped', why: 'file missing' }); continue; }
        if (perMethod) setupError = await classSetup();
        if (mutation) setupError ??= await runSetupFile(engine.url, join(dir, 'values_setup.yaml'));
        const docs = asList(YAML.parse(readFileSync(path, 'utf8')));
        for (const [i, conf] of docs.entries()) {
          const id = `${c.dir}/${k.file}${docs.length > 1 ? `[${i}]` : ''}`;
          if (setupError) { results.push({ cls: c.name, file: id, result: 'fail', why: `setup: ${setupError}` }); continue; }
          let r;
          try { r = await runCase(engine.url, conf); } catch (e) { r = { result: 'fail', why: String(e) }; }
          results.push({ cls: c.name, file: id, ...r });
          if (VERBOSE && r.result === 'fail') console.error(`FAIL ${id}: ${r.why}\n  got: ${JSON.stringify(r.got).slice(0, 400)}${r.expected ? `\n  exp: ${JSON.stringify(r.expected).slice(0, 400)}` : ''}`);
        }
        if (mutation) await runSetupFile(engine.url, join(dir, 'values_teardown.yaml'));
        if (perMethod) await classTeardown();
      }
    } finally {
      await engine.stop();
      await admin((a) => a.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`));
    }
    process.stderr.write(`${c.name}: ${results.filter((r) => r.cls === c.name && r.result.startsWith('pass')).length}/${results.filter((r) => r.cls === c.name && r.result !== 'skipped').length}\n`);
  }
  const ran = results.filter((r) => r.result !== 'skipped');
  const pass = ran.filter((r) => r.result.startsWith('pass'));
  const byFolder = {};
  for (const r of ran) {
    const f = r.file.split('/').slice(1, 3).join('/');
    byFolder[f] ??= [0, 0];
    byFolder[f][1]++;
    if (r.result.startsWith('pass')) byFolder[f][0]++;
  }
  console.log(`cases run: ${ran.length}, passed: ${pass.length} (${((100 * pass.length) / Math.max(1, ran.length)).toFixed(1)} %), of them with a differing error text: ${ran.filter((r) => r.result === 'pass-error-text').length}; HTTP 5xx: ${ran.filter((r) => r.fiveHundred).length}; skipped: ${results.length - ran.length}`);
  for (const [f, [p, t]] of Object.entries(byFolder).sort()) console.log(`  ${f}: ${p}/${t}`);
  const skipped = {};
  for (const r of results.filter((x) => x.result === 'skipped')) skipped[r.why] = (skipped[r.why] ?? 0) + 1;
  console.log(`skipped: ${JSON.stringify(skipped)}`);
  if (opt('--json')) writeFileSync(opt('--json'), JSON.stringify(results, null, 1));
}

await main();
