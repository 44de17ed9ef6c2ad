import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { permissionOf, tablePage } from '../../src/metadata/table-page.js';
import { consoleAsset } from '../../src/server/console/assets.js';

const doc = {
  version: 2,
  tables: [
    { table: { schema: 'public', name: 'b' }, insert_permissions: [{ role: 'user', permission: { check: { id: { _eq: 1 } }, columns: [] } }] },
    { table: { schema: 'app', name: 'a' }, configuration: { custom_name: 'A', custom_root_fields: { select: 'allA' } } },
    { table: { schema: 'public', name: 'a' }, select_permissions: [{ role: 'anon', permission: { columns: ['id'], filter: {} } }],
      update_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {}, check: { id: { _gt: 0 } } } }] },
  ],
};

describe('tablePage', () => {
  it('sorts by schema and name, searches case-insensitively, pages and lists every role', () => {
    const all = tablePage(doc, '', 0, 10);
    expect(all.total).toBe(3);
    expect(all.roles).toEqual(['anon', 'user']);
    expect(all.tables.map((t) => `${t.schema}.${t.name}`)).toEqual(['app.a', 'public.a', 'public.b']);
    expect(all.tables[0]).toMatchObject({ typeName: 'A', selectField: 'allA', insertOneField: 'insert_A_one', updateField: 'update_A', deleteField: 'delete_A', cells: {} });
    expect(all.tables[1]?.cells).toEqual({ anon: { select: 'all' }, user: { update: 'filter' } });
    expect(all.tables[2]?.cells).toEqual({ user: { insert: 'filter' } });
    expect(tablePage(doc, 'PUBLIC.', 1, 1)).toMatchObject({ total: 2, offset: 1, tables: [{ name: 'b' }] });
    expect(tablePage(doc, '', 99, 10)).toMatchObject({ total: 3, offset: 3, tables: [] });
    expect(tablePage(null, '', 0, 10)).toEqual({ total: 0, offset: 0, limit: 10, roles: [], tables: [] });
  });

  it('finds one cell', () => {
    expect(permissionOf(doc, 'public', 'a', 'anon', 'select')).toEqual({ columns: ['id'], filter: {} });
    expect(permissionOf(doc, 'public', 'a', 'anon', 'insert')).toBeNull();
    expect(permissionOf(doc, 'nope', 'a', 'anon', 'select')).toBeNull();
  });
});

describe('consoleAsset', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-assets-'));
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'index.html'), '<html>');
  writeFileSync(join(dir, 'app.js'), 'js');
  writeFileSync(join(dir, 'chunk-ABCDEF12.js'), 'chunk');

  it('serves files, index.html for the app routes, and nothing outside the console', () => {
    expect(consoleAsset('/console/app.js', dir)).toEqual({ type: 'text/javascript; charset=utf-8', body: Buffer.from('js'), immutable: false });
    expect(consoleAsset('/console/chunk-ABCDEF12.js', dir)?.immutable).toBe(true);
    for (const p of ['/console', '/console/', '/console/tables/public.a']) expect(consoleAsset(p, dir)?.body.toString()).toBe('<html>');
    expect(consoleAsset('/console/missing.js', dir)).toBeNull();
    expect(consoleAsset('/console/../escape.js', dir)).toBeNull();
    // Not a file type of the bundle: an app route, answered with index.html (never the file).
    expect(consoleAsset('/console/../package.json', dir)?.body.toString()).toBe('<html>');
    expect(consoleAsset('/consoles', dir)).toBeNull();
    expect(consoleAsset('/v1/graphql', dir)).toBeNull();
    // `engine console`'s API is not the engine's: a 404, never index.html taken for its JSON.
    for (const p of ['/console/api', '/console/api/info', '/console/api/tables']) expect(consoleAsset(p, dir)).toBeNull();
    expect(consoleAsset('/console/apis', dir)?.body.toString()).toBe('<html>');
  });
});
