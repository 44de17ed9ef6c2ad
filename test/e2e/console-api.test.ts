/**
 * `engine console`'s HTTP side with the real bin and a real engine: the project API's answers and error paths (each
 * asserting code, message, path and that neither the files nor the engine changed), the proxy and the static files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, initProject, show, snapshot, useTestEngine } from './cli-helpers.js';
import { busyPort, finished, run, stopAll } from './process-helpers.js';
import { startConsole } from '../browser/browser-helpers.js';

const SECRET = 'api-secret';
const e = useTestEngine({ adminSecret: SECRET });
const env = { ENGINE_GRAPHQL_ADMIN_SECRET: SECRET };
afterEach(stopAll);

async function project(): Promise<string> {
  await e.sql('create table note (id int primary key, body text); create table other (id int primary key);');
  await e.ok({ type: 'bulk', args: [
    { type: 'track_table', args: { table: 'note' } },
    { type: 'create_select_permission', args: { table: 'note', role: 'reader', permission: { columns: ['id'], filter: {} } } },
  ] });
  const { dir } = await initProject(e.url, 'proj', env);
  const r = await cli(['metadata', 'export'], { cwd: dir, env });
  expect(r.code, show(r)).toBe(0);
  return dir;
}

const post = (origin: string, body: unknown, secret: string | null = SECRET) => fetch(`${origin}/console/api/permission`, {
  method: 'POST', headers: { 'content-type': 'application/json', ...(secret ? { 'x-engine-admin-secret': secret } : {}) }, body: JSON.stringify(body),
});

describe('engine console: project API', () => {
  it('pages tables server-side, proxies the engine and serves the app', async () => {
    const dir = await project();
    const { origin } = await startConsole(dir, env);
    const page = await fetch(`${origin}/console/api/tables?search=NOT&offset=0&limit=10`, { headers: { 'x-engine-admin-secret': SECRET } });
    expect(page.status).toBe(200);
    expect(await page.json()).toEqual({ total: 1, offset: 0, limit: 10, roles: ['reader'], tables: [
      { schema: 'public', name: 'note', cells: { reader: { select: 'all' } }, typeName: 'note', selectField: 'note', insertOneField: 'insert_note_one', updateField: 'update_note', deleteField: 'delete_note' },
    ] });
    const version = await fetch(`${origin}/v1/version`);
    expect(version.status).toBe(200);
    expect(((await version.json()) as { version: string }).version).toMatch(/\d/);
    const root = await fetch(`${origin}/`, { redirect: 'manual' });
    expect([root.status, root.headers.get('location')]).toEqual([302, '/console/']);
    for (const path of ['/console/', '/console/tables/public.note']) {
      const html = await fetch(`${origin}${path}`);
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(html.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(await html.text()).toContain('<script type="module" src="/console/app.js">');
    }
    const escape = await fetch(`${origin}/console/%2e%2e/%2e%2e/package.json`);
    expect(await escape.text()).not.toContain('"name": "engine"');
  });

  it('refuses without the admin secret, a bad edit, an untracked table and what the engine rejects: nothing changes', async () => {
    const dir = await project();
    const { origin } = await startConsole(dir, env);
    const files = snapshot(join(dir, 'metadata'));
    const before = await e.state();
    const cell = { table: { schema: 'public', name: 'note' }, role: 'reader', type: 'select' };
    const cases: [Response, number, Record<string, unknown>][] = [
      [await post(origin, { ...cell, permission: null }, 'wrong'), 401, { code: 'access-denied', error: 'invalid or missing x-engine-admin-secret', path: '$' }],
      [await fetch(`${origin}/console/api/tables`), 401, { code: 'access-denied', error: 'invalid or missing x-engine-admin-secret', path: '$' }],
      [await post(origin, { ...cell, role: 'admin', permission: null }), 400, { code: 'invalid-edit', error: 'expected a role other than admin', path: '$.role' }],
      [await post(origin, { ...cell, type: 'upsert', permission: null }), 400, { code: 'invalid-edit', error: 'expected one of insert, select, update, delete', path: '$.type' }],
      [await post(origin, { ...cell, table: { schema: 'public', name: 'other' }, permission: { columns: ['id'], filter: {} } }), 400, {
        code: 'table-not-found', error: "table public.other is not tracked in the project's metadata", path: '$.table',
        hint: "run 'engine metadata export' if it was tracked on the engine",
      }],
    ];
    for (const [res, status, body] of cases) {
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual(body);
    }
    const rejected = await post(origin, { ...cell, permission: { columns: ['id', 'nope'], filter: {} } });
    expect(rejected.status).toBe(400);
    const r = (await rejected.json()) as { code: string; error: string; path: string; objects: { kind: string; name: string; reason: string }[] };
    expect(r.objects.map((o) => [o.kind, o.name])).toEqual([['select_permission', 'public.note.reader']]);
    expect(r.objects[0]?.reason).toContain('nope');
    expect(r.path).toMatch(/^\$/);
    expect(snapshot(join(dir, 'metadata'))).toEqual(files);
    expect(await e.state()).toEqual(before);
  });

  it('a dry run writes nothing; an edit is written then applied; removing the last permission drops the key', async () => {
    const dir = await project();
    const { origin } = await startConsole(dir, env);
    const files = snapshot(join(dir, 'metadata'));
    const cell = { table: { schema: 'public', name: 'note' }, role: 'reader', type: 'select' };
    const dry = await post(origin, { ...cell, permission: { columns: ['id', 'body'], filter: {} }, dry_run: true });
    expect(await dry.json()).toEqual({ ok: true, dry_run: true, written: [], applied: false, inconsistent: [], whole_project: false });
    expect(snapshot(join(dir, 'metadata'))).toEqual(files);
    const removed = await post(origin, { ...cell, permission: null });
    expect(await removed.json()).toEqual({ ok: true, dry_run: false, written: ['tables.yaml'], applied: true, inconsistent: [], whole_project: false });
    expect(readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8')).not.toContain('select_permissions');
    const doc = (await e.ok({ type: 'export_metadata', args: {} })) as { tables: Record<string, unknown>[] };
    expect(doc.tables.find((t) => (t['table'] as { name: string }).name === 'note')?.['select_permissions']).toBeUndefined();
  });

  it('a port in use is an error with a hint', async () => {
    const dir = await project();
    const port = await busyPort();
    const p = run(['console', '--no-browser', '--port', String(port)], dir, env);
    expect(await finished(p)).toBe(1);
    expect(p.err()).toContain(`port ${port} is already in use`);
    expect(p.err()).toContain('pass --port with another port, or 0 for a free one');
    const bad = await cli(['console', '--no-browser', '--port', 'abc', '-o', 'json'], { cwd: dir, env });
    expect(bad.code, show(bad)).toBe(64);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, error: { code: 'invalid-flag', message: '--port must be a TCP port (0-65535), not "abc"' } });
  });
});
