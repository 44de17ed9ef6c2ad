/**
 * End-to-end, issue 29.2: `engine serve` takes the outbound session-variable prefix from ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX
 * or --session-variable-prefix (the flag wins); a bad value stops start-up. The session SQL sees (and event triggers
 * record) carries the chosen prefix; the incumbent's request headers are accepted.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { tempDir, until } from './cli-helpers.js';
import { finished, run, stopAll } from './process-helpers.js';

afterEach(stopAll);

const LISTENING = /^Engine listening on (http:\/\/127\.0\.0\.1:\d+)$/m;
const ADMIN = 'Adm1n-S3cret-value';

const SESSION_SQL = { type: 'run_sql', args: { sql: "SELECT current_setting('engine.session_variables', true) AS s" } };

describe('engine serve: the session-variable prefix', () => {
  it('ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX=x-hasura- names what SQL sees; X-Hasura-* headers are read', async () => {
    const cwd = await tempDir();
    const p = run(['serve', '--port', '0', '--data-dir', join(cwd, 'data'), '--admin-secret', ADMIN], cwd, { ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX: 'x-hasura-' });
    const url = (await until(() => LISTENING.exec(p.out()), 'the listening line'))[1] as string;
    const r = await post(`${url}/v1/query`, SESSION_SQL, { 'X-Hasura-Admin-Secret': ADMIN, 'X-Engine-User-Id': '7' });
    expect([r.status, r.body]).toEqual([200, { result_type: 'TuplesOk', result: [['s'], ['{"x-hasura-role":"admin","x-hasura-user-id":"7"}']] }]);
  });

  it('the flag wins over the variable; a bad flag exits 64 naming it', async () => {
    const cwd = await tempDir();
    const p = run(['serve', '--port', '0', '--data-dir', join(cwd, 'data'), '--admin-secret', ADMIN, '--session-variable-prefix', 'x-engine-'], cwd,
      { ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX: 'x-hasura-' });
    const url = (await until(() => LISTENING.exec(p.out()), 'the listening line'))[1] as string;
    const r = await post(`${url}/v1/query`, SESSION_SQL, { 'X-Engine-Admin-Secret': ADMIN, 'X-Hasura-User-Id': '7' });
    expect(r.body).toEqual({ result_type: 'TuplesOk', result: [['s'], ['{"x-engine-role":"admin","x-engine-user-id":"7"}']] });
    const bad = run(['serve', '--port', '0', '--data-dir', join(cwd, 'data2'), '--session-variable-prefix', 'x-app-'], cwd);
    expect(await finished(bad)).toBe(64);
    expect(bad.lines().at(-1)).toBe('error: invalid value "x-app-" for --session-variable-prefix: expected x-engine- or x-hasura-');
  });
});
