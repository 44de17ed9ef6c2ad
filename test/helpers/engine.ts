import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { PgliteDatabase } from '../../src/db/pglite.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { Engine } from '../../src/server/engine.js';
import { createHttpServer, listen, type HttpOptions } from '../../src/server/http/index.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { Authenticator, type AuthSettings } from '../../src/server/auth/index.js';
import type { Env } from '../../src/server/outbound/index.js';
import type { DocumentLimits } from '../../src/server/graphql/request/index.js';

/** Authentication beyond the admin secret (JWT, unauthorized role), and the logger that sees start-up and requests. */
export interface AuthOptions {
  auth?: Omit<AuthSettings, 'adminSecret'>;
  logger?: Logger;
  /** The variables action handlers' templates and headers see (default: the process environment). */
  env?: Env;
  /** Non-admin GraphQL requests must send allow-listed documents (issue 20). */
  enableAllowlist?: boolean;
  /** The node and alias limits of `/v1/graphql` (issue 28). */
  graphqlLimits?: DocumentLimits;
  /** CORS and structured logs of the HTTP layer (issue 31). */
  http?: Pick<HttpOptions, 'cors' | 'log' | 'liveQueriesRefetchMs' | 'stringifyNumeric' | 'inferFunctionPermissions' | 'subscriptionLimits' | 'subscriptions'>;
}

export const EXTERNAL_URL = process.env['ENGINE_TEST_DATABASE_URL'] || undefined;

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
  headers: Headers;
}

export interface TestEngine {
  url: string;
  engine: Engine;
  auth: Authenticator;
  db: Database;
  /** POST /v1/query with the body (object or raw string). */
  query(body: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** Shorthand: query and assert 200, returning the body. */
  ok(body: unknown): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  sql(sql: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /**
   * Everything a failed request must leave untouched: the exported metadata (bytes), resource_version, the
   * user schemas' relations and columns, and the catalog's event/action rows. Compare before and after.
   */
  state(): Promise<{ metadata: string; version: string | null; schema: string; rows: string }>;
  /** Drops every user schema, empties the catalog and resets the metadata to version 1. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** A fresh database for one test file: its own database on the external server, or an in-memory PGlite. */
export async function createTestDatabase(): Promise<{ db: Database; url?: string; drop: () => Promise<void> }> {
  if (!EXTERNAL_URL) {
    const db = await PgliteDatabase.open(undefined);
    return { db, drop: async () => {} };
  }
  const name = `engine_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: EXTERNAL_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const u = new URL(EXTERNAL_URL);
  u.pathname = `/${name}`;
  const db = await PostgresDatabase.connect(u.toString());
  return {
    db,
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: EXTERNAL_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function startOn(db: Database, adminSecret?: string, opts: AuthOptions = {}): Promise<{ url: string; engine: Engine; server: Server; auth: Authenticator }> {
  const engine = await Engine.start(db, silentLogger);
  // Internal failures are bugs: show their detail in the test output.
  const logger = opts.logger ?? { ...silentLogger, error: (m: string) => console.error(m) };
  const auth = await Authenticator.create({ ...opts.auth, adminSecret }, logger);
  const server = createHttpServer(engine, { auth, logger, env: opts.env, enableAllowlist: opts.enableAllowlist, graphqlLimits: opts.graphqlLimits, ...opts.http });
  const addr = await listen(server, 0, '127.0.0.1');
  return { url: `http://127.0.0.1:${addr.port}`, engine, server, auth };
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

const RESET_SQL = `
DO $$ DECLARE s text; BEGIN
  FOR s IN SELECT nspname FROM pg_namespace WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'engine_catalog')
    AND nspname NOT LIKE 'pg\\_toast%' AND nspname NOT LIKE 'pg\\_temp\\_%' LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', s);
  END LOOP;
END $$;
CREATE SCHEMA public;
DO $$ DECLARE f text; BEGIN
  FOR f IN SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'engine_catalog' AND p.proname LIKE 'notify\\_engine\\_%' LOOP
    EXECUTE format('DROP FUNCTION engine_catalog.%I()', f);
  END LOOP;
END $$;
TRUNCATE engine_catalog.event_log, engine_catalog.event_invocation_logs, engine_catalog.action_log, engine_catalog.schema_migrations,
  engine_catalog.scheduled_events, engine_catalog.scheduled_event_invocation_logs, engine_catalog.cron_trigger_state;
UPDATE engine_catalog.metadata SET metadata = '{"version":2,"tables":[]}', resource_version = 1;
`;

export async function startTestEngine(opts: { adminSecret?: string } & AuthOptions = {}): Promise<TestEngine> {
  const { db, drop } = await createTestDatabase();
  const { url, engine, server, auth } = await startOn(db, opts.adminSecret, opts);
  const headers: Record<string, string> = opts.adminSecret ? { 'x-engine-admin-secret': opts.adminSecret } : {};
  const te: TestEngine = {
    url,
    engine,
    auth,
    db,
    query: (body, extra = {}) => post(`${url}/v1/query`, body, { ...headers, ...extra }),
    async ok(body) {
      const r = await te.query(body);
      if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${r.text}`);
      return r.body;
    },
    sql: (sql) => te.ok({ type: 'run_sql', args: { sql } }),
    async state() {
      const r = await te.query({ type: 'export_metadata', args: {} });
      const schema = await db.query<{ s: string }>(`SELECT coalesce(string_agg(n.nspname || '.' || c.relname || ':' || c.relkind::text || ':' ||
          coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, NULL), ',' ORDER BY a.attnum)
                    FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), ''), ';'
          ORDER BY n.nspname, c.relname), '') AS s
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'engine_catalog') AND n.nspname NOT LIKE 'pg\\_%' AND c.relkind IN ('r','v','m','f','p')`);
      const rows = await db.query<{ s: string }>(`SELECT (SELECT count(*) FROM engine_catalog.event_log)::text || '/' ||
          (SELECT count(*) FROM engine_catalog.action_log)::text || '/' ||
          (SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            WHERE NOT t.tgisinternal AND c.relnamespace <> 'engine_catalog'::regnamespace)::text AS s`);
      return { metadata: r.text, version: r.headers.get('x-engine-resource-version'), schema: schema[0]?.s ?? '', rows: rows[0]?.s ?? '' };
    },
    async reset() {
      await db.runScript(RESET_SQL);
      await engine.refresh();
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await db.close();
      await drop();
    },
  };
  return te;
}

/**
 * One engine for the calling test file (or describe block), reset before each test and then brought to the file's
 * starting point by `setup`, closed after the last test. The engine only exists once beforeAll has run, so this
 * returns a stand-in that forwards to it: test bodies keep writing `e.sql(…)` without an accessor call.
 * Setup runs in the same hook as the reset, so it never depends on how the runner orders sibling hooks.
 */
export function useTestEngine(opts: { adminSecret?: string; setup?: (e: TestEngine) => Promise<void> } & AuthOptions = {}): TestEngine {
  let current: TestEngine | undefined;
  beforeAll(async () => {
    current = await startTestEngine(opts);
  });
  afterAll(async () => current?.close());
  beforeEach(async () => {
    await current?.reset();
    if (current) await opts.setup?.(current);
  });
  // The engine exists only once beforeAll ran; the proxy lets test bodies hold `e` from the file's top level.
  return new Proxy({} as TestEngine, {
    get(_, key) {
      if (!current) throw new Error('useTestEngine: the engine is used outside a test or hook');
      return Reflect.get(current, key);
    },
  });
}
