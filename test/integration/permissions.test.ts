import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { err, expectError, exported, qt, write } from '../helpers/assertions.js';

// engine-api.md §4.3 (permissions), §4.4 (BoolExp reasons through the API), §3.4 (constraint violations),
// §6.1–§6.3 (export shape of permissions), §7 rows 14, 15, 20, 24, 41–46.
// Dependencies, renames and replace_metadata: permissions-deps.test.ts.

let e: TestEngine;
beforeAll(async () => {
  e = await startTestEngine();
});
afterAll(async () => e?.close());
beforeEach(async () => {
  await e.reset();
  await e.sql(`create table author (id int primary key, name text, active boolean default true, info jsonb, created_at timestamptz);
    create table article (id int primary key, author_id int references author(id), editor_id int, title text, category text,
      published boolean default false, created_at timestamptz, published_on date);
    create table secret (id int primary key);
    create view article_titles as select id, title from article;
    create view article_counts as select author_id, count(*) as n from article group by author_id;
    create schema billing;
    create table billing.invoice (id int primary key, customer_id int references author(id), total int);
    create function author_full_name(a author) returns text stable language sql as $$ select a.name $$;
    create function author_latest(a author) returns setof article stable language sql as $$ select * from article where author_id = a.id $$;`);
  await e.ok({ type: 'bulk', args: [
    ...['author', 'article', 'article_titles', 'article_counts', { schema: 'billing', name: 'invoice' }].map((t) => ({ type: 'track_table', args: t })),
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
    { type: 'add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'author_full_name' } } },
    { type: 'add_computed_field', args: { table: 'author', name: 'latest', definition: { function: 'author_latest' } } },
  ] });
});

type Kind = 'insert' | 'select' | 'update' | 'delete';
type Q = string | { schema?: string; name: string };
type Obj = Record<string, unknown>;
const KINDS: Kind[] = ['insert', 'select', 'update', 'delete'];
const qtOf = (t: Q) => (typeof t === 'string' ? qt(t) : qt(t.name, t.schema));
const tableText = (t: Q) => (qtOf(t).schema === 'public' ? qtOf(t).name : `${qtOf(t).schema}.${qtOf(t).name}`);
const INVOICE = qt('invoice', 'billing');

const create = (kind: Kind, table: Q, role: string, permission: unknown, extra: Obj = {}) =>
  ({ type: `create_${kind}_permission`, args: { table, role, permission, ...extra } });
const drop = (kind: Kind, table: Q, role: string) => ({ type: `drop_${kind}_permission`, args: { table, role } });
const setComment = (args: Obj) => ({ type: 'set_permission_comment', args });

const cmp = (a: string, b: string) => {
  const x = [...a].map((c) => c.codePointAt(0) as number);
  const y = [...b].map((c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
};
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A BoolExp as stored (§6.2, §6.3): keys sorted at every level, operators as written, `_exists._table` as a QT. */
function boolExp(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(boolExp);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const k of Object.keys(v).sort(cmp)) {
    const x = v[k];
    out[k] = (k === '_exists' || k === '$exists') && isObj(x) ? existsValue(x) : boolExp(x);
  }
  return out;
}
function existsValue(x: Obj): Obj {
  const out: Obj = {};
  for (const k of Object.keys(x).sort(cmp)) {
    const v = x[k];
    out[k] = k === '_table' && (typeof v === 'string' || isObj(v)) ? qtOf(v as Q) : boolExp(v);
  }
  return out;
}
const sortedObj = (o: Obj) => Object.fromEntries(Object.keys(o).sort(cmp).map((k) => [k, o[k]]));

/** The §6.1/§6.2 form of a permission object. */
function stored(kind: Kind, p: Obj): Obj {
  const set = isObj(p['set']) && Object.keys(p['set']).length > 0 ? { set: sortedObj(p['set']) } : {};
  switch (kind) {
    case 'insert':
      return { check: boolExp(p['check']), ...set, ...(p['columns'] != null ? { columns: p['columns'] } : {}) };
    case 'select': {
      const cf = p['computed_fields'] as unknown[] | undefined;
      return {
        columns: p['columns'], ...(cf && cf.length > 0 ? { computed_fields: cf } : {}), filter: boolExp(p['filter']),
        ...(p['limit'] != null ? { limit: p['limit'] } : {}), ...(p['allow_aggregations'] === true ? { allow_aggregations: true } : {}),
      };
    }
    case 'update':
      return { columns: p['columns'], filter: boolExp(p['filter']), check: p['check'] == null ? null : boolExp(p['check']), ...set };
    case 'delete':
      return { filter: boolExp(p['filter']) };
  }
}

/** The §7 row 43 (or 41) body: `in table "t": in permission for role "r": <reason>` with one internal record. */
function violation(kind: Kind, table: Q, role: string, permission: Obj, reason: string, comment?: string): Obj {
  const error = `in table "${tableText(table)}": in permission for role "${role}": ${reason}`;
  const definition = { table: qtOf(table), role, permission: stored(kind, permission), ...(comment !== undefined ? { comment } : {}) };
  return { path: '$.args', error, code: 'constraint-violation', internal: [{ definition, reason: error, type: `${kind}_permission` }] };
}

async function rejects(kind: Kind, table: Q, role: string, permission: Obj, reason: string): Promise<void> {
  await expectError(e, create(kind, table, role, permission), 400, violation(kind, table, role, permission, reason));
}

// The exported document: the tables of the setup with the given permission lists (§6.1 key order, §6.3 table order).
type Perms = Partial<Record<Kind, unknown[]>>;
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
function doc(perms: Record<string, Perms> = {}): string {
  const tables = BASE.map(([key, entry]) => {
    const out: Obj = { ...entry };
    for (const kind of KINDS) {
      const list = perms[key]?.[kind];
      if (list && list.length > 0) out[`${kind}_permissions`] = list;
    }
    return out;
  });
  return JSON.stringify({ version: 2, tables });
}

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

describe('errors of create_<kind>_permission', () => {
  it('rejects an untracked table after all parse errors (§7 row 24)', async () => {
    for (const kind of KINDS) {
      const p = kind === 'insert' ? { check: {} } : { columns: '*', filter: {} };
      await expectError(e, create(kind, 'secret', 'user', p), 400, err('$.args.table', 'table "secret" does not exist', 'not-exists'));
      await expectError(e, create(kind, { schema: 'billing', name: 'nope' }, 'user', p), 400, err('$.args.table', 'table "billing.nope" does not exist', 'not-exists'));
      await expectError(e, drop(kind, 'nope', 'user'), 400, err('$.args.table', 'table "nope" does not exist', 'not-exists'));
      await expectError(e, setComment({ table: 'secret', role: 'user', type: kind, comment: 'x' }), 400, err('$.args.table', 'table "secret" does not exist', 'not-exists'));
    }
    await expectError(e, create('select', 'secret', 'user', { columns: '*', filter: {}, limit: 0 }), 400,
      err('$.args.permission.limit', 'expected an integer >= 1, encountered 0', 'parse-failed'));
    await expectError(e, create('select', 'nope', '', { columns: '*', filter: {} }), 400, err('$.args.role', 'role name cannot be empty', 'parse-failed'));
  });

  it('rejects malformed arguments with parse errors (§1.6, §7 rows 5, 6, 9, 14, 15)', async () => {
    const pf = (path: string, error: string) => err(path, error, 'parse-failed');
    const cases: [unknown, Obj][] = [
      [create('select', 'article', 'user', { columns: '*', filter: {}, limit: 0 }), pf('$.args.permission.limit', 'expected an integer >= 1, encountered 0')],
      [create('select', 'article', 'user', { columns: '*', filter: {}, limit: -3 }), pf('$.args.permission.limit', 'expected an integer >= 1, encountered -3')],
      [create('select', 'article', 'user', { columns: '*', filter: {}, limit: 1.5 }), pf('$.args.permission.limit', 'expected an integer >= 1, encountered 1.5')],
      [create('select', 'article', 'user', { columns: '*', filter: {}, limit: '10' }), pf('$.args.permission.limit', 'expected Number, encountered String')],
      [create('select', 'article', 'user', { columns: 'id', filter: {} }), pf('$.args.permission.columns', 'expected "*" or an array of column names, encountered "id"')],
      [create('select', 'article', 'user', { columns: ['id', 1], filter: {} }), pf('$.args.permission.columns', 'expected "*" or an array of column names, encountered ["id",1]')],
      [create('insert', 'article', 'user', { check: {}, columns: {} }), pf('$.args.permission.columns', 'expected "*" or an array of column names, encountered {}')],
      [create('update', 'article', 'user', { columns: true, filter: {} }), pf('$.args.permission.columns', 'expected "*" or an array of column names, encountered true')],
      [create('select', 'article', '', { columns: '*', filter: {} }), pf('$.args.role', 'role name cannot be empty')],
      [create('delete', 'article', 5 as unknown as string, { filter: {} }), pf('$.args.role', 'expected String, encountered Number')],
      [create('select', 'article', 'user', { columns: '*' }), pf('$.args.permission', 'the key "filter" was not present')],
      [create('update', 'article', 'user', { columns: '*' }), pf('$.args.permission', 'the key "filter" was not present')],
      [create('delete', 'article', 'user', {}), pf('$.args.permission', 'the key "filter" was not present')],
      [create('insert', 'article', 'user', { columns: '*' }), pf('$.args.permission', 'the key "check" was not present')],
      [create('select', 'article', 'user', { filter: {} }), pf('$.args.permission', 'the key "columns" was not present')],
      [create('update', 'article', 'user', { filter: {} }), pf('$.args.permission', 'the key "columns" was not present')],
      [{ type: 'create_select_permission', args: { table: 'article', role: 'user' } }, pf('$.args', 'the key "permission" was not present')],
      [{ type: 'create_select_permission', args: { table: 'article', permission: { columns: '*', filter: {} } } }, pf('$.args', 'the key "role" was not present')],
      [{ type: 'create_delete_permission', args: { role: 'user', permission: { filter: {} } } }, pf('$.args', 'the key "table" was not present')],
      [create('select', 'article', 'user', [{ columns: '*', filter: {} }]), pf('$.args.permission', 'expected Object, encountered Array')],
      [create('select', 'article', 'user', { columns: '*', filter: {}, allow_aggregations: 'yes' }), pf('$.args.permission.allow_aggregations', 'expected Boolean, encountered String')],
      [create('select', 'article', 'user', { columns: '*', filter: {}, computed_fields: 'full_name' }), pf('$.args.permission.computed_fields', 'expected Array, encountered String')],
      [create('insert', 'article', 'user', { check: {}, set: [] }), pf('$.args.permission.set', 'expected Object, encountered Array')],
      [create('delete', 'article', 'user', { filter: {} }, { comment: 5 }), pf('$.args.comment', 'expected String, encountered Number')],
      [drop('select', 'article', ''), pf('$.args.role', 'role name cannot be empty')],
      [{ type: 'drop_insert_permission', args: { table: 'article' } }, pf('$.args', 'the key "role" was not present')],
      [setComment({ table: 'article', role: '', type: 'select' }), pf('$.args.role', 'role name cannot be empty')],
      [setComment({ table: 'article', role: 'user', type: 'read' }), pf('$.args.type', 'expected one of "insert", "select", "update", "delete", encountered "read"')],
      [setComment({ table: 'article', role: 'user', permission: 'Select' }), pf('$.args.permission', 'expected one of "insert", "select", "update", "delete", encountered "Select"')],
    ];
    await write(e, create('select', 'article', 'user', { columns: '*', filter: {} }));
    for (const [body, expected] of cases) await expectError(e, body, 400, expected);
  });

  it('rejects the admin role before anything else (§7 row 41)', async () => {
    const perms: Record<Kind, Obj> = {
      insert: { check: { nope: 1 }, columns: ['nope'] },
      select: { columns: ['id'], filter: {}, limit: 5 },
      update: { columns: '*', filter: { id: 1 } },
      delete: { filter: {} },
    };
    for (const kind of KINDS) {
      await expectError(e, create(kind, 'article', 'admin', perms[kind]), 400,
        violation(kind, 'article', 'admin', perms[kind], 'cannot define permission for admin role'));
    }
    await expectError(e, create('delete', INVOICE, 'admin', { filter: {} }, { comment: 'c' }), 400,
      violation('delete', INVOICE, 'admin', { filter: {} }, 'cannot define permission for admin role', 'c'));
    // On a view nobody can write through, the admin check still comes first.
    await expectError(e, create('insert', 'article_counts', 'admin', { check: {} }), 400,
      violation('insert', 'article_counts', 'admin', { check: {} }, 'cannot define permission for admin role'));
  });

  it('rejects a second permission of the same kind for the same role, before resolving it (§7 row 42)', async () => {
    const valid: Record<Kind, Obj> = { insert: { check: {} }, select: { columns: '*', filter: {} }, update: { columns: '*', filter: {} }, delete: { filter: {} } };
    for (const kind of KINDS) await write(e, create(kind, 'article', 'user', valid[kind]));
    await write(e, create('select', INVOICE, 'user', valid.select));
    for (const kind of KINDS) {
      const exists = err('$.args', `'${kind}' permission on "article" for role "user" already exists`, 'already-exists');
      await expectError(e, create(kind, 'article', 'user', valid[kind]), 400, exists);
      await expectError(e, create(kind, { schema: 'public', name: 'article' }, 'user', { ...valid[kind], columns: ['nope'] }, { comment: 'other' }), 400, exists);
    }
    await expectError(e, create('select', { schema: 'billing', name: 'invoice' }, 'user', { columns: ['id'], filter: { nope: 1 } }), 400,
      err('$.args', `'select' permission on "billing.invoice" for role "user" already exists`, 'already-exists'));
  });

  it('rejects names that are not columns of the table (§4.3.3)', async () => {
    await rejects('insert', 'article', 'user', { check: {}, columns: ['id', 'nope'] }, 'column "nope" does not exist in table "article"');
    await rejects('select', 'article', 'user', { columns: ['id', 'author'], filter: {} }, 'column "author" does not exist in table "article"');
    await rejects('select', 'author', 'user', { columns: ['full_name'], filter: {} }, 'column "full_name" does not exist in table "author"');
    await rejects('update', 'article', 'user', { columns: ['title', 'Title'], filter: {} }, 'column "Title" does not exist in table "article"');
    await rejects('insert', 'article', 'user', { check: {}, set: { nope: 1 } }, 'column "nope" does not exist in table "article"');
    await rejects('update', 'article', 'user', { columns: '*', filter: {}, set: { author: 1 } }, 'column "author" does not exist in table "article"');
    await rejects('update', INVOICE, 'user', { columns: ['nope'], filter: {} }, 'column "nope" does not exist in table "billing.invoice"');
  });

  it('rejects unknown and table-returning computed fields (§4.3.3)', async () => {
    await rejects('select', 'author', 'user', { columns: '*', computed_fields: ['full_name', 'nope'], filter: {} }, 'computed field "nope" does not exist in table "author"');
    await rejects('select', 'author', 'user', { columns: '*', computed_fields: ['articles'], filter: {} }, 'computed field "articles" does not exist in table "author"');
    await rejects('select', 'author', 'user', { columns: '*', computed_fields: ['latest'], filter: {} },
      'select permissions on computed field "latest" are auto-derived from the permissions on its returning table "article" and cannot be specified manually');
  });

  it('rejects preset values that do not fit the column type (§4.3.2, §4.4.3)', async () => {
    await rejects('insert', 'article', 'user', { check: {}, set: { id: 'abc' } }, 'invalid value for column "id" of type "integer": "abc"');
    await rejects('insert', 'article', 'user', { check: {}, set: { id: 'NOW()' } }, 'invalid value for column "id" of type "integer": "NOW()"');
    await rejects('update', 'article', 'user', { columns: '*', filter: {}, set: { published: 'yes' } }, 'invalid value for column "published" of type "boolean": "yes"');
    await rejects('update', 'article', 'user', { columns: '*', filter: {}, set: { title: 5 } }, 'invalid value for column "title" of type "text": 5');
    await rejects('insert', INVOICE, 'user', { check: {}, set: { total: true } }, 'invalid value for column "total" of type "integer": true');
  });

  it('rejects insert, update and delete permissions on a view that cannot be written through (§4.3.3)', async () => {
    await rejects('insert', 'article_counts', 'user', { check: {} }, 'view "article_counts" is not insertable');
    await rejects('update', 'article_counts', 'user', { columns: ['n'], filter: {} }, 'view "article_counts" is not updatable');
    await rejects('delete', 'article_counts', 'user', { filter: {} }, 'view "article_counts" is not deletable');
    // Writability is checked first.
    await rejects('insert', 'article_counts', 'user', { check: { nope: 1 }, columns: ['nope'] }, 'view "article_counts" is not insertable');
  });

  it('checks in the order view writability, columns, computed_fields, set, filter, check (§4.3.3)', async () => {
    await rejects('select', 'author', 'user', { columns: ['nope'], computed_fields: ['nope2'], filter: { nope3: 1 } }, 'column "nope" does not exist in table "author"');
    await rejects('select', 'author', 'user', { columns: '*', computed_fields: ['nope2'], filter: { nope3: 1 } }, 'computed field "nope2" does not exist in table "author"');
    await rejects('update', 'article', 'user', { columns: ['nope'], filter: {}, set: { nope2: 1 } }, 'column "nope" does not exist in table "article"');
    await rejects('update', 'article', 'user', { columns: '*', filter: { nope3: 1 }, set: { id: 'x' } }, 'invalid value for column "id" of type "integer": "x"');
    await rejects('update', 'article', 'user', { columns: '*', filter: { nope3: 1 }, check: { nope4: 1 } }, 'column or relationship "nope3" does not exist in table "article"');
    await rejects('update', 'article', 'user', { columns: '*', filter: {}, check: { nope4: 1 } }, 'column or relationship "nope4" does not exist in table "article"');
    await rejects('insert', 'article', 'user', { check: { nope4: 1 }, set: { nope: 1 } }, 'column "nope" does not exist in table "article"');
  });

  it('reports BoolExp validation reasons with the permission context (§4.4.4)', async () => {
    const cases: [Kind, Q, Obj, string][] = [
      ['select', 'article', { columns: '*', filter: { nope: { _eq: 1 } } }, 'column or relationship "nope" does not exist in table "article"'],
      ['select', 'article', { columns: '*', filter: { writer: { id: { _eq: 1 } } } }, 'column or relationship "writer" does not exist in table "article"'],
      ['select', 'article', { columns: '*', filter: { author: { nope: { _eq: true } } } }, 'column or relationship "nope" does not exist in table "author"'],
      ['delete', 'author', { filter: { articles: { author: { zzz: 1 } } } }, 'column or relationship "zzz" does not exist in table "author"'],
      ['select', 'article', { columns: '*', filter: { author: true } }, 'expecting an object for relationship "author"'],
      ['select', 'article', { columns: '*', filter: { id: { _foo: 1 } } }, 'unknown operator "_foo" for column "id"'],
      ['update', 'article', { columns: '*', filter: { id: { $eq: 1, $bar: 2 } } }, 'unknown operator "$bar" for column "id"'],
      ['select', 'article', { columns: '*', filter: { id: { _like: '1%' } } }, 'operator "_like" cannot be used with column "id" of type "integer"'],
      ['select', 'author', { columns: '*', filter: { name: { _has_key: 'a' } } }, 'operator "_has_key" cannot be used with column "name" of type "text"'],
      ['select', 'article', { columns: '*', filter: { id: 'abc' } }, 'invalid value for column "id" of type "integer": "abc"'],
      ['select', 'article', { columns: '*', filter: { id: { _gt: null } } }, 'null is not allowed for operator "_gt"'],
      ['select', 'article', { columns: '*', filter: { id: { _in: 1 } } }, 'expecting an array for operator "_in"'],
      ['select', 'article', { columns: '*', filter: { id: { _is_null: 'yes' } } }, 'expecting a boolean for operator "_is_null"'],
      ['select', 'article', { columns: '*', filter: { id: { _ceq: 'nope' } } }, 'column "nope" does not exist in table "article"'],
      ['select', 'article', { columns: '*', filter: { id: { _ceq: 'title' } } }, 'incompatible column types: "id" is of type "integer", "title" is of type "text"'],
      ['select', 'article', { columns: '*', filter: { zzz: 1, $or: 5 } }, 'expecting an array for "$or"'],
      ['select', 'article', { columns: '*', filter: { _not: [] } }, 'expecting an object for "_not"'],
      ['select', 'article', { columns: '*', filter: [] }, 'expecting an object for boolean expression'],
      ['select', 'article', { columns: '*', filter: { _and: [{}, 5] } }, 'expecting an object for boolean expression'],
      ['insert', 'article', { check: { author: { nope: 1 } } }, 'column or relationship "nope" does not exist in table "author"'],
      ['update', 'article', { columns: '*', filter: {}, check: { title: { _gt: null } } }, 'null is not allowed for operator "_gt"'],
      ['delete', INVOICE, { filter: { nope: 1 } }, 'column or relationship "nope" does not exist in table "billing.invoice"'],
    ];
    for (const [kind, table, permission, reason] of cases) await rejects(kind, table, 'user', permission, reason);
  });

  it('reports `_exists` reasons: untracked `_table`, `_where` validated on `_table` (§4.4.4)', async () => {
    await rejects('select', 'article', 'user', { columns: '*', filter: { _exists: { _table: 'secret', _where: {} } } }, 'table "secret" does not exist');
    await rejects('delete', 'article', 'user', { filter: { $exists: { _table: { schema: 'billing', name: 'nope' }, _where: {} } } }, 'table "billing.nope" does not exist');
    await rejects('select', 'article', 'user', { columns: '*', filter: { _exists: { _table: 'author', _where: { nope: 1 } } } }, 'column or relationship "nope" does not exist in table "author"');
  });

  it('reports a malformed `_exists` (§4.4.4)', async () => {
    await rejects('select', 'article', 'user', { columns: '*', filter: { _exists: 5 } }, 'expecting an object with keys "_table" and "_where" for "_exists"');
    await rejects('delete', 'article', 'user', { filter: { $exists: { _where: {} } } }, 'expecting an object with keys "_table" and "_where" for "$exists"');
  });
});

describe('consistency rules with permissions (§3.4, §7 rows 21, 22)', () => {
  it('rejects a permission on a tracked table missing from the database (§7 row 21)', async () => {
    await e.ok({ type: 'run_sql', args: { sql: 'drop view article_titles', check_metadata_consistency: false } });
    expect(await e.ok({ type: 'reload_metadata', args: {} })).toEqual({ message: 'success', is_consistent: false });
    await rejects('select', 'article_titles', 'user', { columns: '*', filter: {} }, 'table "article_titles" is inconsistent');
    await rejects('delete', 'article_titles', 'user', { filter: { nope: 1 } }, 'table "article_titles" is inconsistent');
  });

  it('a view that stops being writable makes run_sql fail with the newly inconsistent permission (§7 row 22)', async () => {
    await write(e, create('insert', 'article_titles', 'user', { check: {}, columns: ['title'] }, { comment: 'c' }));
    await write(e, create('select', 'article_titles', 'user', { columns: '*', filter: {} }));
    const reason = 'in table "article_titles": in permission for role "user": view "article_titles" is not insertable';
    await expectError(e, { type: 'run_sql', args: { sql: 'create or replace view article_titles as select id, title from article group by id, title' } }, 400, {
      path: '$.args', error: 'cannot continue due to new inconsistent metadata', code: 'unexpected',
      internal: [{ definition: { table: qt('article_titles'), role: 'user', permission: { check: {}, columns: ['title'] }, comment: 'c' }, reason, type: 'insert_permission' }],
    });
  });
});

describe('errors of drop_<kind>_permission and set_permission_comment', () => {
  it('rejects both or neither of `type` and `permission`, before the table check (§7 rows 44, 45)', async () => {
    await write(e, create('select', 'article', 'user', { columns: '*', filter: {} }, { comment: 'keep' }));
    const both = err('$.args', 'only one of "type" or "permission" may be given', 'parse-failed');
    const neither = err('$.args', 'one of "type" or "permission" is required', 'parse-failed');
    await expectError(e, setComment({ table: 'article', role: 'user', type: 'select', permission: 'select', comment: 'x' }), 400, both);
    await expectError(e, setComment({ table: 'nope', role: 'user', type: 'select', permission: 'insert' }), 400, both);
    await expectError(e, setComment({ table: 'article', role: 'user', comment: 'x' }), 400, neither);
    await expectError(e, setComment({ table: 'nope', role: 'user', type: null, permission: null }), 400, neither);
  });

  it('rejects a permission that does not exist, role admin included (§7 row 46)', async () => {
    await write(e, create('select', 'article', 'user', { columns: '*', filter: {} }));
    await write(e, create('insert', INVOICE, 'user', { check: {} }));
    const missing = (kind: Kind, t: string, role: string) => err('$.args', `${kind} permission on "${t}" for role "${role}" does not exist`, 'not-exists');
    for (const kind of KINDS) {
      if (kind !== 'select') await expectError(e, drop(kind, 'article', 'user'), 400, missing(kind, 'article', 'user'));
      await expectError(e, drop(kind, 'article', 'admin'), 400, missing(kind, 'article', 'admin'));
      await expectError(e, drop(kind, 'author', 'user'), 400, missing(kind, 'author', 'user'));
      await expectError(e, setComment({ table: 'article', role: 'admin', type: kind, comment: 'x' }), 400, missing(kind, 'article', 'admin'));
      await expectError(e, setComment({ table: 'article', role: 'anon', permission: kind }), 400, missing(kind, 'article', 'anon'));
    }
    await expectError(e, drop('select', 'article', 'User'), 400, missing('select', 'article', 'User'));
    await expectError(e, drop('select', INVOICE, 'user'), 400, missing('select', 'billing.invoice', 'user'));
    await expectError(e, setComment({ table: { schema: 'billing', name: 'invoice' }, role: 'user', type: 'update', comment: 'x' }), 400,
      missing('update', 'billing.invoice', 'user'));
    // Dropping twice: the second fails.
    await write(e, drop('select', 'article', 'user'));
    await expectError(e, drop('select', 'article', 'user'), 400, missing('select', 'article', 'user'));
  });
});
