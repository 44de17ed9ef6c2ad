/**
 * `engine console`'s edits with the real bin and a real engine (issue 34): a permission edit rewrites only its table's
 * lines and reaches the engine through the cell's own operations; when the engine or the files moved in between, the
 * edit brings the engine to the files; a schema change becomes a migration under migrations/ and is applied, or nothing
 * is written. Every refusal leaves the files and the engine as they were.
 */
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, initProject, show, snapshot, tempDir, useTestEngine } from './cli-helpers.js';
import { stopAll } from './process-helpers.js';
import { startConsole } from '../browser/browser-helpers.js';

const SECRET = 'edits-secret';
const e = useTestEngine({ adminSecret: SECRET });
const env = { ENGINE_GRAPHQL_ADMIN_SECRET: SECRET };
afterEach(stopAll);

const NOTE = { schema: 'public', name: 'note' };

async function project(): Promise<string> {
  await e.sql('create table note (id int primary key, body text); create table other (id int primary key, label text);');
  await e.ok({ type: 'bulk', args: [
    { type: 'track_table', args: { table: 'note' } },
    { type: 'track_table', args: { table: 'other' } },
    { type: 'create_select_permission', args: { table: 'note', role: 'reader', permission: { columns: ['id', 'body'], filter: {} } } },
    { type: 'create_select_permission', args: { table: 'other', role: 'reader', permission: { columns: ['id'], filter: {} } } },
  ] });
  const { dir } = await initProject(e.url, 'proj', env);
  const r = await cli(['metadata', 'export'], { cwd: dir, env });
  expect(r.code, show(r)).toBe(0);
  const file = join(dir, 'metadata/tables.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^(- table:\n\s+schema: public\n\s+name: other\n)/m, '# other: kept as it is\n$1'));
  expect(readFileSync(file, 'utf8')).toContain('# other: kept as it is\n- table:');
  return dir;
}

const call = async (origin: string, route: string, body: unknown) => {
  const res = await fetch(`${origin}/console/api/${route}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-admin-secret': SECRET }, body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** A request's headers as a proxy passes them on: those of the connection itself stay behind. */
const forwarded = (h: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(h).filter(([k, v]) => typeof v === 'string' && !['host', 'connection', 'content-length', 'keep-alive', 'transfer-encoding'].includes(k)) as [string, string][]);

type Doc = { tables: { table: { name: string }; [k: string]: unknown }[] };
const engineTable = async (name: string) => ((await e.ok({ type: 'export_metadata', args: {} })) as Doc).tables.find((t) => t.table.name === name);
const version = async () => Number((await e.query({ type: 'export_metadata', args: {} })).headers.get('x-engine-resource-version'));

describe('engine console: permission edits', () => {
  it('rewrites only the table that changed and applies the one cell; a dry run changes nothing', async () => {
    const dir = await project();
    const { origin } = await startConsole(dir, env);
    const file = join(dir, 'metadata/tables.yaml');
    const before = readFileSync(file, 'utf8');
    const otherPart = before.slice(before.indexOf('# other: kept as it is'));
    const files = snapshot(join(dir, 'metadata'));
    const state = await e.state();

    const dry = await call(origin, 'permission', { table: NOTE, role: 'writer', type: 'select', permission: { columns: ['id'], filter: { id: { _gt: 0 } } }, dry_run: true });
    expect(dry).toEqual({ status: 200, body: { ok: true, dry_run: true, written: [], applied: false, inconsistent: [], whole_project: false } });
    const badDry = await call(origin, 'permission', { table: NOTE, role: 'writer', type: 'select', permission: { columns: ['id', 'nope'], filter: {} }, dry_run: true });
    expect(badDry.status).toBe(400);
    expect((badDry.body['objects'] as { kind: string; name: string; reason: string }[]).map((o) => [o.kind, o.name])).toEqual([['select_permission', 'public.note.writer']]);
    expect(String(badDry.body['error'])).toContain('nope');
    expect(snapshot(join(dir, 'metadata'))).toEqual(files);
    expect(await e.state()).toEqual(state);

    const v0 = await version();
    const saved = await call(origin, 'permission', { table: NOTE, role: 'reader', type: 'select', permission: { columns: ['id'], filter: { id: { _gt: 0 } }, limit: 5 } });
    expect(saved).toEqual({ status: 200, body: { ok: true, dry_run: false, written: ['tables.yaml'], applied: true, inconsistent: [], whole_project: false } });
    // One request on the engine: the cell's drop and create in one bulk.
    expect(await version()).toBe(v0 + 1);
    const after = readFileSync(file, 'utf8');
    expect(after.slice(after.indexOf('# other: kept as it is'))).toBe(otherPart);
    expect(after).toContain('limit: 5');
    expect((await engineTable('note'))?.['select_permissions']).toEqual([{ role: 'reader', permission: { columns: ['id'], filter: { id: { _gt: 0 } }, limit: 5 } }]);
    const diff = await cli(['metadata', 'diff', '--exit-code'], { cwd: dir, env });
    expect(diff.code, show(diff)).toBe(0);

    // A new cell on the other table, then its removal: the key goes, the first table's lines stay.
    const added = await call(origin, 'permission', { table: { schema: 'public', name: 'other' }, role: 'writer', type: 'delete', permission: { filter: {} } });
    expect(added.status).toBe(200);
    expect((await engineTable('other'))?.['delete_permissions']).toEqual([{ role: 'writer', permission: { filter: {} } }]);
    const removed = await call(origin, 'permission', { table: { schema: 'public', name: 'other' }, role: 'writer', type: 'delete', permission: null });
    expect(removed.body['written']).toEqual(['tables.yaml']);
    expect(readFileSync(file, 'utf8')).toBe(after);
    expect((await engineTable('other'))?.['delete_permissions']).toBeUndefined();
  });

  it('the engine or the files moved since: the edit brings the engine to the files', async () => {
    const dir = await project();
    const { origin } = await startConsole(dir, env);
    const file = join(dir, 'metadata/tables.yaml');
    const whole = async (permission: unknown) => {
      const r = await call(origin, 'permission', { table: NOTE, role: 'reader', type: 'select', permission });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body['whole_project'];
    };
    expect(await whole({ columns: ['id'], filter: {} })).toBe(false);
    // Changed on the engine behind the console's back: the files win at the next edit.
    await e.ok({ type: 'create_insert_permission', args: { table: 'note', role: 'stray', permission: { columns: ['id'], check: {} } } });
    expect(await whole({ columns: ['id', 'body'], filter: {} })).toBe(true);
    expect((await engineTable('note'))?.['insert_permissions']).toBeUndefined();
    expect((await engineTable('note'))?.['select_permissions']).toEqual([{ role: 'reader', permission: { columns: ['id', 'body'], filter: {} } }]);
    // Changed in the files by hand (not applied): the next edit applies them with it.
    writeFileSync(file, readFileSync(file, 'utf8').replace('# other: kept as it is\n', '# other: kept as it is\n# a note of the user\n'));
    // A comment only: the files mean what the engine holds, so the cell alone is applied.
    expect(await whole({ columns: ['id'], filter: {} })).toBe(false);
    expect(readFileSync(file, 'utf8')).toContain('# a note of the user\n');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^(- table:\n\s+schema: public\n\s+name: other\n)/m, '$1  delete_permissions:\n    - role: editor\n      permission:\n        filter: {}\n'));
    expect(await whole({ columns: ['body'], filter: {} })).toBe(true);
    expect((await engineTable('other'))?.['delete_permissions']).toEqual([{ role: 'editor', permission: { filter: {} } }]);
    const diff = await cli(['metadata', 'diff', '--exit-code'], { cwd: dir, env });
    expect(diff.code, show(diff)).toBe(0);
    // In step again: the next edit is the cell's alone.
    expect(await whole({ columns: ['id', 'body'], filter: {} })).toBe(false);
  });

  it('a writer between the console\'s check and its bulk: the engine refuses the cell, and the edit brings it to the files', async () => {
    const dir = await project();
    // The console reaches the engine through a proxy that, before passing on the first bulk sent at a resource_version
    // (the cell's drop and create), makes another write on the engine: the race the version check closes.
    let raced = 0;
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void (async () => {
        const body = Buffer.concat(chunks);
        let sent: { type?: unknown; resource_version?: unknown } = {};
        try { sent = JSON.parse(body.toString('utf8')) as typeof sent; } catch { /* not JSON: passed on as it is */ }
        if (raced === 0 && sent.type === 'bulk' && sent.resource_version !== undefined) {
          raced += 1;
          await e.ok({ type: 'create_insert_permission', args: { table: 'note', role: 'stray', permission: { columns: ['id'], check: {} } } });
        }
        const answer = await fetch(`${e.url}${req.url ?? '/'}`, { method: req.method, headers: forwarded(req.headers), ...(req.method === 'GET' ? {} : { body }) });
        const headers: Record<string, string> = {};
        answer.headers.forEach((v, k) => { if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) headers[k] = v; });
        res.writeHead(answer.status, headers).end(Buffer.from(await answer.arrayBuffer()));
      })().catch(() => res.destroy()));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    try {
      const config = join(dir, 'config.yaml');
      writeFileSync(config, readFileSync(config, 'utf8').replace(e.url, `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`));
      const { origin } = await startConsole(dir, env);
      const r = await call(origin, 'permission', { table: NOTE, role: 'reader', type: 'select', permission: { columns: ['id'], filter: {} } });
      expect(raced).toBe(1);
      expect(r).toEqual({ status: 200, body: { ok: true, dry_run: false, written: ['tables.yaml'], applied: true, inconsistent: [], whole_project: true } });
      // The stray write did not survive under the edit: the engine holds the files' document with the edit.
      expect((await engineTable('note'))?.['insert_permissions']).toBeUndefined();
      expect((await engineTable('note'))?.['select_permissions']).toEqual([{ role: 'reader', permission: { columns: ['id'], filter: {} } }]);
      const diff = await cli(['metadata', 'diff', '--exit-code'], { cwd: dir, env });
      expect(diff.code, show(diff)).toBe(0);
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  it('an edit the engine refuses puts the file back, and the next edit still works', async () => {
    const dir = await project();
    const { origin } = await startConsole(dir, env);
    // In sync first (the first edit compares the whole document once).
    expect((await call(origin, 'permission', { table: NOTE, role: 'reader', type: 'select', permission: { columns: ['id'], filter: {} } })).status).toBe(200);
    const files = snapshot(join(dir, 'metadata'));
    const state = await e.state();
    const refused = await call(origin, 'permission', { table: NOTE, role: 'reader', type: 'select', permission: { columns: ['id'], filter: { nope: { _eq: 1 } } } });
    expect(refused.status).toBe(400);
    expect(refused.body['objects']).toEqual([{ kind: 'select_permission', name: 'public.note.reader', reason: expect.stringContaining('nope') as unknown }]);
    expect(String(refused.body['path'])).toMatch(/^\$/);
    expect(snapshot(join(dir, 'metadata'))).toEqual(files);
    expect(await e.state()).toEqual(state);
    const invalid = await call(origin, 'permission', { table: NOTE, role: 'reader', type: 'select', permission: { columns: 'id', filter: {} } });
    expect(invalid.status).toBe(400);
    expect(invalid.body['path']).toBe('$.permission.columns');
    expect(snapshot(join(dir, 'metadata'))).toEqual(files);
    expect(await e.state()).toEqual(state);
    expect((await call(origin, 'permission', { table: NOTE, role: 'reader', type: 'select', permission: { columns: ['body'], filter: {} } })).status).toBe(200);
    expect((await engineTable('note'))?.['select_permissions']).toEqual([{ role: 'reader', permission: { columns: ['body'], filter: {} } }]);
  });

  it('config version 3: the edit goes to the table\'s own file, its comments kept', async () => {
    const dir = join(await tempDir('engine-v3-console-'), 'project');
    cpSync(new URL('../fixtures/projects/layout-v3', import.meta.url).pathname, dir, { recursive: true });
    const v3env = { ...env, ENGINE_GRAPHQL_ENDPOINT: e.url };
    for (const args of [['migrate', 'apply'], ['metadata', 'apply']]) {
      const r = await cli(args, { cwd: dir, env: v3env });
      expect(r.code, show(r)).toBe(0);
    }
    const tables = join(dir, 'metadata/databases/default/tables');
    const article = readFileSync(join(tables, 'public_article.yaml'), 'utf8');
    const author = readFileSync(join(tables, 'public_author.yaml'), 'utf8');
    const { origin } = await startConsole(dir, v3env);
    const r = await call(origin, 'permission', { table: { schema: 'public', name: 'author' }, role: 'editor', type: 'update', permission: { columns: ['name'], filter: {}, check: {} } });
    expect(r).toEqual({ status: 200, body: { ok: true, dry_run: false, written: ['databases/default/tables/public_author.yaml'], applied: true, inconsistent: [], whole_project: false } });
    const now = readFileSync(join(tables, 'public_author.yaml'), 'utf8');
    expect(now.startsWith(author)).toBe(true);
    expect(now).toContain('# Writers: every article has one.\n');
    expect(now).toContain('  # Anyone may see who writes.\n');
    expect(now).toContain('update_permissions:');
    expect(readFileSync(join(tables, 'public_article.yaml'), 'utf8')).toBe(article);
    expect((await engineTable('author'))?.['update_permissions']).toEqual([{ role: 'editor', permission: { columns: ['name'], filter: {}, check: {} } }]);
  });
});

describe('engine console: schema changes are migrations', () => {
  it('writes the migration, applies it with its state row, and rewrites metadata the SQL changed', async () => {
    const dir = await project();
    const { origin } = await startConsole(dir, env);
    const r = await call(origin, 'migration', { name: 'add_tag', up: 'create table tag (id int primary key);\n', down: 'drop table tag;\n' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const directory = String(r.body['directory']);
    expect(directory).toMatch(/^migrations\/(default\/)?\d+_add_tag$/);
    expect(r.body).toEqual({ ok: true, version: directory.replace(/^.*\/(\d+)_add_tag$/, '$1'), directory, metadata_written: [], metadata_not_written: false });
    expect(readFileSync(join(dir, directory, 'up.sql'), 'utf8')).toBe('create table tag (id int primary key);\n');
    expect(readFileSync(join(dir, directory, 'down.sql'), 'utf8')).toBe('drop table tag;\n');
    const status = await cli(['migrate', 'status', '-o', 'json'], { cwd: dir, env });
    expect(status.code, show(status)).toBe(0);
    expect(status.stdout).toContain('"applied"');
    expect(await e.sql("select to_regclass('public.tag')::text as t")).toMatchObject({ result: [['t'], ['tag']] });

    // A rename under a permission: the engine renames it in its metadata, and tables.yaml follows.
    const renamed = await call(origin, 'migration', { name: 'rename_body', up: 'alter table note rename column body to content;' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body['metadata_written']).toEqual(['tables.yaml']);
    const tablesYaml = readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8');
    expect(tablesYaml).toContain('content');
    expect(tablesYaml).not.toContain('body');
    expect(tablesYaml).toContain('# other: kept as it is\n');
    const diff = await cli(['metadata', 'diff', '--exit-code'], { cwd: dir, env });
    expect(diff.code, show(diff)).toBe(0);
  });

  it('refuses a bad name, empty SQL and SQL the database rejects: no migration written, nothing changed', async () => {
    const dir = await project();
    const { origin } = await startConsole(dir, env);
    const files = snapshot(dir);
    const state = await e.state();
    const cases: [unknown, Record<string, unknown>][] = [
      [{ name: 'bad name', up: 'select 1' }, { code: 'invalid-edit', error: 'expected a migration name of letters, digits, "_" and "-"', path: '$.name' }],
      [{ name: 'empty', up: '  ' }, { code: 'invalid-edit', error: 'expected the SQL to run', path: '$.up' }],
      [{ name: 'down', up: 'select 1', down: 3 }, { code: 'invalid-edit', error: 'expected the SQL that undoes it, or nothing', path: '$.down' }],
    ];
    for (const [body, expected] of cases) expect(await call(origin, 'migration', body)).toEqual({ status: 400, body: expected });
    const failed = await call(origin, 'migration', { name: 'again', up: 'create table note (id int);' });
    expect(failed.status).toBe(400);
    expect(failed.body).toMatchObject({ code: 'migration-failed', path: '$.up' });
    expect(String(failed.body['error'])).toMatch(/^migration \d+_again failed: .*"note" already exists/);
    const typo = await call(origin, 'migration', { name: 'typo', up: '-- a typo below\ncreat table x (id int);' });
    expect(typo.status).toBe(400);
    expect(typo.body).toMatchObject({ code: 'migration-failed', path: '$.up', line: 2, column: 1 });
    expect(String(typo.body['error'])).toContain('syntax error at or near "creat"');
    expect(snapshot(dir)).toEqual(files);
    expect(await e.state()).toEqual(state);
    const migrations = join(dir, 'migrations');
    if (existsSync(migrations)) expect(readdirSync(migrations, { recursive: true }).filter((n) => /again|typo/.test(String(n)))).toEqual([]);
  });
});
