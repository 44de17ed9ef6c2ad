import { describe, expect, it } from 'vitest';
import { exported, qt, write } from '../helpers/assertions.js';
import { create, drop, INVOICE, permissionsDoc, setComment, usePermissionsEngine, type Obj, type Perms } from './permissions-fixtures.js';

// engine-api.md §4.3 (permissions), §6.1–§6.3 (export shape of permissions): creating, dropping and commenting.
// Errors: permissions-errors.test.ts. Dependencies, renames and replace_metadata: permissions-deps.test.ts.

const e = usePermissionsEngine();

// The exported document: the tables of the setup with the given permission lists (§6.1 key order, §6.3 table order).
const BASE: [string, Obj][] = [
  ['billing.invoice', { table: INVOICE }],
  ['article', { table: qt('article'), object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] }],
  ['article_counts', { table: qt('article_counts') }],
  ['article_titles', { table: qt('article_titles') }],
  ['author', {
    table: qt('author'),
    array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } } }],
    computed_fields: [
      { name: 'full_name', definition: { function: qt('author_full_name') } },
      { name: 'latest', definition: { function: qt('author_latest') } },
    ],
  }],
];
const doc = (perms: Record<string, Perms> = {}): string => permissionsDoc(BASE, perms);

describe('creating, dropping and commenting permissions', () => {
  it('creates permissions of every kind and exports them in the §6.1 shape, sorted by role', async () => {
    const example = { author_id: 'X-Engine-User-Id', $or: [{ published: true }, { category: { $neq: 'editorial' } }], author: { active: { _eq: true } } };
    await write(e, create('insert', 'article', 'user', {
      set: { published: false, author_id: 'X-Engine-User-Id' }, columns: ['title', 'category', 'author_id'],
      check: { title: { _ilike: '%x%' }, author_id: { _eq: 'X-Engine-User-Id' } },
    }, { comment: 'own articles' }));
    await write(e, create('insert', { name: 'article' }, 'anon', { check: {} }));
    await write(e, create('insert', { schema: 'public', name: 'article' }, 'editor', { check: {}, columns: '*', set: {} }, { comment: null }));
    await write(e, create('select', 'article', 'user', { filter: example, columns: ['id', 'title'], limit: 10, allow_aggregations: false, computed_fields: [] }));
    await write(e, create('select', 'article', 'Zed', { columns: [], filter: { id: { _in: [3, 1, 2], _gte: 0 } }, limit: null }));
    await write(e, create('select', { schema: 'public', name: 'author' }, 'user', { columns: '*', computed_fields: ['full_name'], filter: {}, allow_aggregations: true }));
    await write(e, create('update', 'article', 'user', { columns: ['title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } } }));
    await write(e, create('update', 'article', 'editor', {
      set: { published: true, editor_id: 'x-engine-user-id' }, check: { published: { _eq: true } }, filter: {}, columns: '*',
    }, { comment: '' }));
    await write(e, create('update', 'article', 'anon', { columns: ['title'], filter: {}, check: null }));
    await write(e, create('delete', 'article', 'user', { filter: { author_id: 'X-Engine-User-Id', _not: { published: { _eq: true } } } }));
    await write(e, create('delete', { schema: 'billing', name: 'invoice' }, 'user', { filter: { total: { _lte: 100, _gt: 0 } } }, { comment: 'small' }));
    await write(e, create('select', 'article_counts', 'user', { columns: ['n'], filter: { n: { _gt: 1 } } }));
    const x = await exported(e);
    expect(x.version).toBe('14');
    expect(x.text).toBe(doc({
      'billing.invoice': { delete: [{ role: 'user', permission: { filter: { total: { _gt: 0, _lte: 100 } } }, comment: 'small' }] },
      article: {
        insert: [
          { role: 'anon', permission: { check: {} } },
          { role: 'editor', permission: { check: {}, columns: '*' } },
          {
            role: 'user',
            permission: { check: { author_id: { _eq: 'X-Engine-User-Id' }, title: { _ilike: '%x%' } }, set: { author_id: 'X-Engine-User-Id', published: false }, columns: ['title', 'category', 'author_id'] },
            comment: 'own articles',
          },
        ],
        select: [
          { role: 'Zed', permission: { columns: [], filter: { id: { _gte: 0, _in: [3, 1, 2] } } } },
          {
            role: 'user',
            permission: {
              columns: ['id', 'title'],
              filter: { $or: [{ published: true }, { category: { $neq: 'editorial' } }], author: { active: { _eq: true } }, author_id: 'X-Engine-User-Id' },
              limit: 10,
            },
          },
        ],
        update: [
          { role: 'anon', permission: { columns: ['title'], filter: {}, check: null } },
          { role: 'editor', permission: { columns: '*', filter: {}, check: { published: { _eq: true } }, set: { editor_id: 'x-engine-user-id', published: true } }, comment: '' },
          { role: 'user', permission: { columns: ['title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } }, check: null } },
        ],
        delete: [{ role: 'user', permission: { filter: { _not: { published: { _eq: true } }, author_id: 'X-Engine-User-Id' } } }],
      },
      article_counts: { select: [{ role: 'user', permission: { columns: ['n'], filter: { n: { _gt: 1 } } } }] },
      author: { select: [{ role: 'user', permission: { columns: '*', computed_fields: ['full_name'], filter: {}, allow_aggregations: true } }] },
    }));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('stores `_exists` table names given as strings in the QT form {"schema","name"} (§6.1, §6.2)', async () => {
    await write(e, create('select', INVOICE, 'user', {
      columns: ['id'], filter: { $exists: { _where: { id: { _eq: 'X-Engine-User-Id' } }, _table: 'author' } },
    }));
    await write(e, create('delete', INVOICE, 'user', { filter: { _exists: { _table: { name: 'author', schema: 'public' }, _where: {} } } }));
    expect((await exported(e)).text).toBe(doc({ 'billing.invoice': {
      select: [{ role: 'user', permission: { columns: ['id'], filter: { $exists: { _table: { schema: 'public', name: 'author' }, _where: { id: { _eq: 'X-Engine-User-Id' } } } } } }],
      delete: [{ role: 'user', permission: { filter: { _exists: { _table: { schema: 'public', name: 'author' }, _where: {} } } } }],
    } }));
  });

  it('drops permissions of every kind, leaving other roles and kinds alone', async () => {
    const baseline = (await exported(e)).text;
    await write(e, create('insert', 'article', 'user', { check: {} }));
    await write(e, create('select', 'article', 'user', { columns: '*', filter: {} }));
    await write(e, create('select', 'article', 'anon', { columns: ['id'], filter: {} }));
    await write(e, create('update', INVOICE, 'user', { columns: '*', filter: {} }));
    await write(e, create('delete', 'article_titles', 'user', { filter: {} }));
    await write(e, drop('select', 'article', 'user'));
    expect((await exported(e)).text).toBe(doc({
      'billing.invoice': { update: [{ role: 'user', permission: { columns: '*', filter: {}, check: null } }] },
      article: { insert: [{ role: 'user', permission: { check: {} } }], select: [{ role: 'anon', permission: { columns: ['id'], filter: {} } }] },
      article_titles: { delete: [{ role: 'user', permission: { filter: {} } }] },
    }));
    await write(e, drop('insert', { name: 'article' }, 'user'));
    await write(e, drop('select', { schema: 'public', name: 'article' }, 'anon'));
    await write(e, drop('update', { schema: 'billing', name: 'invoice' }, 'user'));
    await write(e, drop('delete', 'article_titles', 'user'));
    expect((await exported(e)).text).toBe(baseline);
    // Dropped permissions can be created again.
    await write(e, create('select', 'article', 'user', { columns: '*', filter: {} }));
  });

  it('set_permission_comment sets, replaces and removes comments with `type` or `permission` (§4.3.4)', async () => {
    const sel = { columns: ['id'], filter: {} };
    await write(e, create('select', 'article', 'user', sel, { comment: 'a' }));
    await write(e, create('insert', INVOICE, 'user', { check: {} }));
    const current = async () => JSON.parse((await exported(e)).text);
    const articlePerm = async () => (await current()).tables[1].select_permissions;
    await write(e, setComment({ table: 'article', role: 'user', type: 'select', comment: 'b' }));
    expect(await articlePerm()).toEqual([{ role: 'user', permission: sel, comment: 'b' }]);
    await write(e, setComment({ table: { name: 'article' }, role: 'user', permission: 'select', comment: 'c' }));
    expect(await articlePerm()).toEqual([{ role: 'user', permission: sel, comment: 'c' }]);
    await write(e, setComment({ table: 'article', role: 'user', type: 'select', comment: null }));
    expect((await exported(e)).text).toBe(doc({
      article: { select: [{ role: 'user', permission: sel }] },
      'billing.invoice': { insert: [{ role: 'user', permission: { check: {} } }] },
    }));
    await write(e, setComment({ table: 'article', role: 'user', permission: 'select', comment: '' }));
    expect(await articlePerm()).toEqual([{ role: 'user', permission: sel, comment: '' }]);
    await write(e, setComment({ table: 'article', role: 'user', permission: 'select' }));
    expect(await articlePerm()).toEqual([{ role: 'user', permission: sel }]);
    await write(e, setComment({ table: { schema: 'billing', name: 'invoice' }, role: 'user', type: 'insert', comment: 'ünïcode 😀' }));
    expect((await exported(e)).text).toBe(doc({
      article: { select: [{ role: 'user', permission: sel }] },
      'billing.invoice': { insert: [{ role: 'user', permission: { check: {} }, comment: 'ünïcode 😀' }] },
    }));
  });

  it('accepts presets: session-variable references in any case and "NOW()" on date/time columns (§4.3.2, §4.4.3)', async () => {
    await write(e, create('insert', 'article', 'user', {
      check: {},
      set: { title: 'NOW()', published_on: 'now()', editor_id: 'x-engine-user-id', created_at: 'NOW()', author_id: 'X-ENGINE-USER-ID', category: 'X-Engine-Category', id: '42' },
    }));
    await write(e, create('update', 'article', 'user', { columns: ['title'], filter: {}, set: { created_at: 'Now()', published: 't' } }));
    await write(e, create('insert', 'author', 'user', { check: {}, set: { info: { any: ['json'] }, active: false, created_at: '2024-05-01T10:00:00Z' } }));
    expect((await exported(e)).text).toBe(doc({
      article: {
        insert: [{ role: 'user', permission: { check: {}, set: {
          author_id: 'X-ENGINE-USER-ID', category: 'X-Engine-Category', created_at: 'NOW()', editor_id: 'x-engine-user-id', id: '42', published_on: 'now()', title: 'NOW()',
        } } }],
        update: [{ role: 'user', permission: { columns: ['title'], filter: {}, check: null, set: { created_at: 'Now()', published: 't' } } }],
      },
      author: { insert: [{ role: 'user', permission: { check: {}, set: { active: false, created_at: '2024-05-01T10:00:00Z', info: { any: ['json'] } } } }] },
    }));
  });

  it('allows insert, update and delete permissions on a view PostgreSQL can write through', async () => {
    await write(e, create('insert', 'article_titles', 'user', { check: { id: { _gt: 0 } }, columns: ['id', 'title'] }));
    await write(e, create('update', 'article_titles', 'user', { columns: ['title'], filter: {} }));
    await write(e, create('delete', 'article_titles', 'user', { filter: { title: { _is_null: true } } }));
    await write(e, create('select', 'article_titles', 'user', { columns: '*', filter: {} }));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });
});
