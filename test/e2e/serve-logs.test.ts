/** End-to-end (issue 31.2): `engine serve --log-format json` writes one JSON object per line on stdout. */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL } from '../helpers/engine.js';
import { tempDir } from './cli-helpers.js';
import { externalDatabase, finished, serve, stopAll } from './process-helpers.js';

afterEach(stopAll);

const SECRET = 'e2e-log-secret-3f9a';

describe('engine serve --log-format json', { timeout: 120_000 }, () => {
  it('startup and http-log lines on stdout with the request id; the admin secret in none', async () => {
    const cwd = await tempDir();
    const db = EXTERNAL_URL ? ['--database-url', await externalDatabase()] : ['--data-dir', join(cwd, 'data')];
    const { p, url } = await serve(cwd, [...db, '--log-format', 'json', '--enabled-log-types', 'startup,http-log,health-check'], { ENGINE_GRAPHQL_ADMIN_SECRET: SECRET });
    const r = await fetch(`${url}/v1/query`, {
      method: 'POST', headers: { 'x-engine-admin-secret': SECRET, 'x-request-id': 'e2e-1' }, body: JSON.stringify({ type: 'export_metadata', args: {} }),
    });
    expect([r.status, r.headers.get('x-request-id')]).toEqual([200, 'e2e-1']);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    p.child.kill('SIGTERM');
    expect(await finished(p)).toBe(0);
    const lines = p.out().split('\n').filter((l) => l.startsWith('{'));
    const docs = lines.map((l) => JSON.parse(l) as { level: string; timestamp: string; type: string; detail: Record<string, unknown> });
    expect(docs.map((d) => d.type)).toEqual(['startup', 'http-log', 'health-check', 'http-log']);
    expect(docs[0]?.detail).toMatchObject({ port: Number(new URL(url).port), database: EXTERNAL_URL ? 'external' : 'embedded' });
    expect(docs[1]).toMatchObject({ level: 'info', type: 'http-log', detail: { request_id: 'e2e-1', method: 'POST', path: '/v1/query', status: 200, role: 'admin' } });
    expect(p.out()).toContain(`Engine listening on ${url}\n`);
    expect(p.out() + p.err()).not.toContain(SECRET);
  });
});
