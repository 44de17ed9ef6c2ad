import type { Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { post, startOn, startTestEngine, type TestEngine } from '../helpers/engine.js';
import { expectReply } from '../helpers/assertions.js';

// engine-api.md §2: resolving the caller with and without an admin secret, and the admin-only rule.

const SECRET = 's3cret';
let withSecret: TestEngine;
let open: TestEngine;
let emptySecret: { url: string; server: Server };

beforeAll(async () => {
  [withSecret, open] = await Promise.all([startTestEngine({ adminSecret: SECRET }), startTestEngine()]);
  // An empty secret means "no secret configured" (§2.1): a second server on the open engine's database.
  emptySecret = await startOn(open.db, '');
});
afterAll(async () => {
  if (emptySecret) {
    await new Promise<void>((resolve) => {
      emptySecret.server.close(() => resolve());
      emptySecret.server.closeAllConnections();
    });
  }
  await Promise.all([withSecret?.close(), open?.close()]);
});
beforeEach(async () => {
  await Promise.all([withSecret.reset(), open.reset()]);
});

const MISSING = { path: '$', error: 'x-engine-admin-secret required, but not found', code: 'access-denied' };
const INVALID = { path: '$', error: 'invalid x-engine-admin-secret', code: 'access-denied' };
const DENIED = { path: '$.args', error: 'restricted access : admin only', code: 'access-denied' };
const EXPORT = { type: 'export_metadata', args: {} };
const EMPTY_DOC = '{"version":2,"tables":[]}';

/** Sends without the harness's automatic secret header; the request must fail and change nothing. */
async function refused(te: TestEngine, body: unknown, headers: Record<string, string>, status: number, expected: Record<string, unknown>, path = '/v1/query') {
  const before = await te.state();
  const r = await post(`${te.url}${path}`, body, headers);
  expectReply(r, status, expected);
  expect(await te.state()).toEqual(before);
  return r;
}

describe('secret configured', () => {
  it('a missing X-Engine-Admin-Secret is 401 with the exact body', async () => {
    const r = await refused(withSecret, EXPORT, {}, 401, MISSING);
    expect(r.text).toBe('{"path":"$","error":"x-engine-admin-secret required, but not found","code":"access-denied"}');
    await refused(withSecret, EXPORT, {}, 401, MISSING, '/v1/metadata');
  });

  it.each([['wrong'], ['S3CRET'], ['s3cre'], ['s3cretx'], ['s3cret\u00e9'], ['']])(
    'a wrong secret %j is 401 invalid',
    async (given) => {
      const r = await refused(withSecret, EXPORT, { 'x-engine-admin-secret': given }, 401, INVALID);
      expect(r.text).toBe('{"path":"$","error":"invalid x-engine-admin-secret","code":"access-denied"}');
    },
  );

  it('a wrong secret refuses writes too (nothing runs)', async () => {
    await refused(withSecret, { type: 'run_sql', args: { sql: 'create table t (id int)' } }, { 'x-engine-admin-secret': 'nope' }, 401, INVALID);
    await refused(withSecret, { type: 'run_sql', args: { sql: 'create table t (id int)' } }, {}, 401, MISSING, '/v1/metadata');
  });

  it('the correct secret makes the caller admin', async () => {
    for (const path of ['/v1/query', '/v1/metadata']) {
      const r = await post(`${withSecret.url}${path}`, EXPORT, { 'x-engine-admin-secret': SECRET });
      expect({ status: r.status, text: r.text }).toEqual({ status: 200, text: EMPTY_DOC });
    }
    const w = await post(`${withSecret.url}/v1/query`, { type: 'run_sql', args: { sql: 'create table a (id int)' } }, { 'x-engine-admin-secret': SECRET });
    expect(w.status).toBe(200);
    expect((await withSecret.state()).schema).toBe('public.a:r:id integer');
  });

  it('header names are case-insensitive', async () => {
    for (const name of ['X-Engine-Admin-Secret', 'X-ENGINE-ADMIN-SECRET', 'x-engine-admin-secret']) {
      const r = await post(`${withSecret.url}/v1/query`, EXPORT, { [name]: SECRET });
      expect({ name, status: r.status }).toEqual({ name, status: 200 });
    }
    await refused(withSecret, EXPORT, { 'X-Engine-Admin-Secret': SECRET, 'X-ENGINE-ROLE': 'user' }, 400, DENIED);
  });

  it('X-Engine-Role: user with the correct secret is access-denied at step 5', async () => {
    const r = await refused(withSecret, EXPORT, { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'user' }, 400, DENIED);
    expect(r.text).toBe('{"path":"$.args","error":"restricted access : admin only","code":"access-denied"}');
    await refused(withSecret, { type: 'run_sql', args: { sql: 'create table t (id int)' } },
      { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'user' }, 400, DENIED);
  });

  it('X-Engine-Role: admin with the correct secret, or empty, is admin', async () => {
    for (const role of ['admin', '']) {
      const r = await post(`${withSecret.url}/v1/query`, EXPORT, { 'x-engine-admin-secret': SECRET, 'x-engine-role': role });
      expect({ role, status: r.status, text: r.text }).toEqual({ role, status: 200, text: EMPTY_DOC });
    }
  });

  it('X-Engine-Role: admin without the secret does not grant admin', async () => {
    await refused(withSecret, EXPORT, { 'x-engine-role': 'admin' }, 401, MISSING);
    await refused(withSecret, EXPORT, { 'x-engine-role': 'admin', 'x-engine-admin-secret': 'bad' }, 401, INVALID);
  });

  it('the role value is case-sensitive: Admin is an ordinary role', async () => {
    for (const role of ['Admin', 'ADMIN', 'admin2']) {
      await refused(withSecret, EXPORT, { 'x-engine-admin-secret': SECRET, 'x-engine-role': role }, 400, DENIED);
    }
  });

  it('authentication comes after routing and before JSON parsing', async () => {
    const r404 = await fetch(`${withSecret.url}/v1/query/`, { method: 'POST', body: '{}' });
    expect(r404.status).toBe(404);
    expect(await r404.text()).toBe('{"path":"$","error":"resource does not exist","code":"not-found"}');
    await refused(withSecret, '{not json', {}, 401, MISSING);
    await refused(withSecret, '{not json', { 'x-engine-admin-secret': 'x' }, 401, INVALID);
    await refused(withSecret, { type: 'nope', args: {} }, {}, 401, MISSING);
  });

  it('/healthz and /v1/version need no authentication', async () => {
    const h = await fetch(`${withSecret.url}/healthz`);
    expect({ status: h.status, text: await h.text() }).toEqual({ status: 200, text: 'OK' });
    const v = await fetch(`${withSecret.url}/v1/version`, { headers: { 'x-engine-admin-secret': 'wrong' } });
    expect({ status: v.status, text: await v.text() }).toEqual({ status: 200, text: '{"version":"0.1.0"}' });
  });
});

describe('no secret configured', () => {
  it('any X-Engine-Admin-Secret is ignored: the caller is admin', async () => {
    const variants: Record<string, string>[] = [{}, { 'x-engine-admin-secret': 'whatever' }, { 'x-engine-admin-secret': '' }];
    for (const headers of variants) {
      const r = await post(`${open.url}/v1/query`, EXPORT, headers);
      expect({ status: r.status, text: r.text }).toEqual({ status: 200, text: EMPTY_DOC });
    }
  });

  it('an empty configured secret means no secret', async () => {
    const r = await post(`${emptySecret.url}/v1/query`, EXPORT);
    expect({ status: r.status, text: r.text }).toEqual({ status: 200, text: EMPTY_DOC });
  });

  it('an empty X-Engine-Role means admin', async () => {
    const r = await post(`${open.url}/v1/query`, EXPORT, { 'x-engine-role': '' });
    expect({ status: r.status, text: r.text }).toEqual({ status: 200, text: EMPTY_DOC });
  });

  it.each<[string, unknown]>([
    ['export_metadata', EXPORT],
    ['run_sql (read)', { type: 'run_sql', args: { sql: 'select 1' } }],
    ['run_sql (DDL)', { type: 'run_sql', args: { sql: 'create table sneaky (id int)' } }],
    ['get_inconsistent_metadata', { type: 'get_inconsistent_metadata', args: {} }],
    ['track_table', { type: 'track_table', args: 'a' }],
    ['clear_metadata', { type: 'clear_metadata', args: {} }],
    ['bulk', { type: 'bulk', args: [{ type: 'run_sql', args: { sql: 'create table sneaky (id int)' } }] }],
    ['empty bulk', { type: 'bulk', args: [] }],
    ['bulk with malformed elements', { type: 'bulk', args: ['x', { type: 'nope' }] }],
  ])('X-Engine-Role: user is refused for %s', async (_name, body) => {
    await open.sql('create table a (id int)');
    for (const path of ['/v1/query', '/v1/metadata']) {
      const r = await refused(open, body, { 'x-engine-role': 'user' }, 400, DENIED, path);
      expect(r.body).not.toHaveProperty('internal');
    }
  });

  it('Admin (capitalised) and other roles are refused, with or without a secret header', async () => {
    await refused(open, EXPORT, { 'x-engine-role': 'Admin' }, 400, DENIED);
    await refused(open, EXPORT, { 'X-Engine-Role': 'anonymous', 'x-engine-admin-secret': 'anything' }, 400, DENIED);
  });

  it('a refused role still gets the earlier errors first (§1.2 steps 3–4)', async () => {
    const user = { 'x-engine-role': 'user' };
    await refused(open, '{', user, 400, { path: '$', error: 'request body is not valid JSON', code: 'invalid-json' });
    await refused(open, { type: 'nope', args: {} }, user, 400, { path: '$.type', error: 'unknown operation type "nope"', code: 'parse-failed' });
    await refused(open, { args: {} }, user, 400, { path: '$', error: 'the key "type" was not present', code: 'parse-failed' });
    await refused(open, { type: 'bulk' }, user, 400, DENIED);
    await refused(open, { type: 'run_sql', args: 7 }, user, 400, DENIED);
  });
});
