// The engine as users run it, for benchmarks: `engine serve` in its own process, on a fresh PGlite data directory or on
// a fresh database of the external PostgreSQL; requests with undici over kept-alive connections.
// BENCH_ENGINE_BIN runs another build's bin/engine.js (a before/after comparison); BENCH_ENGINE_NODE_ARGS adds node
// options to the engine process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`: a profile per process, written at exit).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { createBenchDatabase } from './lib.mjs';
import { spawnServer } from './peer/servers.mjs';

const BIN = process.env.BENCH_ENGINE_BIN || fileURLToPath(new URL('../bin/engine.js', import.meta.url));
const NODE_ARGS = (process.env.BENCH_ENGINE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
/** The admin secret of the engines started here (a project's config.yaml names it as `admin_secret`). */
export const SECRET = 'bench';

/**
 * Starts `engine serve` ('pglite': on a temporary data directory; 'postgres': on a new database, or on `databaseUrl`'s,
 * which it then leaves in place: another instance) and waits for it. `bin`: another build's bin/engine.js.
 */
export async function startEngineProcess(kind, { databaseUrl, args: extra = [], bin = BIN } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'engine-bench-'));
  const db = kind !== 'postgres' ? null : databaseUrl ? { url: databaseUrl, drop: async () => {} } : await createBenchDatabase();
  const args = [...NODE_ARGS, bin, 'serve', '--port', '0', '--admin-secret', SECRET, ...(db ? ['--database-url', db.url] : ['--data-dir', join(dir, 'data')]), ...extra];
  const server = await spawnServer('engine serve', process.execPath, args, { env: { ...process.env, NO_COLOR: '1' } }, /Engine listening on (http:\/\/\S+)/, (u) => u.replace(/\/$/, ''));
  const baseUrl = server.url;
  const agent = new Agent({ connections: 32, keepAliveTimeout: 60_000 });
  const post = async (path, body, headers = {}) => {
    const res = await request(`${baseUrl}${path}`, {
      method: 'POST', dispatcher: agent, body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'application/json', 'x-engine-admin-secret': SECRET, ...headers },
    });
    const text = await res.body.text();
    if (res.statusCode !== 200 || text.startsWith('{"errors"')) throw new Error(`${path}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
    return { text, version: res.headers['x-engine-resource-version'] ?? null };
  };
  return {
    baseUrl,
    pid: server.pid,
    /** The external database's URL (null on PGlite), for another instance. */
    databaseUrl: db?.url ?? null,
    /** A metadata API request: its body and X-Engine-Resource-Version. */
    query: (body) => post('/v1/query', body),
    graphql: async (body, headers) => (await post('/v1/graphql', body, headers)).text,
    async close() {
      await agent.close();
      await server.stop();
      await db?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `fn` from `concurrency` workers for `seconds`; answers requests per second. */
export async function rate(fn, concurrency, seconds) {
  let done = 0;
  const until = Date.now() + seconds * 1000;
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async (_, w) => {
    for (let i = 0; Date.now() < until; i++) {
      await fn(w, i);
      done++;
    }
  }));
  return done / (Number(process.hrtime.bigint() - t0) / 1e9);
}
