import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { createTestDatabase, post } from '../helpers/engine.js';
import { Engine } from '../../src/server/engine.js';
import { createHttpServer, listen } from '../../src/server/http/index.js';
import type { Database } from '../../src/db/database.js';

/* An internal failure (here: the database gone mid-flight) answers exactly the 500 body of engine-api.md §1.4,
   with no detail, and logs the detail on the server. */
let db: Database;
let drop: () => Promise<void>;
let server: Server;
let url: string;
const logged: string[] = [];

beforeAll(async () => {
  ({ db, drop } = await createTestDatabase());
  const engine = await Engine.start(db);
  const logger = { debug() {}, info() {}, warn() {}, error: (m: string) => void logged.push(m) };
  server = createHttpServer(engine, { logger });
  url = `http://127.0.0.1:${(await listen(server, 0, '127.0.0.1')).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await drop();
});

it('answers 500 with the fixed body and logs the cause when the database is unavailable', async () => {
  const ok = await post(`${url}/v1/query`, { type: 'export_metadata', args: {} });
  expect(ok.status).toBe(200);
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  await db.close();
  const r = await post(`${url}/v1/query`, { type: 'run_sql', args: { sql: 'select 1' } });
  expect(r.status).toBe(500);
  expect(r.text).toBe('{"path":"$","error":"internal error","code":"unexpected"}');
  expect(logged.some((m) => m.startsWith('request failed:'))).toBe(true);
  const health = await fetch(`${url}/healthz`);
  expect(health.status).toBe(500);
  expect(await health.text()).toBe('ERROR');
  // The server itself is still alive and answers what needs no database.
  expect((await fetch(`${url}/v1/version`)).status).toBe(200);
});
