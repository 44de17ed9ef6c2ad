/**
 * Helpers for the end-to-end tests that start `engine` processes which may outlive a test (serve) or servers of the
 * test's own: everything started is tracked so that `stopAll` (the files' afterEach) can stop it, even after a failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server as NetServer } from 'node:net';
import pg from 'pg';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { eventually } from '../helpers/webhook.js';
import { BIN, removeTempDirs } from './cli-helpers.js';

export interface Proc {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  lines: () => string[];
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const procs: Proc[] = [];
/** Run by `stopAll` after the processes are stopped, before the temporary directories are removed. */
export const cleanups: (() => Promise<void>)[] = [];

/** Kills what is still running first, so that no process holds a directory that is then removed. */
export async function stopAll(): Promise<void> {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.closed;
    }
  }
  for (const c of cleanups.splice(0)) await c();
  await removeTempDirs();
}

/** The child's environment: no ENGINE_GRAPHQL_* (nor the incumbent's HASURA_GRAPHQL_*) leaking in from the test runner, no colour. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(ENGINE|HASURA)_GRAPHQL_/.test(k)) env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

export function run(args: string[], cwd: string, env: Record<string, string> = {}): Proc {
  return runNode([BIN, ...args], cwd, env);
}

/** `node <argv…>` (a script of the test's own, e.g. a generated action handler), tracked like `run`. */
export function runNode(argv: string[], cwd: string, env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, argv, { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const p: Proc = { child, out: () => out, err: () => err, lines: () => err.split('\n').filter((l) => l !== ''), closed };
  procs.push(p);
  return p;
}

export async function finished(p: Proc, ms = 30_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`process did not exit within ${ms} ms\nstderr: ${p.err()}`)), ms);
  });
  try {
    return (await Promise.race([p.closed, timeout])).code;
  } finally {
    clearTimeout(timer);
  }
}

/** busyPort: held by a listener until the end of the test; freePort: was free a moment ago, nothing listens. */
export async function busyPort(keep = true): Promise<number> {
  const server: NetServer = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  if (keep) cleanups.push(close);
  else await close();
  return port;
}
export const freePort = () => busyPort(false);

/** A database of its own on the external server, dropped after the test. */
export async function externalDatabase(prefix = 'engine_e2e'): Promise<string> {
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: EXTERNAL_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: EXTERNAL_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.end();
  });
  const u = new URL(EXTERNAL_URL as string);
  u.pathname = `/${name}`;
  return u.toString();
}

const LISTENING = /^Engine listening on (http:\/\/127\.0\.0\.1:(\d+))$/m;

/** `engine serve` on a free port in `cwd` (`db`: its database flags), once it prints its listening line. */
export async function serve(cwd: string, db: string[], env: Record<string, string> = {}): Promise<{ p: Proc; url: string }> {
  const p = run(['serve', '--port', '0', ...db], cwd, env);
  const m = await eventually(() => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) throw new Error(`engine serve ended: ${p.err()}`);
    return LISTENING.exec(p.out()) ?? undefined;
  }, 45_000, 'the listening line');
  return { p, url: m[1] as string };
}

/** POST /v1/query that must answer 200; its body. */
export async function ok(url: string, body: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await post(`${url}/v1/query`, body);
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${r.text}`);
  return r.body;
}
