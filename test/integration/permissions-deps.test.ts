import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { dependencyError, expectError, exported, qt, runSql, write, inconsistentError } from '../helpers/assertions.js';
import { create, INVOICE, permissionsDoc, type Obj, type Perms } from './permissions-fixtures.js';

// Permissions as dependents (engine-api.md §3.5, §4.1.1 step 5, §4.1.3, §4.2, §4.5.2; §7 row 26), renames
// rewriting permissions (§4.1.1 step 5), and replace_metadata with permissions (§4.8.2, §6.1–§6.3).

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id int primary key, name text, active boolean default true);
    create table article (id int primary key, author_id int references author(id), editor_id int, title text, category text, published boolean);
    create table flag (id int primary key, enabled boolean);
    create schema billing;
    create table billing.invoice (id int primary key, customer_id int, title text, total int);
    create function author_full_name(a author) returns text stable language sql as $$ select a.name $$;`);
  await e.ok({ type: 'bulk', args: [
    ...['author', 'article', 'flag', { schema: 'billing', name: 'invoice' }].map((t) => ({ type: 'track_table', args: t })),
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
    { type: 'add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'author_full_name' } } },
  ] });
} });

const commandOk = { result_type: 'CommandOk', result: null };

const consistent = async () => expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });

// The exported document for the setup's tables plus permission lists (§6.1, §6.3).
const ARTICLE_REL = [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }];
const AUTHOR_BASE = {
  table: qt('author'),
  array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } } }],
  computed_fields: [{ name: 'full_name', definition: { function: qt('author_full_name') } }],
};
const BASE: [string, Obj][] = [
  ['billing.invoice', { table: INVOICE }],
  ['article', { table: qt('article'), object_relationships: ARTICLE_REL }],
  ['author', AUTHOR_BASE],
  ['flag', { table: qt('flag') }],
];
const doc = (perms: Record<string, Perms> = {}, base: [string, Obj][] = BASE): string => permissionsDoc(base, perms);
const without = (key: string, patch?: Obj): [string, Obj][] =>
  BASE.flatMap(([k, v]): [string, Obj][] => (k !== key ? [[k, v]] : patch ? [[k, patch]] : []));

describe('permissions as dependents (§3.5)', () => {
  it('a dropped column: permissions naming it in columns, set, BoolExp keys, check and _c* operands', async () => {
    await write(e, create('insert', 'article', 'user', { check: {}, set: { editor_id: 'X-Engine-User-Id' } }));
    await write(e, create('select', 'article', 'user', { columns: ['id', 'editor_id'], filter: {} }));
    await write(e, create('update', 'article', 'user', { columns: ['title'], filter: { author_id: { _ceq: 'editor_id' } } }));
    await write(e, create('delete', 'article', 'user', { filter: { editor_id: 'X-Engine-User-Id' } }));
    await write(e, create('update', 'article', 'editor', { columns: ['title'], filter: {}, check: { _or: [{ editor_id: { _is_null: false } }] } }));
    // "*" names no column; these do not depend on editor_id.
    await write(e, create('select', 'article', 'anon', { columns: '*', filter: { id: { _gt: 0 } } }));
    await write(e, create('insert', 'article', 'anon', { check: {}, columns: '*' }));
    const labels = 'permission article.editor.update, permission article.user.delete, permission article.user.insert, '
      + 'permission article.user.select, permission article.user.update';
    await expectError(e, runSql('alter table article drop column editor_id'), 400, dependencyError(labels));
    await expectError(e, runSql('alter table article drop column editor_id', { cascade: false }), 400, dependencyError(labels));
    await write(e, runSql('alter table article drop column editor_id', { cascade: true }), commandOk);
    expect((await exported(e)).text).toBe(doc({ article: {
      insert: [{ role: 'anon', permission: { check: {}, columns: '*' } }],
      select: [{ role: 'anon', permission: { columns: '*', filter: { id: { _gt: 0 } } } }],
    } }));
    expect((await e.state()).schema).not.toContain('editor_id');
    await consistent();
  });

  it('labels of several dropped columns are merged, sorted and schema-qualified', async () => {
    await write(e, create('select', INVOICE, 'user', { columns: ['id', 'total'], filter: {} }));
    await write(e, create('delete', 'article', 'user', { filter: { category: { _eq: 'x' } } }));
    await write(e, create('select', 'article', 'user', { columns: ['id'], filter: {} }));
    await expectError(e, runSql('alter table billing.invoice drop column total; alter table article drop column category'), 400,
      dependencyError('permission article.user.delete, permission billing.invoice.user.select'));
    await write(e, runSql('alter table billing.invoice drop column total; alter table article drop column category', { cascade: true }), commandOk);
    expect((await exported(e)).text).toBe(doc({ article: { select: [{ role: 'user', permission: { columns: ['id'], filter: {} } }] } }));
  });

  it('cascade chain: a column reached through relationships from permissions of other tables', async () => {
    await write(e, create('select', 'article', 'user', { columns: ['id'], filter: { author: { active: { _eq: true } } } }));
    await write(e, create('select', 'author', 'anon', { columns: ['id'], filter: { articles: { author: { active: true } } } }));
    await write(e, create('select', 'author', 'user', { columns: ['id', 'name'], filter: { articles: { published: true } } }));
    await expectError(e, runSql('alter table author drop column active'), 400,
      dependencyError('permission article.user.select, permission author.anon.select'));
    await write(e, runSql('alter table author drop column active', { cascade: true }), commandOk);
    expect((await exported(e)).text).toBe(doc({ author: {
      select: [{ role: 'user', permission: { columns: ['id', 'name'], filter: { articles: { published: true } } } }],
    } }));
    await consistent();
  });

  it('cascade chain: a dropped foreign-key column removes its relationships and, transitively, the permissions traversing them', async () => {
    await write(e, create('select', 'article', 'user', { columns: ['id'], filter: { author: { active: { _eq: true } } } }));
    await write(e, create('update', 'author', 'user', { columns: ['name'], filter: { articles: { published: true } } }));
    await write(e, create('select', 'author', 'user', { columns: ['id'], filter: { active: true } }));
    // Without cascade it fails. (Whether transitive dependents are listed is not stated by §3.5, so the labels
    // are not asserted here beyond the direct ones.)
    const before = await e.state();
    const r = await e.query(runSql('alter table article drop column author_id'));
    expect({ status: r.status, code: r.body.code, path: r.body.path }).toEqual({ status: 400, code: 'dependency-error', path: '$.args' });
    expect(r.body.error).toMatch(/^cannot drop due to the following dependent objects : .*relationship article\.author, relationship author\.articles/);
    expect(await e.state()).toEqual(before);
    await write(e, runSql('alter table article drop column author_id', { cascade: true }), commandOk);
    expect((await exported(e)).text).toBe(doc({ author: { select: [{ role: 'user', permission: { columns: ['id'], filter: { active: true } } }] } }, [
      ['billing.invoice', { table: INVOICE }], ['article', { table: qt('article') }],
      ['author', { table: qt('author'), computed_fields: AUTHOR_BASE.computed_fields }], ['flag', { table: qt('flag') }],
    ]));
    await consistent();
  });

  it('drop_relationship: permissions traversing it fail it without cascade and are removed with cascade (§4.2)', async () => {
    await write(e, create('select', 'article', 'user', { columns: ['id'], filter: { author: { name: { _eq: 'x' } } } }));
    await write(e, create('update', 'author', 'user', { columns: ['name'], filter: { articles: { author: { id: 1 } } } }));
    await write(e, create('select', 'author', 'user', { columns: ['id'], filter: { articles: { id: { _gt: 0 } } } }));
    const labels = dependencyError('permission article.user.select, permission author.user.update');
    await expectError(e, { type: 'drop_relationship', args: { table: 'article', relationship: 'author' } }, 400, labels);
    await expectError(e, { type: 'drop_relationship', args: { table: { name: 'article' }, relationship: 'author', cascade: false } }, 400, labels);
    await write(e, { type: 'drop_relationship', args: { table: 'article', relationship: 'author', cascade: true } });
    expect((await exported(e)).text).toBe(doc({ author: {
      select: [{ role: 'user', permission: { columns: ['id'], filter: { articles: { id: { _gt: 0 } } } } }],
    } }, without('article', { table: qt('article') })));
    await expectError(e, { type: 'drop_relationship', args: { table: 'author', relationship: 'articles' } }, 400,
      dependencyError('permission author.user.select'));
    await consistent();
  });

  it('untrack_table: permissions of other tables using `_exists` on it (§4.1.3)', async () => {
    await write(e, create('select', INVOICE, 'user', { columns: ['id'], filter: { _exists: { _table: 'flag', _where: { enabled: { _eq: true } } } } }));
    await write(e, create('delete', 'article', 'user', { filter: { $exists: { _table: { schema: 'public', name: 'flag' }, _where: {} } } }));
    await write(e, create('select', 'flag', 'user', { columns: '*', filter: { _exists: { _table: 'flag', _where: {} } } }));
    await write(e, create('select', 'article', 'user', { columns: '*', filter: {} }));
    const labels = dependencyError('permission article.user.delete, permission billing.invoice.user.select');
    await expectError(e, { type: 'untrack_table', args: { table: 'flag' } }, 400, labels);
    await expectError(e, runSql('drop table flag'), 400, labels);
    await write(e, { type: 'untrack_table', args: { table: { schema: 'public', name: 'flag' }, cascade: true } });
    expect((await exported(e)).text).toBe(doc({ article: { select: [{ role: 'user', permission: { columns: '*', filter: {} } }] } }, without('flag')));
    await consistent();
  });

  it('drop_computed_field: select permissions listing it (§4.5.2)', async () => {
    await write(e, create('select', 'author', 'user', { columns: ['id'], computed_fields: ['full_name'], filter: {} }));
    await write(e, create('select', 'author', 'anon', { columns: '*', filter: {} }));
    await expectError(e, { type: 'drop_computed_field', args: { table: 'author', name: 'full_name' } }, 400, dependencyError('permission author.user.select'));
    await write(e, { type: 'drop_computed_field', args: { table: 'author', name: 'full_name', cascade: true } });
    expect((await exported(e)).text).toBe(doc({ author: { select: [{ role: 'anon', permission: { columns: '*', filter: {} } }] } },
      without('author', { table: qt('author'), array_relationships: AUTHOR_BASE.array_relationships })));
  });
});

describe('a renamed column is rewritten in permissions (§4.1.1 step 5)', () => {
  it('in columns, set keys, BoolExp keys, _c* operands and through relationships; keys stay sorted', async () => {
    await write(e, create('insert', 'article', 'user', { check: { title: { _neq: '' } }, set: { title: 'untitled', category: 'news' }, columns: ['id', 'title'] }));
    await write(e, create('select', 'article', 'user', { columns: ['title', 'id'], filter: { id: { _gt: 0 }, title: { _ilike: '%a%' } } }));
    await write(e, create('update', 'article', 'user', { columns: '*', filter: { category: { _ceq: 'title' } }, check: { title: { _cne: 'category' } } }));
    await write(e, create('delete', 'article', 'user', { filter: { $or: [{ title: { _is_null: true } }], _not: { title: 'x' } } }));
    await write(e, create('select', 'author', 'user', { columns: ['id'], filter: { articles: { title: { _eq: 'x' } }, name: { _eq: 'title' } } }));
    await write(e, create('select', INVOICE, 'user', { columns: ['id', 'title'], filter: { title: { _eq: 'x' } } }));
    await write(e, runSql('alter table article rename column title to headline'), commandOk);
    expect((await exported(e)).text).toBe(doc({
      article: {
        insert: [{ role: 'user', permission: { check: { headline: { _neq: '' } }, set: { category: 'news', headline: 'untitled' }, columns: ['id', 'headline'] } }],
        select: [{ role: 'user', permission: { columns: ['headline', 'id'], filter: { headline: { _ilike: '%a%' }, id: { _gt: 0 } } } }],
        update: [{ role: 'user', permission: { columns: '*', filter: { category: { _ceq: 'headline' } }, check: { headline: { _cne: 'category' } } } }],
        delete: [{ role: 'user', permission: { filter: { $or: [{ headline: { _is_null: true } }], _not: { headline: 'x' } } } }],
      },
      author: { select: [{ role: 'user', permission: { columns: ['id'], filter: { articles: { headline: { _eq: 'x' } }, name: { _eq: 'title' } } } }] },
      'billing.invoice': { select: [{ role: 'user', permission: { columns: ['id', 'title'], filter: { title: { _eq: 'x' } } } }] },
    }));
    await consistent();
    // The rewritten permissions now depend on the new name.
    await expectError(e, runSql('alter table article drop column headline'), 400, dependencyError(
      'permission article.user.delete, permission article.user.insert, permission article.user.select, permission article.user.update, permission author.user.select'));
  });

  it('in `_exists._where` of another table and in a renamed _c* operand of the other column', async () => {
    await write(e, create('select', INVOICE, 'user', { columns: ['id'], filter: { _exists: { _table: { schema: 'public', name: 'article' }, _where: { title: { _eq: 'x' } } } } }));
    await write(e, create('update', 'article', 'user', { columns: ['title'], filter: { title: { _ceq: 'category' } } }));
    await write(e, runSql('alter table article rename column category to kind'), commandOk);
    await write(e, runSql('alter table article rename column title to headline'), commandOk);
    const md = JSON.parse((await exported(e)).text);
    expect(md.tables[0].select_permissions).toEqual([{ role: 'user', permission: {
      columns: ['id'], filter: { _exists: { _table: { schema: 'public', name: 'article' }, _where: { headline: { _eq: 'x' } } } },
    } }]);
    expect(md.tables[1].update_permissions).toEqual([{ role: 'user', permission: { columns: ['headline'], filter: { headline: { _ceq: 'kind' } }, check: null } }]);
  });
});

describe('replace_metadata with permissions (§4.8.2)', () => {
  const canonical = {
    version: 2,
    tables: [
      { table: INVOICE,
        select_permissions: [{ role: 'user', permission: { columns: ['id', 'total'], filter: { customer_id: { _eq: 'X-Engine-User-Id' } }, limit: 5 }, comment: 'mine' }],
        delete_permissions: [{ role: 'user', permission: { filter: { total: { _lte: 0 } } } }] },
      { table: qt('article'), object_relationships: ARTICLE_REL,
        insert_permissions: [{ role: 'user', permission: { check: { author_id: { _eq: 'X-Engine-User-Id' } }, set: { author_id: 'X-Engine-User-Id', published: false }, columns: ['title', 'category'] } }],
        select_permissions: [
          { role: 'anon', permission: { columns: ['id', 'title'], filter: { published: { _eq: true } }, allow_aggregations: true } },
          { role: 'user', permission: { columns: '*', filter: { $or: [{ published: true }, { category: { $neq: 'editorial' } }], author: { active: { _eq: true } }, author_id: 'X-Engine-User-Id' }, limit: 10 }, comment: 'own rows' },
        ],
        update_permissions: [
          { role: 'editor', permission: { columns: ['title', 'category'], filter: {}, check: { category: { _in: ['b', 'a'] } }, set: { editor_id: 'X-Engine-User-Id' } } },
          { role: 'user', permission: { columns: ['title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } }, check: null } },
        ],
        delete_permissions: [{ role: 'user', permission: { filter: { _not: { published: { _eq: true } } } } }] },
      { ...AUTHOR_BASE, select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], computed_fields: ['full_name'], filter: {} } }] },
      { table: qt('flag'), insert_permissions: [{ role: 'user', permission: { check: {}, columns: '*' } }] },
    ],
  };

  /** The same permissions through the individual operations, in another order and with non-canonical inputs. */
  async function createIndividually(): Promise<void> {
    await write(e, create('insert', 'flag', 'user', { columns: '*', check: {} }));
    await write(e, create('update', 'article', 'user', { filter: { author_id: { _eq: 'X-Engine-User-Id' } }, columns: ['title'], check: null }, { comment: null }));
    await write(e, create('select', 'article', 'user', { limit: 10, filter: { author_id: 'X-Engine-User-Id', author: { active: { _eq: true } }, $or: [{ published: true }, { category: { $neq: 'editorial' } }] }, columns: '*' }, { comment: 'own rows' }));
    await write(e, create('select', { name: 'author' }, 'user', { filter: {}, computed_fields: ['full_name'], columns: ['id', 'name'], allow_aggregations: false }));
    await write(e, create('delete', { schema: 'billing', name: 'invoice' }, 'user', { filter: { total: { _lte: 0 } } }));
    await write(e, create('update', 'article', 'editor', { set: { editor_id: 'X-Engine-User-Id' }, check: { category: { _in: ['b', 'a'] } }, filter: {}, columns: ['title', 'category'] }));
    await write(e, create('insert', 'article', 'user', { columns: ['title', 'category'], set: { published: false, author_id: 'X-Engine-User-Id' }, check: { author_id: { _eq: 'X-Engine-User-Id' } } }));
    await write(e, create('select', 'article', 'anon', { allow_aggregations: true, filter: { published: { _eq: true } }, columns: ['id', 'title'], computed_fields: [] }));
    await write(e, create('delete', 'article', 'user', { filter: { _not: { published: { _eq: true } } } }));
    await write(e, create('select', INVOICE, 'user', { columns: ['id', 'total'], filter: { customer_id: { _eq: 'X-Engine-User-Id' } }, limit: 5 }, { comment: 'mine' }));
  }

  it('the individual operations and replace_metadata produce the same bytes, equal to the canonical input', async () => {
    await createIndividually();
    const individual = (await exported(e)).text;
    expect(individual).toBe(JSON.stringify(canonical));
    await write(e, { type: 'clear_metadata', args: {} });
    await write(e, { type: 'replace_metadata', args: canonical });
    expect((await exported(e)).text).toBe(individual);
    await write(e, { type: 'replace_metadata', args: { metadata: JSON.parse(individual) } });
    expect((await exported(e)).text).toBe(individual);
    await consistent();
  });

  it('a non-canonical document (string names, unsorted roles and keys, defaults spelled out) is stored canonically', async () => {
    const perm = (role: string, permission: Obj, comment: string | null = null) => ({ comment, permission, role });
    const input = {
      version: 2,
      tables: [
        { table: 'flag', insert_permissions: [perm('user', { columns: '*', check: {}, set: {} })], select_permissions: [], delete_permissions: [] },
        {
          array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }],
          select_permissions: [perm('user', { filter: {}, columns: ['id', 'name'], computed_fields: ['full_name'], limit: null, allow_aggregations: false })],
          computed_fields: [{ name: 'full_name', definition: { function: 'author_full_name' } }],
          table: { name: 'author' },
        },
        {
          table: 'article',
          delete_permissions: [perm('user', { filter: { _not: { published: { _eq: true } } } })],
          update_permissions: [
            perm('user', { columns: ['title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } }, set: {} }),
            perm('editor', { set: { editor_id: 'X-Engine-User-Id' }, columns: ['title', 'category'], check: { category: { _in: ['b', 'a'] } }, filter: {} }),
          ],
          select_permissions: [
            perm('user', { limit: 10, columns: '*', filter: { author_id: 'X-Engine-User-Id', author: { active: { _eq: true } }, $or: [{ published: true }, { category: { $neq: 'editorial' } }] } }, 'own rows'),
            perm('anon', { allow_aggregations: true, columns: ['id', 'title'], filter: { published: { _eq: true } }, computed_fields: [] }),
          ],
          insert_permissions: [perm('user', { set: { published: false, author_id: 'X-Engine-User-Id' }, columns: ['title', 'category'], check: { author_id: { _eq: 'X-Engine-User-Id' } } })],
          object_relationships: ARTICLE_REL,
        },
        {
          table: { schema: 'billing', name: 'invoice' },
          delete_permissions: [perm('user', { filter: { total: { _lte: 0 } } })],
          select_permissions: [perm('user', { filter: { customer_id: { _eq: 'X-Engine-User-Id' } }, limit: 5, columns: ['id', 'total'] }, 'mine')],
        },
      ],
    };
    await write(e, { type: 'replace_metadata', args: input });
    expect((await exported(e)).text).toBe(JSON.stringify(canonical));
  });

  it('`_exists` in a canonical document exports byte-identically', async () => {
    const withExists = {
      version: 2,
      tables: [
        { table: INVOICE, select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: { _exists: { _table: qt('flag'), _where: { enabled: { _eq: true } } } } } }] },
        { table: qt('article'), object_relationships: ARTICLE_REL },
        AUTHOR_BASE,
        { table: qt('flag') },
      ],
    };
    await write(e, { type: 'replace_metadata', args: withExists });
    expect((await exported(e)).text).toBe(JSON.stringify(withExists));
  });

  it('rejects inconsistent permissions and duplicate roles, changing nothing (§3.4, §4.8.2)', async () => {
    const bad = JSON.parse(doc({
      article: { select: [{ role: 'user', permission: { columns: ['nope'], filter: {} } }] },
      author: { insert: [{ role: 'admin', permission: { check: {} } }] },
    }));
    await expectError(e, { type: 'replace_metadata', args: bad }, 400, inconsistentError('cannot continue due to inconsistent metadata', [
        { definition: { table: qt('article'), role: 'user', permission: { columns: ['nope'], filter: {} } },
          reason: 'in table "article": in permission for role "user": column "nope" does not exist in table "article"', type: 'select_permission' },
        { definition: { table: qt('author'), role: 'admin', permission: { check: {} } },
          reason: 'in table "author": in permission for role "admin": cannot define permission for admin role', type: 'insert_permission' },
    ]));
    const dup = JSON.parse(doc({ article: { update: [
      { role: 'user', permission: { columns: '*', filter: {}, check: null } }, { role: 'user', permission: { columns: ['id'], filter: {}, check: null } },
    ] } }));
    await expectError(e, { type: 'replace_metadata', args: dup }, 400,
      { path: '$.args.tables[1]', error: 'multiple declarations exist for the following update permissions : "user"', code: 'already-exists' });
  });
});
