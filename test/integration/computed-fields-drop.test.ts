import { beforeEach, describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { dependencyError, err, expectError, exportedWithBody, qt, runSql, write, inconsistentError } from '../helpers/assertions.js';

// drop_computed_field (engine-api.md §4.5.2), computed-field dependencies (§3.5), run_sql consistency checks on
// computed-field functions (§4.1.1 step 5), replace_metadata with computed fields (§4.8.2, §3.4);
// §7 rows 23, 24, 26, 28, 29, 50.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id int primary key, first_name text, last_name text);
    create table article (id int primary key, author_id int references author(id), title text);
    create function author_full_name(a author) returns text stable language sql as $$ select a.first_name || ' ' || a.last_name $$;
    create function author_articles(a author) returns setof article stable language sql as $$ select * from article where author_id = a.id $$;
    create function author_greeting(a author, session jsonb) returns text stable language sql as $$ select session->>'x-engine-role' $$;`);
  await e.ok({ type: 'bulk', args: [
    { type: 'track_table', args: 'author' },
    { type: 'track_table', args: 'article' },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  ] });
} });

const AUTHOR = qt('author');
const ARTICLES_REL = { name: 'articles', using: { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } } };
const FULL_NAME = { name: 'full_name', definition: { function: qt('author_full_name') } };
const selectPerm = (role: string, computed_fields?: string[]) =>
  ({ role, permission: { columns: '*', ...(computed_fields ? { computed_fields } : {}), filter: {} } });

/** author with full_name and the given select permissions (roles sorted), plus article. */
function doc(author: Record<string, unknown>) {
  return { version: 2, tables: [{ table: qt('article') }, { table: AUTHOR, array_relationships: [ARTICLES_REL], ...author }] };
}

/** name, volatility and argument types of every function of that name. */
async function functions(name: string): Promise<string[][]> {
  const r = await e.sql(`select proname, provolatile::text, pg_get_function_identity_arguments(oid) from pg_proc where proname = '${name}' order by oid`);
  return r.result.slice(1);
}

describe('drop_computed_field (§4.5.2)', () => {
  it('drops a field; version +1; the empty list is omitted from the export', async () => {
    await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'author_full_name' } } });
    await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'all_articles', definition: { function: 'author_articles' } } });
    await write(e, { type: 'drop_computed_field', args: { table: 'author', name: 'all_articles' } });
    expect((await exportedWithBody(e)).text).toBe(JSON.stringify(doc({ computed_fields: [FULL_NAME] })));
    await write(e, { type: 'drop_computed_field', args: { table: { schema: 'public', name: 'author' }, name: 'full_name', cascade: false } });
    const x = await exportedWithBody(e);
    expect(x.text).toBe(JSON.stringify(doc({})));
    expect(x.version).toBe('6');
  });

  it('rejects a missing field (row 50) and an untracked table (row 24)', async () => {
    await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'author_full_name' } } });
    await expectError(e, { type: 'drop_computed_field', args: { table: 'author', name: 'nope' } }, 400,
      err('$.args.name', 'computed field "nope" does not exist in table "author"', 'not-exists'));
    await expectError(e, { type: 'drop_computed_field', args: { table: 'author', name: 'first_name', cascade: true } }, 400,
      err('$.args.name', 'computed field "first_name" does not exist in table "author"', 'not-exists'));
    await expectError(e, { type: 'drop_computed_field', args: { table: 'article', name: 'full_name' } }, 400,
      err('$.args.name', 'computed field "full_name" does not exist in table "article"', 'not-exists'));
    await expectError(e, { type: 'drop_computed_field', args: { table: 'nope', name: 'full_name' } }, 400,
      err('$.args.table', 'table "nope" does not exist', 'not-exists'));
  });

  it('refuses to drop a field listed by select permissions without cascade (row 26); cascade removes them (§3.5)', async () => {
    await e.ok({ type: 'bulk', args: [
      { type: 'add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'author_full_name' } } },
      { type: 'create_select_permission', args: { table: 'author', ...selectPerm('user', ['full_name']) } },
    ] });
    await expectError(e, { type: 'drop_computed_field', args: { table: 'author', name: 'full_name' } }, 400, dependencyError('permission author.user.select'));
    await e.ok({ type: 'bulk', args: [
      { type: 'create_select_permission', args: { table: 'author', ...selectPerm('guest', ['full_name']) } },
      { type: 'create_select_permission', args: { table: 'author', ...selectPerm('editor') } },
    ] });
    await expectError(e, { type: 'drop_computed_field', args: { table: 'author', name: 'full_name', cascade: false } }, 400,
      dependencyError('permission author.guest.select, permission author.user.select'));
    await write(e, { type: 'drop_computed_field', args: { table: 'author', name: 'full_name', cascade: true } });
    expect((await exportedWithBody(e)).text).toBe(JSON.stringify(doc({ select_permissions: [selectPerm('editor')] })));
  });

  it('a computed field returning rows of a table is a dependent of that table (§3.5)', async () => {
    await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'all_articles', definition: { function: 'author_articles' } } });
    await expectError(e, { type: 'untrack_table', args: { table: 'article' } }, 400,
      dependencyError('computed field author.all_articles, relationship author.articles'));
  });
});

describe('run_sql on computed-field functions (§4.1.1 step 5)', () => {
  beforeEach(async () => {
    await e.ok({ type: 'add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'author_full_name' } } });
  });

  it('accepts a replacement that keeps the function STABLE or makes it IMMUTABLE, without changing the metadata', async () => {
    const before = await exportedWithBody(e);
    const r = await e.query(runSql(`create or replace function author_full_name(a author) returns text immutable language sql as $$ select a.last_name $$`));
    expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: { result_type: 'CommandOk', result: null } });
    expect(r.headers.get('x-engine-resource-version')).toBe(before.version);
    expect(await exportedWithBody(e)).toEqual(before);
  });

  it('refuses to make the function VOLATILE (row 28), also with cascade; nothing changes', async () => {
    const sql = `create or replace function author_full_name(a author) returns text volatile language sql as $$ select a.first_name $$`;
    const expected = err('$.args', 'the type of function "author_full_name" associated with computed field "full_name" of table "author" is being altered to "VOLATILE"', 'not-supported');
    await expectError(e, runSql(sql), 400, expected);
    await expectError(e, runSql(sql, { cascade: true }), 400, expected);
    await expectError(e, runSql(`alter function author_full_name(author) volatile`), 400, expected);
    expect(await functions('author_full_name')).toEqual([['author_full_name', 's', 'a author']]);
  });

  it('refuses to overload the function (row 29); nothing changes', async () => {
    await expectError(e, runSql(`create function author_full_name(a author, sep text) returns text stable language sql as $$ select a.first_name || sep $$`), 400,
      err('$.args', 'the function "author_full_name" associated with computed field "full_name" of table "author" is being overloaded', 'not-supported'));
    expect(await functions('author_full_name')).toEqual([['author_full_name', 's', 'a author']]);
  });

  it('refuses to drop the function without cascade (row 26); cascade removes the field and the permissions listing it', async () => {
    await expectError(e, runSql('drop function author_full_name(author)'), 400, dependencyError('computed field author.full_name'));
    expect(await functions('author_full_name')).toEqual([['author_full_name', 's', 'a author']]);
    await e.ok({ type: 'bulk', args: [
      { type: 'create_select_permission', args: { table: 'author', ...selectPerm('user', ['full_name']) } },
      { type: 'create_select_permission', args: { table: 'author', ...selectPerm('editor') } },
    ] });
    await write(e, runSql('drop function author_full_name(author)', { cascade: true }), { result_type: 'CommandOk', result: null });
    expect((await exportedWithBody(e)).text).toBe(JSON.stringify(doc({ select_permissions: [selectPerm('editor')] })));
    expect(await functions('author_full_name')).toEqual([]);
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('treats a renamed function like a dropped one', async () => {
    await expectError(e, runSql('alter function author_full_name(author) rename to author_name'), 400, dependencyError('computed field author.full_name'));
    expect(await functions('author_name')).toEqual([]);
    await e.ok({ type: 'create_select_permission', args: { table: 'author', ...selectPerm('user', ['full_name']) } });
    await write(e, runSql('alter function author_full_name(author) rename to author_name', { cascade: true }), { result_type: 'CommandOk', result: null });
    expect((await exportedWithBody(e)).text).toBe(JSON.stringify(doc({})));
    expect(await functions('author_name')).toEqual([['author_name', 's', 'a author']]);
  });
});

describe('replace_metadata with computed fields (§4.8.2)', () => {
  it('stores the same state as the individual operations', async () => {
    await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'greeting', definition: { function: 'author_greeting', table_argument: 'a', session_argument: 'session' }, comment: 'hi' } });
    await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'all_articles', definition: { function: 'author_articles' } } });
    await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'author_full_name' } } });
    await write(e, { type: 'create_select_permission', args: { table: 'author', ...selectPerm('user', ['greeting', 'full_name']) } });
    const individual = await exportedWithBody(e);
    await write(e, { type: 'clear_metadata', args: {} });
    // Version-1-style string names and an unsorted list: stored and exported in the §6 form.
    await write(e, { type: 'replace_metadata', args: { tables: [
      { table: 'article' },
      {
        table: 'author',
        array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }],
        computed_fields: [
          { name: 'greeting', definition: { function: 'author_greeting', table_argument: 'a', session_argument: 'session' }, comment: 'hi' },
          { name: 'full_name', definition: { function: { name: 'author_full_name' } }, comment: null },
          { name: 'all_articles', definition: { function: 'author_articles' } },
        ],
        select_permissions: [selectPerm('user', ['greeting', 'full_name'])],
      },
    ] } });
    expect((await exportedWithBody(e)).text).toBe(individual.text);
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('a field clashing with a column or an earlier relationship is inconsistent: strict fails (row 23), allow_inconsistent_metadata records it', async () => {
    const metadata = doc({ computed_fields: [
      { name: 'articles', definition: { function: qt('author_articles') } },
      { name: 'first_name', definition: { function: qt('author_full_name') } },
      FULL_NAME,
    ] });
    const records = [
      {
        definition: { table: AUTHOR, name: 'articles', definition: { function: qt('author_articles') } },
        reason: 'in table "author": in computed field "articles": "articles" conflicts with an existing relationship of table "author"', type: 'computed_field',
      },
      {
        definition: { table: AUTHOR, name: 'first_name', definition: { function: qt('author_full_name') } },
        reason: 'in table "author": in computed field "first_name": "first_name" conflicts with an existing column of table "author"', type: 'computed_field',
      },
    ];
    await expectError(e, { type: 'replace_metadata', args: metadata }, 400, inconsistentError('cannot continue due to inconsistent metadata', records));
    await expectError(e, { type: 'replace_metadata', args: { metadata } }, 400, inconsistentError('cannot continue due to inconsistent metadata', records));
    await write(e, { type: 'replace_metadata', args: { metadata, allow_inconsistent_metadata: true } }, { is_consistent: false, inconsistent_objects: records });
    expect((await exportedWithBody(e)).text).toBe(JSON.stringify(metadata));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: false, inconsistent_objects: records });
  });
});
