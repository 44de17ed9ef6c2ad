// The engine as users run it, for benchmarks: `engine serve` in its own process, on a fresh PGlite data directory or on
// a fresh database of the external PostgreSQL; requests with undici over kept-alive connections.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, request } from 'undici';
import { EXTERNAL_URL } from './lib.mjs';

const BIN = fileURLToPath(new URL('../bin/engine.js', import.meta.url));
const SECRET = 'bench';

async function freshDatabase() {
  const name = `engine_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: EXTERNAL_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const u = new URL(EXTERNAL_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: EXTERNAL_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Starts `engine serve` ('pglite': on a temporary data directory; 'postgres': on a new database) and waits for it. */
export async function startEngineProcess(kind) {
  const dir = mkdtempSync(join(tmpdir(), 'engine-bench-'));
  const db = kind === 'postgres' ? await freshDatabase() : null;
  const args = [BIN, 'serve', '--port', '0', '--admin-secret', SECRET, ...(db ? ['--database-url', db.url] : ['--data-dir', join(dir, 'data')])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const baseUrl = await new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /Engine listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1].replace(/\/$/, ''));
    });
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('exit', (code) => reject(new Error(`engine serve exited (${code}): ${err}`)));
  });
  const agent = new Agent({ connections: 32, keepAliveTimeout: 60_000 });
  const post = async (path, body, headers = {}) => {
    const res = await request(`${baseUrl}${path}`, {
      method: 'POST', dispatcher: agent, body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'application/json', 'x-engine-admin-secret': SECRET, ...headers },
    });
    const text = await res.body.text();
    if (res.statusCode !== 200 || text.startsWith('{"errors"')) throw new Error(`${path}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
    return text;
  };
  return {
    baseUrl,
    query: (body) => post('/v1/query', body),
    graphql: (body, headers) => post('/v1/graphql', body, headers),
    async close() {
      await agent.close();
      await new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      });
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
