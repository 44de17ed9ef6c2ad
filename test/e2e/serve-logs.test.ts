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

  it('query-log lines (when enabled) hold the generated SQL and the number of parameters, never their values', async () => {
    const cwd = await tempDir();
    const db = EXTERNAL_URL ? ['--database-url', await externalDatabase()] : ['--data-dir', join(cwd, 'data')];
    const { p, url } = await serve(cwd, [...db, '--log-format', 'json', '--enabled-log-types', 'query-log'], { ENGINE_GRAPHQL_ADMIN_SECRET: SECRET });
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, { method: 'POST', headers: { 'x-engine-admin-secret': SECRET, ...headers }, body: JSON.stringify(body) });
    expect((await post('/v1/query', { type: 'run_sql', args: { sql: 'CREATE TABLE note (id int PRIMARY KEY, owner text NOT NULL); INSERT INTO note VALUES (1, \'x\');' } })).status).toBe(200);
    expect((await post('/v1/query', { type: 'pg_track_table', args: { table: 'note' } })).status).toBe(200);
    const hidden = 'value-never-logged-81c2';
    const r = await post('/v1/graphql', { query: 'query Notes($o: String!) { note(where: {owner: {_eq: $o}}) { id } }', variables: { o: hidden }, operationName: 'Notes' });
    expect(await r.json()).toEqual({ data: { note: [] } });
    p.child.kill('SIGTERM');
    expect(await finished(p)).toBe(0);
    const docs = p.out().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type: string; detail: { operation_name: string; statements: { root_field: string; sql: string; parameters: number }[] } });
    const logged = docs.filter((d) => d.type === 'query-log');
    expect(logged).toHaveLength(1);
    expect(logged[0]?.detail).toMatchObject({ operation_name: 'Notes', operation_type: 'query' });
    expect(logged[0]?.detail.statements[0]?.root_field).toBe('note');
    expect(logged[0]?.detail.statements[0]?.sql).toContain('"note"');
    expect(logged[0]?.detail.statements[0]?.parameters).toBeGreaterThanOrEqual(1);
    expect(p.out() + p.err()).not.toContain(hidden);
    expect(p.out() + p.err()).not.toContain(SECRET);
  });
});
