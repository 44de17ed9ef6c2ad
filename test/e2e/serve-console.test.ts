/**
 * End-to-end, issue 34: `engine serve` serves the web console at /console, on by default for the embedded database and
 * off when ENGINE_GRAPHQL_ENABLE_CONSOLE=false (and, unless asked for, with --database-url).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/server/console/assets.js';
import { tempDir } from './cli-helpers.js';
import { serve, stopAll } from './process-helpers.js';

afterEach(stopAll);

describe('engine serve: the console at /console', () => {
  it('is served on the embedded database, a single-page route included, with its Content-Security-Policy', async () => {
    const cwd = await tempDir();
    const { url } = await serve(cwd, ['--data-dir', join(cwd, 'data')]);
    for (const path of ['/console', '/console/tables/public/author']) {
      const r = await fetch(`${url}${path}`);
      expect([r.status, r.headers.get('content-type'), r.headers.get('content-security-policy')]).toEqual([200, 'text/html; charset=utf-8', CONSOLE_CSP]);
      expect(await r.text()).toContain('<html');
    }
  });

  it('ENGINE_GRAPHQL_ENABLE_CONSOLE=false: /console is the 404 of any unknown path', async () => {
    const cwd = await tempDir();
    const { url } = await serve(cwd, ['--data-dir', join(cwd, 'data')], { ENGINE_GRAPHQL_ENABLE_CONSOLE: 'false' });
    const r = await fetch(`${url}/console`);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual((await (await fetch(`${url}/no-such-path`)).json()));
  });
});
