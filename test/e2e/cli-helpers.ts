/**
 * Helpers for the end-to-end tests of the CLI: they run the real bin (`node bin/engine.js …`, i.e. the BUILT code in
 * dist/) in a child process, in a temporary directory, against a real engine started by the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { useTestEngine as useEngine, type TestEngine } from '../helpers/engine.js';

export const BIN = fileURLToPath(new URL('../../bin/engine.js', import.meta.url));

/** Per spawned CLI; each run takes ~0.2 s, reads with retries against a dead endpoint ~4 s. */
export const CLI_TIMEOUT_MS = 60_000;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  done: Promise<CliResult>;
}

export interface RunOptions {
  cwd: string;
  /** Variables added to the child's environment (after the outer ENGINE_GRAPHQL_* ones were removed). */
  env?: Record<string, string>;
}

/**
 * The child's environment: the outer one without any ENGINE_GRAPHQL_* variable (nor colour forcing), with CI=true
 * so no run is interactive (cli.md §2.6, §3.3), plus `extra`.
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(ENGINE|HASURA)_GRAPHQL_/.test(k) || k === 'FORCE_COLOR' || k === 'NO_COLOR') continue;
    env[k] = v;
  }
  return { ...env, CI: 'true', ...extra };
}

/** Starts `node bin/engine.js <args>`; stdin is closed (not a TTY). */
export function spawnCli(args: string[], opts: RunOptions): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, env: childEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const done = new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`engine ${args.join(' ')} did not exit within ${CLI_TIMEOUT_MS} ms\nstdout: ${out}\nstderr: ${err}`));
    }, CLI_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: out, stderr: err });
    });
  });
  return { child, stdout: () => out, stderr: () => err, done };
}

/** Runs the CLI to completion. */
export function cli(args: string[], opts: RunOptions): Promise<CliResult> {
  return spawnCli(args, opts).done;
}

/** A readable summary of a run, for assertion messages. */
export function show(r: CliResult): string {
  return `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`;
}

/** The non-empty lines of a stream. */
export const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

/**
 * `-o json` prints exactly one JSON document, as `JSON.stringify(doc, null, 2)` + `\n` (cli.md §3.4): parses stdout
 * and checks that it is exactly that.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function jsonDoc(r: CliResult): any {
  let doc: unknown;
  try {
    doc = JSON.parse(r.stdout);
  } catch {
    throw new Error(`stdout is not one JSON document\n${show(r)}`);
  }
  expect(r.stdout, 'the JSON document is printed with 2-space indentation and one trailing newline').toBe(`${JSON.stringify(doc, null, 2)}\n`);
  return doc;
}

const tempDirs: string[] = [];

export async function tempDir(prefix = 'engine-cli-'): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.push(d);
  return d;
}

export async function removeTempDirs(): Promise<void> {
  for (const d of tempDirs.splice(0)) await rm(d, { recursive: true, force: true });
}

/**
 * The engine lifecycle of test/helpers/engine.ts (registered in the calling scope: a file, or a describe so that a
 * skipped one starts nothing), plus the temporary directories of each test removed after it.
 */
export function useTestEngine(opts: { adminSecret?: string } = {}): TestEngine {
  const e = useEngine(opts);
  afterEach(removeTempDirs);
  return e;
}

/** Gives the engine the tables and metadata of SEED_SQL and SEED_METADATA. */
export async function seedEngine(e: TestEngine): Promise<void> {
  await e.sql(SEED_SQL);
  await e.ok(SEED_METADATA);
}

/** The engine's export_metadata body and resource version. */
export async function engineExport(e: TestEngine): Promise<{ text: string; version: number }> {
  const r = await e.query({ type: 'export_metadata', args: {} });
  expect(r.status, r.text).toBe(200);
  return { text: r.text, version: Number(r.headers.get('x-engine-resource-version')) };
}

/** `engine init <name> --endpoint <endpoint>` in a fresh temporary directory; `dir` is the project's. */
export async function initProject(endpoint: string, name = 'proj', env?: Record<string, string>): Promise<{ parent: string; dir: string; init: CliResult }> {
  const parent = await tempDir();
  const init = await cli(['init', name, '--endpoint', endpoint], { cwd: parent, env });
  expect(init.code, show(init)).toBe(0);
  return { parent, dir: join(parent, name), init };
}

/** Every file below `dir` (relative path → bytes as latin1 text), for byte-for-byte comparisons. */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${e}` : e;
      if (statSync(join(dir, r)).isDirectory()) walk(r);
      else out.set(r, readFileSync(join(dir, r), 'latin1'));
    }
  };
  walk('');
  return out;
}

/** Polls `probe` until it returns a value other than null/undefined/false, failing at the deadline. */
export async function until<T>(probe: () => T | null | undefined | false, what: string, ms = 45_000, everyMs = 2): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== null && v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The nine files of a metadata directory with their empty content (cli.md §4.1). */
export const EMPTY_FILES: Record<string, string> = {
  'version.yaml': 'version: 2\n',
  'tables.yaml': '[]\n',
  'functions.yaml': '[]\n',
  'actions.graphql': '',
  'actions.yaml': 'actions: []\ncustom_types:\n  enums: []\n  input_objects: []\n  objects: []\n  scalars: []\n',
  'allow_list.yaml': '[]\n',
  'remote_schemas.yaml': '[]\n',
  'query_collections.yaml': '[]\n',
  'cron_triggers.yaml': '[]\n',
};

/** SQL and metadata API calls that give the engine two tables, a relationship each way, a permission, an event trigger, custom types and an action. */
export const SEED_SQL = `
create table author (id serial primary key, name text not null);
create table article (id serial primary key, title text not null, author_id int references author(id));
`;

export const SEED_METADATA = {
  type: 'bulk',
  args: [
    { type: 'track_table', args: { table: 'author' } },
    { type: 'track_table', args: { table: 'article' } },
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    {
      type: 'create_array_relationship',
      args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
    },
    {
      type: 'create_select_permission',
      args: { table: 'article', role: 'user', permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } } } },
    },
    {
      type: 'create_event_trigger',
      args: { name: 'article_events', table: 'article', webhook: 'http://localhost:3000/events', insert: { columns: '*' } },
    },
    {
      type: 'set_custom_types',
      args: {
        input_objects: [{ name: 'NewUser', fields: [{ name: 'email', type: 'String!' }] }],
        objects: [{ name: 'UserId', fields: [{ name: 'id', type: 'Int!' }] }],
      },
    },
    {
      type: 'create_action',
      args: {
        name: 'createUser',
        definition: { handler: '{{ACTION_BASE_URL}}/createUser', output_type: 'UserId', arguments: [{ name: 'input', type: 'NewUser!' }] },
      },
    },
    { type: 'create_action_permission', args: { action: 'createUser', role: 'user' } },
  ],
};

/** tables.yaml as export writes it for the seed (cli.md §4.7, §4.8 step 2). */
export const SEED_TABLES_YAML = `- table:
    schema: public
    name: article
  object_relationships:
    - name: author
      using:
        foreign_key_constraint_on: author_id
  select_permissions:
    - role: user
      permission:
        columns:
          - id
          - title
        filter:
          author_id:
            _eq: X-Engine-User-Id
  event_triggers:
    - name: article_events
      definition:
        enable_manual: true
        insert:
          columns: "*"
      retry_conf:
        num_retries: 0
        interval_sec: 10
        timeout_sec: 60
      webhook: http://localhost:3000/events
- table:
    schema: public
    name: author
  array_relationships:
    - name: articles
      using:
        foreign_key_constraint_on:
          table:
            schema: public
            name: article
          column: author_id
`;

/** actions.graphql and actions.yaml as export writes them for the seed (cli.md §4.9). */
export const SEED_ACTIONS_GRAPHQL = `type Mutation {
  createUser(input: NewUser!): UserId
}

input NewUser {
  email: String!
}

type UserId {
  id: Int!
}
`;

export const SEED_ACTIONS_YAML = `actions:
  - name: createUser
    definition:
      kind: synchronous
      handler: "{{ACTION_BASE_URL}}/createUser"
    permissions:
      - role: user
custom_types:
  enums: []
  input_objects:
    - name: NewUser
  objects:
    - name: UserId
  scalars: []
`;

/** The 1-based line number of the first line equal to `text`. */
export function lineOf(content: string, text: string): number {
  const i = content.split('\n').indexOf(text);
  if (i < 0) throw new Error(`no line ${JSON.stringify(text)} in\n${content}`);
  return i + 1;
}

export interface BarrierProxy {
  url: string;
  /** How many `export_metadata` requests were held at the barrier and released together. */
  released: () => number;
  close: () => Promise<void>;
}

/**
 * An HTTP proxy in front of the engine that holds each `export_metadata` request until `parties` of them have
 * arrived (or `maxWaitMs` passed), then forwards them together: concurrent CLI runs are thus certain to read the
 * metadata at the same resource version. Everything else is forwarded as is.
 */
export async function barrierProxy(target: string, parties = 2, maxWaitMs = 20_000): Promise<BarrierProxy> {
  let waiting: (() => void)[] = [];
  let released = 0;
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    clearTimeout(timer);
    timer = undefined;
    released += waiting.length;
    for (const go of waiting.splice(0)) go();
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        let type: unknown;
        try {
          type = (JSON.parse(body.toString('utf8')) as { type?: unknown }).type;
        } catch {
          type = undefined;
        }
        if (type === 'export_metadata') {
          await new Promise<void>((go) => {
            waiting.push(go);
            if (waiting.length >= parties) release();
            else timer ??= setTimeout(release, maxWaitMs);
          });
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
        try {
          const r = await fetch(`${target}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, body: req.method === 'GET' ? undefined : body });
          const text = await r.text();
          const out: Record<string, string> = {};
          r.headers.forEach((v, k) => {
            if (!['content-length', 'connection', 'keep-alive', 'transfer-encoding', 'content-encoding'].includes(k)) out[k] = v;
          });
          res.writeHead(r.status, out).end(text);
        } catch (e) {
          res.writeHead(502).end(String(e));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    released: () => released,
    close: () => new Promise<void>((resolve) => {
      waiting = [];
      clearTimeout(timer);
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
