/**
 * End-to-end: a synchronous action through a real `engine serve` process (issue 16): the handler URL template and a
 * `value_from_env` header are read from the process's environment at call time, and a failure shown to a non-admin
 * role names the unset variable but shows no secret value.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';
import { tempDir } from './cli-helpers.js';
import { run, stopAll } from './process-helpers.js';

afterEach(stopAll);
let hook: Webhook | undefined;
afterEach(async () => hook?.close());

const LISTENING = /^Engine listening on (http:\/\/127\.0\.0\.1:(\d+))$/m;
const TOKEN = 'tok-from-the-environment';

describe('engine serve calls action handlers', () => {
  it('resolves {{ENV}} and value_from_env from its environment; errors to a non-admin role show no secret', async () => {
    hook = await startWebhook((req, res) => {
      res.writeHead(req.body.input.email === 'fail' ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 7, token: req.headers['x-token'] }));
    });
    const cwd = await tempDir();
    const p = run(['serve', '--port', '0', '--data-dir', `${cwd}/data`], cwd, { ACTION_BASE_URL: hook.url, ACTION_TOKEN: TOKEN });
    const url = (await eventually(() => {
      if (p.child.exitCode !== null) throw new Error(`engine serve ended: ${p.err()}`);
      return LISTENING.exec(p.out()) ?? undefined;
    }, 45_000, 'the listening line'))[1] as string;
    const meta = await post(`${url}/v1/metadata`, { type: 'bulk', args: [
      { type: 'set_custom_types', args: { objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int!' }, { name: 'token', type: 'String' }] }] } },
      { type: 'create_action', args: { name: 'signup', definition: {
        handler: '{{ACTION_BASE_URL}}/signup', output_type: 'Out', arguments: [{ name: 'email', type: 'String!' }],
        headers: [{ name: 'X-Token', value_from_env: 'ACTION_TOKEN' }],
      } } },
      { type: 'create_action_permission', args: { action: 'signup', role: 'user' } },
    ] });
    expect(meta.status).toBe(200);
    const user = { 'x-engine-role': 'user' };
    const ok = await post(`${url}/v1/graphql`, { query: 'mutation { signup(email: "a") { id token } }' }, user);
    expect(ok.body).toEqual({ data: { signup: { id: 7, token: TOKEN } } });
    const failed = await post(`${url}/v1/graphql`, { query: 'mutation { signup(email: "fail") { id } }' }, user);
    expect(failed.text).toBe(JSON.stringify({ errors: [{ message: 'internal error', extensions: { path: '$', code: 'unexpected' } }] }));
    const admin = await post(`${url}/v1/graphql`, { query: 'mutation { signup(email: "fail") { id } }' });
    expect(admin.text).toContain(TOKEN);
    expect(p.err()).not.toContain(TOKEN);
    expect(p.out()).not.toContain(TOKEN);
  });
});
