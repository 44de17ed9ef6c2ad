/**
 * End-to-end, issue 17: `engine serve` reads the JWT secret and the unauthorized role from flags, the environment and
 * config.yaml; a bad value stops start-up naming the key; the admin secret and tokens never reach the log, also at
 * --log-level debug.
 */
import { existsSync, writeFileSync } from 'node:fs';
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
    expect((await gql(bearer(expired))).text).toBe('{"path":"$","error":"Could not verify JWT: JWTExpired","code":"invalid-jwt"}');
    expect((await gql({ 'x-engine-admin-secret': 'wrong-guess' })).status).toBe(401);
    p.child.kill('SIGTERM');
    expect(await finished(p)).toBe(0);
    const log = p.err() + p.out();
    for (const secret of [ADMIN, HS_SECRET, token, expired, token.split('.')[2] as string, 'wrong-guess']) expect(log).not.toContain(secret);
  });
});
