import { describe, expect, it } from 'vitest';
import { err, expectError, qt, write, inconsistentError } from '../helpers/assertions.js';
import { create, drop, INVOICE, KINDS, setComment, usePermissionsEngine, type Kind, type Obj, type Q } from './permissions-fixtures.js';

// engine-api.md §4.3 (permissions), §4.4 (BoolExp reasons through the API), §3.4 (constraint violations),
// §7 rows 14, 15, 20, 24, 41–46: the errors of the permission operations. Creating and exporting: permissions-crud.test.ts.

const e = usePermissionsEngine();

const qtOf = (t: Q) => (typeof t === 'string' ? qt(t) : qt(t.name, t.schema));
const tableText = (t: Q) => (qtOf(t).schema === 'public' ? qtOf(t).name : `${qtOf(t).schema}.${qtOf(t).name}`);

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
    await expectError(e, { type: 'run_sql', args: { sql: 'create or replace view article_titles as select id, title from article group by id, title' } }, 400,
      inconsistentError('cannot continue due to new inconsistent metadata',
        [{ definition: { table: qt('article_titles'), role: 'user', permission: { check: {}, columns: ['title'] }, comment: 'c' }, reason, type: 'insert_permission' }]));
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
