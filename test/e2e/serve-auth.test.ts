/**
 * End-to-end, issue 17: `engine serve` reads the JWT secret and the unauthorized role from flags, the environment and
 * config.yaml; a bad value stops start-up naming the key; the admin secret and tokens never reach the log, also at
 * --log-level debug.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { bearer, HS_SECRET, userToken } from '../helpers/jwt.js';
import { tempDir } from './cli-helpers.js';
import { finished, run, stopAll } from './process-helpers.js';

afterEach(stopAll);

const LISTENING = /^Engine listening on (http:\/\/127\.0\.0\.1:\d+)$/m;
const ADMIN = 'Adm1n-S3cret-value';

async function until<T>(probe: () => T | null | undefined, what: string, ms = 45_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('engine serve: authentication settings', () => {
  it('a bad --jwt-secret stops start-up with config-invalid naming the key, before the database starts', async () => {
    const cwd = await tempDir();
    const p = run(['serve', '--port', '0', '--data-dir', join(cwd, 'data'), '--admin-secret', ADMIN, '--jwt-secret', '{"type":"HS256","key":"short"}'], cwd);
    expect(await finished(p)).toBe(1);
    expect(p.lines().at(-1)).toBe('error: invalid value for "jwt_secret" (--jwt-secret, ENGINE_GRAPHQL_JWT_SECRET): "key": a HS256 secret must be at least 32 bytes long');
    expect(existsSync(join(cwd, 'data'))).toBe(false);
    const q = run(['serve', '--port', '0', '--data-dir', join(cwd, 'data'), '--jwt-secret', JSON.stringify({ type: 'HS256', key: HS_SECRET })], cwd);
    expect(await finished(q)).toBe(1);
    expect(q.lines().at(-1)).toBe('error: a JWT secret (jwt_secret) requires an admin secret (admin_secret)');
  });

  it('config.yaml jwt_secret and ENGINE_GRAPHQL_UNAUTHORIZED_ROLE; secrets and tokens stay out of the debug log', async () => {
    const cwd = await tempDir();
    const config = JSON.stringify({ type: 'HS256', key: HS_SECRET, issuer: 'https://issuer.test', audience: 'engine-tests' });
    writeFileSync(join(cwd, 'config.yaml'), `version: 2\nadmin_secret: ${ADMIN}\njwt_secret: '${config}'\n`);
    const p = run(['serve', '--port', '0', '--data-dir', join(cwd, 'data'), '--log-level', 'debug'], cwd, { ENGINE_GRAPHQL_UNAUTHORIZED_ROLE: 'anonymous' });
    const url = (await until(() => LISTENING.exec(p.out()), 'the listening line'))[1] as string;
    const admin = { 'x-engine-admin-secret': ADMIN };
    expect((await post(`${url}/v1/query`, { type: 'run_sql', args: { sql: 'CREATE TABLE t (id int PRIMARY KEY, owner text); INSERT INTO t VALUES (1, \'2\'), (2, \'3\')' } }, admin)).status).toBe(200);
    await post(`${url}/v1/query`, { type: 'bulk', args: [
      { type: 'track_table', args: 't' },
      { type: 'create_select_permission', args: { table: 't', role: 'user', permission: { columns: ['id'], filter: { owner: 'X-Engine-User-Id' } } } },
      { type: 'create_select_permission', args: { table: 't', role: 'anonymous', permission: { columns: ['id'], filter: { id: { _eq: 2 } } } } },
    ] }, admin);
    const token = await userToken(2);
    const gql = (h: Record<string, string>) => post(`${url}/v1/graphql`, { query: '{ t { id } }' }, h);
    expect((await gql(bearer(token))).body).toEqual({ data: { t: [{ id: 1 }] } });
    expect((await gql({})).body).toEqual({ data: { t: [{ id: 2 }] } });
    const expired = await userToken(2, { exp: -60 });
    expect((await gql(bearer(expired))).text).toBe('{"errors":[{"message":"Could not verify JWT: JWTExpired","extensions":{"path":"$","code":"invalid-jwt"}}]}');
    const wrong = await gql({ 'x-engine-admin-secret': 'wrong-guess' });
    expect([wrong.status, wrong.text]).toEqual([200, '{"errors":[{"message":"invalid x-engine-admin-secret","extensions":{"path":"$","code":"access-denied"}}]}']);
    p.child.kill('SIGTERM');
    expect(await finished(p)).toBe(0);
    const log = p.err() + p.out();
    for (const secret of [ADMIN, HS_SECRET, token, expired, token.split('.')[2] as string, 'wrong-guess']) expect(log).not.toContain(secret);
  });

  it('auth hook flags: a bad mode stops start-up; the hook\'s answers and the forwarded token stay out of the debug log', async () => {
    const cwd = await tempDir();
    const bad = run(['serve', '--port', '0', '--data-dir', join(cwd, 'data'), '--admin-secret', ADMIN, '--auth-hook', 'http://127.0.0.1:9/', '--auth-hook-mode', 'PUT'], cwd);
    expect(await finished(bad)).toBe(1);
    expect(bad.lines().at(-1)).toBe('error: invalid value for "auth_hook_mode" (--auth-hook-mode, ENGINE_GRAPHQL_AUTH_HOOK_MODE): expected GET or POST');
    const hook = createServer((req, res) => {
      const ok = req.headers.authorization === 'Bearer opaque-T0ken-42';
      res.writeHead(ok ? 200 : 500).end(ok ? '{"x-engine-role":"user","x-engine-user-id":"Hook-Answer-99"}' : 'Hook-Failure-77');
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    try {
      const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/auth`;
      const p = run(['serve', '--port', '0', '--data-dir', join(cwd, 'data'), '--log-level', 'debug', '--admin-secret', ADMIN, '--auth-hook', hookUrl, '--auth-hook-mode', 'POST'], cwd);
      const url = (await until(() => LISTENING.exec(p.out()), 'the listening line'))[1] as string;
      const g = (token: string) => post(`${url}/v1/graphql`, { query: '{ __typename }' }, bearer(token));
      expect((await g('opaque-T0ken-42')).body).toEqual({ data: { __typename: 'query_root' } });
      expect((await g('other')).text).toBe('{"errors":[{"message":"the authentication hook answered with status 500","extensions":{"path":"$","code":"access-denied"}}]}');
      p.child.kill('SIGTERM');
      expect(await finished(p)).toBe(0);
      const log = p.err() + p.out();
      for (const secret of [ADMIN, 'opaque-T0ken-42', 'Hook-Answer-99', 'Hook-Failure-77']) expect(log).not.toContain(secret);
    } finally {
      await new Promise<void>((r) => hook.close(() => r()));
    }
  });
});
