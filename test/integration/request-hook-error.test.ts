import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { createTestDatabase, post } from '../helpers/engine.js';
import { Engine } from '../../src/server/engine.js';
import { createHttpServer, listen } from '../../src/server/http/index.js';
import { StructuredLog } from '../../src/server/http/logs.js';
import type { Database } from '../../src/db/database.js';

/* A hook before routing that throws (src/server/http/router.ts): the route-handler path is internal-error.test.ts's;
   here a hook of the test's own, added after the engine's (through extraRoutes, as the console adds its routes),
   throws on requests that carry a header. The router's error handler answers the 500 body of engine-api.md §1.4, the
   route never runs, the cause is logged on the server with the request's http-log line, and the server goes on. */
let db: Database;
let drop: () => Promise<void>;
let server: Server;
let url: string;
const errors: string[] = [];
const lines: string[] = [];
let hookRuns = 0;

const TABLE_EXISTS = "SELECT to_regclass('public.hook_t') IS NOT NULL AS present";

beforeAll(async () => {
  ({ db, drop } = await createTestDatabase());
  const engine = await Engine.start(db);
  const logger = { debug: (m: string) => void lines.push(m), info() {}, warn() {}, error: (m: string) => void errors.push(m) };
  const log = new StructuredLog({ format: 'text', types: ['http-log'], logger });
  server = createHttpServer(engine, {
    logger, log,
    extraRoutes: (app) => app.onRequest((request) => {
      hookRuns++;
      if (request.headers['x-test-hook-throws'] !== undefined) throw new Error('hook failed on purpose');
    }),
  });
  url = `http://127.0.0.1:${(await listen(server, 0, '127.0.0.1')).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await drop();
});

it('answers the 500 envelope when a request hook throws; the route does not run and the server keeps answering', async () => {
  const create = { type: 'run_sql', args: { sql: 'CREATE TABLE public.hook_t (id int)' } };
  const r = await post(`${url}/v1/query`, create, { 'x-test-hook-throws': '1', 'x-request-id': 'hook-req-1' });
  expect(hookRuns).toBe(1);
  expect(r.status).toBe(500);
  expect(r.body).toEqual({ path: '$', error: 'internal error', code: 'unexpected' });
  // The engine's own hook ran before the failing one: the answer still names the request.
  expect(r.headers.get('x-request-id')).toBe('hook-req-1');
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/^request failed: Error: hook failed on purpose/);
  // Nothing changed: the route (run_sql) never ran.
  expect((await db.query<{ present: boolean }>(TABLE_EXISTS))[0]?.present).toBe(false);
  // The answer is logged as any other, with its status and error code (written once the response finished).
  const deadline = Date.now() + 5000;
  while (!lines.some((l) => l.includes('hook-req-1')) && Date.now() < deadline) await new Promise((res) => setImmediate(res));
  const logged = lines.find((l) => l.includes('hook-req-1'));
  expect(logged).toBeDefined();
  expect(JSON.parse((logged as string).replace(/^http-log /, ''))).toMatchObject({ request_id: 'hook-req-1', method: 'POST', path: '/v1/query', status: 500, error_code: 'unexpected' });

  // The same server answers the next requests: the route runs once the hook lets it.
  const ok = await post(`${url}/v1/query`, create);
  expect(ok.status).toBe(200);
  expect(ok.body).toEqual({ result_type: 'CommandOk', result: null });
  expect((await db.query<{ present: boolean }>(TABLE_EXISTS))[0]?.present).toBe(true);
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  expect(errors).toHaveLength(1);
});
