import { beforeEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, useTestEngine } from '../helpers/engine.js';
import { err, expectError, exported, qt, writeAndReexport } from '../helpers/assertions.js';

// engine-api.md §4.1.2–§4.1.3 (track_table, untrack_table), §4.0 common table check, §3.5 table dependents.

const e = useTestEngine();

const doc = (tables: unknown[]) => JSON.stringify({ version: 2, tables });

describe('track_table', () => {
  it('accepts a string, {schema,name}, {name} and {"table": …} in both forms and stores the object form', async () => {
    await e.sql('create table a (id int); create table b (id int); create table c (id int); create table d (id int); create table f (id int); create schema billing; create table billing.invoice (id int)');
    await writeAndReexport(e, { type: 'track_table', args: 'a' });
    await writeAndReexport(e, { type: 'track_table', args: { name: 'b', schema: null } });
    await writeAndReexport(e, { type: 'track_table', args: { schema: 'public', name: 'c' } });
    await writeAndReexport(e, { type: 'track_table', args: { table: 'd' } });
    await writeAndReexport(e, { type: 'track_table', args: { table: { name: 'f' } } });
    await writeAndReexport(e, { type: 'track_table', args: { table: { schema: 'billing', name: 'invoice' } } });
    const x = await exported(e);
    expect(x.version).toBe('7');
    expect(x.text).toBe(doc(['invoice', 'a', 'b', 'c', 'd', 'f'].map((n) => ({ table: n === 'invoice' ? qt(n, 'billing') : qt(n) }))));
  });

  it('tracks views, materialized views and partitioned tables', async () => {
    await e.sql(`create table author (id int primary key, name text);
      create view author_names as select name from author;
      create materialized view author_ids as select id from author;
      create table part (id int) partition by range (id)`);
    for (const t of ['author_names', 'author_ids', 'part']) await writeAndReexport(e, { type: 'track_table', args: t });
    expect((await exported(e)).text).toBe(doc([{ table: qt('author_ids') }, { table: qt('author_names') }, { table: qt('part') }]));
  });

  // A wrapper without handler is legal PostgreSQL (and the only kind PGlite offers here); its tables are foreign tables.
  it('tracks a foreign table, also one of a wrapper without a handler', async () => {
    await e.sql(`do $$ begin
        if not exists (select 1 from pg_foreign_data_wrapper where fdwname = 'nowhere') then create foreign data wrapper nowhere; end if;
      end $$`);
    await e.sql('create server if not exists nowhere_srv foreign data wrapper nowhere');
    await e.sql('create foreign table remote_author (id int) server nowhere_srv');
    await writeAndReexport(e, { type: 'track_table', args: 'remote_author' });
    expect((await exported(e)).text).toBe(doc([{ table: qt('remote_author') }]));
  });

  it.runIf(EXTERNAL_URL)('tracks a file_fdw foreign table (external PostgreSQL only)', async () => {
    await e.sql('create extension if not exists file_fdw');
    await e.sql('create server if not exists files foreign data wrapper file_fdw');
    await e.sql("create foreign table host_file (line text) server files options (filename '/etc/hostname')");
    await writeAndReexport(e, { type: 'track_table', args: { table: 'host_file' } });
    expect((await exported(e)).text).toBe(doc([{ table: qt('host_file') }]));
  });

  it('rejects system schemas before any other check', async () => {
    const cases: [unknown, string][] = [
      [{ schema: 'engine_catalog', name: 'metadata' }, 'engine_catalog.metadata'],
      [{ schema: 'pg_catalog', name: 'pg_class' }, 'pg_catalog.pg_class'],
      [{ table: { schema: 'information_schema', name: 'tables' } }, 'information_schema.tables'],
      [{ schema: 'pg_catalog', name: 'no_such_relation' }, 'pg_catalog.no_such_relation'],
    ];
    for (const [args, t] of cases) {
      await expectError(e, { type: 'track_table', args }, 400,
        err('$.args', `table "${t}" belongs to a system schema and cannot be tracked`, 'not-supported'));
    }
  });

  it('rejects a table that is already tracked, also one dropped since without a consistency check', async () => {
    await e.sql('create table a (id int); create schema billing; create table billing.invoice (id int)');
    await writeAndReexport(e, { type: 'track_table', args: 'a' });
    await writeAndReexport(e, { type: 'track_table', args: { schema: 'billing', name: 'invoice' } });
    await expectError(e, { type: 'track_table', args: { table: 'a' } }, 400, err('$.args', 'view/table already tracked : "a"', 'already-tracked'));
    await expectError(e, { type: 'track_table', args: { name: 'invoice', schema: 'billing' } }, 400,
      err('$.args', 'view/table already tracked : "billing.invoice"', 'already-tracked'));
    const before = await exported(e);
    await e.ok({ type: 'run_sql', args: { sql: 'drop table a', check_metadata_consistency: false } });
    expect(await exported(e)).toEqual(before);
    await expectError(e, { type: 'track_table', args: 'a' }, 400, err('$.args', 'view/table already tracked : "a"', 'already-tracked'));
  });

  it('rejects what is not a table or view in the database', async () => {
    await e.sql('create sequence seq; create type pair as (a int, b int); create schema billing; create table public.invoice (id int)');
    for (const name of ['x', 'seq', 'pair']) {
      await expectError(e, { type: 'track_table', args: name }, 400, err('$.args', `no such table/view exists in postgres : "${name}"`, 'not-exists'));
    }
    await expectError(e, { type: 'track_table', args: { table: { schema: 'billing', name: 'invoice' } } }, 400,
      err('$.args', 'no such table/view exists in postgres : "billing.invoice"', 'not-exists'));
  });
});

describe('untrack_table', () => {
  it('rejects a table that is not tracked, existing or not', async () => {
    await e.sql('create table a (id int); create schema billing');
    await expectError(e, { type: 'untrack_table', args: { table: 'a' } }, 400, err('$.args', 'view/table already untracked : "a"', 'already-untracked'));
    await expectError(e, { type: 'untrack_table', args: { table: { schema: 'billing', name: 'nope' }, cascade: true } }, 400,
      err('$.args', 'view/table already untracked : "billing.nope"', 'already-untracked'));
  });

  it('removes the entry with its own relationships, leaving the database untouched', async () => {
    await e.sql(`create table node (id int primary key, parent_id int references node(id));
      create schema billing; create table billing.invoice (id int)`);
    await writeAndReexport(e, { type: 'track_table', args: 'node' });
    await writeAndReexport(e, { type: 'track_table', args: { schema: 'billing', name: 'invoice' } });
    await writeAndReexport(e, { type: 'create_object_relationship', args: { table: 'node', name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } } });
    await writeAndReexport(e, { type: 'create_array_relationship', args: { table: 'node', name: 'children', using: { foreign_key_constraint_on: { table: 'node', column: 'parent_id' } } } });
    const schema = (await e.state()).schema;
    await writeAndReexport(e, { type: 'untrack_table', args: { table: 'node', cascade: null } });
    expect((await exported(e)).text).toBe(doc([{ table: qt('invoice', 'billing') }]));
    await writeAndReexport(e, { type: 'untrack_table', args: { table: { schema: 'billing', name: 'invoice' }, cascade: false } });
    expect((await exported(e)).text).toBe(doc([]));
    expect((await e.state()).schema).toBe(schema);
    await writeAndReexport(e, { type: 'track_table', args: 'node' });
  });

  it('untracks a tracked table that has vanished from the database', async () => {
    await e.sql('create table a (id int)');
    await writeAndReexport(e, { type: 'track_table', args: 'a' });
    await e.ok({ type: 'run_sql', args: { sql: 'drop table a', check_metadata_consistency: false } });
    await writeAndReexport(e, { type: 'untrack_table', args: { table: 'a' } });
    expect((await exported(e)).text).toBe(doc([]));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  describe('with dependents', () => {
    beforeEach(async () => {
      await e.sql(`create table author (id int primary key, name text);
        create table article (id int primary key, author_id int references author(id), title text);
        create schema billing; create table billing.invoice (id int primary key, customer_id int references author(id));
        create function search_authors() returns setof author language sql stable as 'select * from author';
        create function billing.top_authors() returns setof author language sql stable as 'select * from author'`);
      for (const t of ['author', 'article', { schema: 'billing', name: 'invoice' }]) await writeAndReexport(e, { type: 'track_table', args: t });
      const rels = [
        ['object', 'article', 'author', { foreign_key_constraint_on: 'author_id' }],
        ['object', 'article', 'Writer', { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } }],
        ['object', { schema: 'billing', name: 'invoice' }, 'customer', { foreign_key_constraint_on: 'customer_id' }],
        ['array', 'author', 'articles', { foreign_key_constraint_on: { table: 'article', column: 'author_id' } }],
        ['object', 'author', 'self', { manual_configuration: { remote_table: 'author', column_mapping: { id: 'id' } } }],
      ] as const;
      for (const [kind, table, name, using] of rels) await writeAndReexport(e, { type: `create_${kind}_relationship`, args: { table, name, using } });
      await writeAndReexport(e, { type: 'track_function', args: 'search_authors' });
      await writeAndReexport(e, { type: 'track_function', args: { schema: 'billing', name: 'top_authors' } });
    });

    it('fails without cascade, listing every dependent once, sorted by code point', async () => {
      const msg = 'cannot drop due to the following dependent objects : function billing.top_authors, function search_authors, '
        + 'relationship article.Writer, relationship article.author, relationship billing.invoice.customer';
      await expectError(e, { type: 'untrack_table', args: { table: 'author' } }, 400, err('$.args', msg, 'dependency-error'));
      await expectError(e, { type: 'untrack_table', args: { table: { schema: 'public', name: 'author' }, cascade: false } }, 400,
        err('$.args', msg, 'dependency-error'));
      await expectError(e, { type: 'untrack_table', args: { table: 'article' } }, 400,
        err('$.args', 'cannot drop due to the following dependent objects : relationship author.articles', 'dependency-error'));
    });

    it('sorts labels and tables by code point, not by UTF-16 unit', async () => {
      await e.sql('create table "😀" (id int, author_id int references author(id)); create table "ｚ" (id int, author_id int references author(id))');
      for (const t of ['😀', 'ｚ']) {
        await writeAndReexport(e, { type: 'track_table', args: t });
        await writeAndReexport(e, { type: 'create_object_relationship', args: { table: t, name: 'by', using: { foreign_key_constraint_on: 'author_id' } } });
      }
      const names = JSON.parse((await exported(e)).text).tables.map((t: { table: { name: string } }) => t.table.name);
      expect(names).toEqual(['invoice', 'article', 'author', 'ｚ', '😀']);
      await e.ok({ type: 'untrack_function', args: 'search_authors' });
      await e.ok({ type: 'untrack_function', args: { schema: 'billing', name: 'top_authors' } });
      await expectError(e, { type: 'untrack_table', args: { table: 'author' } }, 400, err('$.args', 'cannot drop due to the following dependent objects : '
        + 'relationship article.Writer, relationship article.author, relationship billing.invoice.customer, relationship ｚ.by, relationship 😀.by', 'dependency-error'));
      await expectError(e, { type: 'track_table', args: '😀' }, 400, err('$.args', 'view/table already tracked : "😀"', 'already-tracked'));
    });

    it('removes the dependents with cascade', async () => {
      const schema = (await e.state()).schema;
      await writeAndReexport(e, { type: 'untrack_table', args: { table: 'author', cascade: true } });
      expect((await exported(e)).text).toBe(doc([{ table: qt('invoice', 'billing') }, { table: qt('article') }]));
      expect((await e.state()).schema).toBe(schema);
      expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
    });

    it('succeeds once the dependents are gone', async () => {
      await writeAndReexport(e, { type: 'drop_relationship', args: { table: 'article', relationship: 'author' } });
      await writeAndReexport(e, { type: 'drop_relationship', args: { table: 'article', relationship: 'Writer' } });
      await writeAndReexport(e, { type: 'untrack_function', args: 'search_authors' });
      await expectError(e, { type: 'untrack_table', args: { table: 'author' } }, 400,
        err('$.args', 'cannot drop due to the following dependent objects : function billing.top_authors, relationship billing.invoice.customer', 'dependency-error'));
      await writeAndReexport(e, { type: 'untrack_function', args: { function: { schema: 'billing', name: 'top_authors' } } });
      await writeAndReexport(e, { type: 'drop_relationship', args: { table: { schema: 'billing', name: 'invoice' }, relationship: 'customer' } });
      await writeAndReexport(e, { type: 'untrack_table', args: { table: 'author' } });
      expect((await exported(e)).text).toBe(doc([{ table: qt('invoice', 'billing') }, { table: qt('article') }]));
    });
  });
});

describe('argument parsing (§7 rows 5–6)', () => {
  it('rejects malformed track/untrack arguments at the offending path', async () => {
    await e.sql('create table a (id int)');
    const cases: [string, unknown, string, string][] = [
      ['track_table', { schema: 'public' }, '$.args', 'the key "name" was not present'],
      ['track_table', { table: { schema: 'public' } }, '$.args.table', 'the key "name" was not present'],
      ['track_table', { name: 5 }, '$.args.name', 'expected String, encountered Number'],
      ['untrack_table', 'a', '$.args', 'expected Object, encountered String'],
      ['untrack_table', {}, '$.args', 'the key "table" was not present'],
      ['untrack_table', { table: 'a', cascade: 'yes' }, '$.args.cascade', 'expected Boolean, encountered String'],
      ['track_function', { function: 'f', configuration: { session_argument: 5 } }, '$.args.configuration.session_argument', 'expected String, encountered Number'],
      ['untrack_function', { function: { schema: 's' } }, '$.args.function', 'the key "name" was not present'],
    ];
    for (const [type, args, path, error] of cases) await expectError(e, { type, args }, 400, err(path, error, 'parse-failed'));
  });
});

describe('common table check (§4.0, §7 row 24)', () => {
  it('rejects operations naming an untracked table at $.args.table, after parse errors', async () => {
    await e.sql('create table author (id int primary key); create table article (id int, author_id int references author(id)); create schema billing');
    await writeAndReexport(e, { type: 'track_table', args: 'author' });
    const ops: [string, Record<string, unknown>][] = [
      ['create_object_relationship', { name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
      ['create_object_relationship', { name: 'author', using: { foreign_key_constraint_on: 'no_such_column' } }],
      ['create_array_relationship', { name: 'authors', using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } } }],
      ['drop_relationship', { relationship: 'author' }],
    ];
    for (const [type, rest] of ops) {
      await expectError(e, { type, args: { table: 'article', ...rest } }, 400, err('$.args.table', 'table "article" does not exist', 'not-exists'));
      await expectError(e, { type, args: { ...rest, table: { schema: 'billing', name: 'invoice' } } }, 400,
        err('$.args.table', 'table "billing.invoice" does not exist', 'not-exists'));
    }
    await expectError(e, { type: 'create_object_relationship', args: { table: 'nope', name: 'bad name', using: { foreign_key_constraint_on: 'x' } } }, 400,
      err('$.args.name', '"bad name" is not a valid GraphQL name', 'parse-failed'));
    await expectError(e, { type: 'drop_relationship', args: { table: 'nope' } }, 400, err('$.args', 'the key "relationship" was not present', 'parse-failed'));
  });
});

describe('track_function / untrack_function (§4.1.4)', () => {
  beforeEach(async () => {
    await e.sql(`create table author (id int primary key, name text); create table draft (id int);
      create schema s; create table s.item (id int);
      create function search_authors(q text) returns setof author language sql stable as $$ select * from author where name like q $$;
      create function s.items() returns setof s.item language sql immutable as 'select * from s.item';
      create function with_session(sess json) returns setof author language sql stable as 'select * from author';
      create function with_jsonb(a int, sess jsonb) returns setof author language sql stable as 'select * from author';
      create function items() returns setof author language sql stable as 'select * from author';
      create procedure proc() language sql as 'select 1'`);
    await writeAndReexport(e, { type: 'track_table', args: 'author' });
    await writeAndReexport(e, { type: 'track_table', args: { schema: 's', name: 'item' } });
  });

  // Issue 27: an overloaded or VOLATILE function is not-supported; the other requirements are constraint-violation.
  const fnErr = (f: string, reason: string, definition: Record<string, unknown>) => {
    const error = `in function "${f}": ${reason}`;
    const code = /overloaded functions are not supported|only STABLE or IMMUTABLE/.test(reason) ? 'not-supported' : 'constraint-violation';
    return { path: '$.args', error, code, internal: [{ definition, reason: error, type: 'function' }] };
  };

  it('tracks functions given in both forms, exports them sorted, and untracks them in both forms', async () => {
    await writeAndReexport(e, { type: 'track_function', args: 'search_authors' });
    await writeAndReexport(e, { type: 'track_function', args: { schema: 's', name: 'items' } });
    await writeAndReexport(e, { type: 'track_function', args: { function: { schema: 'public', name: 'items' }, configuration: { session_argument: null } } });
    await writeAndReexport(e, { type: 'track_function', args: { function: 'with_session', configuration: { session_argument: 'sess' } } });
    await writeAndReexport(e, { type: 'track_function', args: { function: { name: 'with_jsonb' }, configuration: { session_argument: 'sess' } } });
    const tables = [{ table: qt('author') }, { table: qt('item', 's') }];
    expect((await exported(e)).text).toBe(JSON.stringify({
      version: 2, tables,
      functions: [
        { function: qt('items') },
        { function: qt('search_authors') },
        { function: qt('with_jsonb'), configuration: { session_argument: 'sess' } },
        { function: qt('with_session'), configuration: { session_argument: 'sess' } },
        { function: qt('items', 's') },
      ],
    }));
    await writeAndReexport(e, { type: 'untrack_function', args: 'with_session' });
    await writeAndReexport(e, { type: 'untrack_function', args: { schema: 'public', name: 'with_jsonb' } });
    await writeAndReexport(e, { type: 'untrack_function', args: { function: { schema: 's', name: 'items' } } });
    await writeAndReexport(e, { type: 'untrack_function', args: { function: 'search_authors' } });
    await writeAndReexport(e, { type: 'untrack_function', args: 'items' });
    expect((await exported(e)).text).toBe(doc(tables));
  });

  it('rejects functions missing from the database, already tracked, or not tracked', async () => {
    await expectError(e, { type: 'track_function', args: 'nope' }, 400, err('$.args', 'no such function exists in postgres : "nope"', 'not-exists'));
    await expectError(e, { type: 'track_function', args: { function: { schema: 's', name: 'search_authors' } } }, 400,
      err('$.args', 'no such function exists in postgres : "s.search_authors"', 'not-exists'));
    for (const name of ['author', 'proc']) {
      await expectError(e, { type: 'track_function', args: name }, 400, err('$.args', `no such function exists in postgres : "${name}"`, 'not-exists'));
    }
    await writeAndReexport(e, { type: 'track_function', args: 'search_authors' });
    await writeAndReexport(e, { type: 'track_function', args: { schema: 's', name: 'items' } });
    await expectError(e, { type: 'track_function', args: { function: 'search_authors' } }, 400,
      err('$.args', 'function already tracked : "search_authors"', 'already-tracked'));
    await expectError(e, { type: 'track_function', args: { schema: 's', name: 'items' } }, 400, err('$.args', 'function already tracked : "s.items"', 'already-tracked'));
    await expectError(e, { type: 'untrack_function', args: 'with_session' }, 400, err('$.args', 'function already untracked : "with_session"', 'already-untracked'));
    await expectError(e, { type: 'untrack_function', args: { function: { schema: 's', name: 'nope' } } }, 400,
      err('$.args', 'function already untracked : "s.nope"', 'already-untracked'));
  });

  it('fails requirement checks in order with not-supported or constraint-violation and internal records', async () => {
    await e.sql(`create function ov(a int) returns setof author language sql stable as 'select * from author';
      create function ov(a text) returns setof author language sql volatile as 'select * from author';
      create function vol() returns int language sql as 'select 1';
      create function s.vol() returns setof s.item language sql volatile as 'select * from s.item';
      create function drafts() returns setof draft language sql stable as 'select * from draft';
      create function ints() returns setof int language sql immutable as 'select 1';
      create function vol_session(sess text) returns setof author language sql as 'select * from author';
      create function text_session(sess text) returns setof author language sql stable as 'select * from author'`);
    const f = (name: string, schema = 'public') => ({ function: qt(name, schema) });
    const notTracked = (n: string) => `the function "${n}" does not return rows of a tracked table`;
    const notComposite = (n: string) => `the function "${n}" does not return a "COMPOSITE" type; only functions returning rows of a tracked table can be tracked`;
    const cases: [unknown, string, string, Record<string, unknown>][] = [
      ['ov', 'ov', 'the function "ov" is overloaded; overloaded functions are not supported', f('ov')],
      ['vol', 'vol', 'the function "vol" is of type VOLATILE; only STABLE or IMMUTABLE functions can be tracked', f('vol')],
      [{ function: { schema: 's', name: 'vol' } }, 's.vol', 'the function "s.vol" is of type VOLATILE; only STABLE or IMMUTABLE functions can be tracked', f('vol', 's')],
      [{ function: 'vol_session', configuration: { session_argument: 'nope' } }, 'vol_session',
        'the function "vol_session" is of type VOLATILE; only STABLE or IMMUTABLE functions can be tracked',
        { ...f('vol_session'), configuration: { session_argument: 'nope' } }],
      ['drafts', 'drafts', notTracked('drafts'), f('drafts')],
      [{ function: 'ints', configuration: { session_argument: 'nope' } }, 'ints', notComposite('ints'), { ...f('ints'), configuration: { session_argument: 'nope' } }],
      [{ function: 'text_session', configuration: { session_argument: 'nope' } }, 'text_session',
        '"nope" is not an input argument of the function "text_session"', { ...f('text_session'), configuration: { session_argument: 'nope' } }],
      [{ function: 'text_session', configuration: { session_argument: 'sess' } }, 'text_session',
        '"sess" argument of the function "text_session" is not of type JSON', { ...f('text_session'), configuration: { session_argument: 'sess' } }],
      [{ function: 'with_jsonb', configuration: { session_argument: 'a' } }, 'with_jsonb',
        '"a" argument of the function "with_jsonb" is not of type JSON', { ...f('with_jsonb'), configuration: { session_argument: 'a' } }],
    ];
    for (const [args, name, reason, definition] of cases) {
      await expectError(e, { type: 'track_function', args }, 400, fnErr(name, reason, definition));
    }
  });

  it('makes a tracked function a dependent of the table whose rows it returns', async () => {
    await writeAndReexport(e, { type: 'track_function', args: 'search_authors' });
    await writeAndReexport(e, { type: 'track_function', args: { schema: 's', name: 'items' } });
    await expectError(e, { type: 'untrack_table', args: { table: 'author' } }, 400,
      err('$.args', 'cannot drop due to the following dependent objects : function search_authors', 'dependency-error'));
    await expectError(e, { type: 'untrack_table', args: { table: { schema: 's', name: 'item' } } }, 400,
      err('$.args', 'cannot drop due to the following dependent objects : function s.items', 'dependency-error'));
    await writeAndReexport(e, { type: 'untrack_table', args: { table: { schema: 's', name: 'item' }, cascade: true } });
    expect((await exported(e)).text).toBe(JSON.stringify({ version: 2, tables: [{ table: qt('author') }], functions: [{ function: qt('search_authors') }] }));
  });

  it('tracks a function returning rows of a tracked view', async () => {
    await e.sql(`create view named as select id, name from author where name is not null;
      create function named_authors() returns setof named language sql stable as 'select * from named'`);
    await expectError(e, { type: 'track_function', args: 'named_authors' }, 400,
      fnErr('named_authors', 'the function "named_authors" does not return rows of a tracked table', { function: qt('named_authors') }));
    await writeAndReexport(e, { type: 'track_table', args: 'named' });
    await writeAndReexport(e, { type: 'track_function', args: 'named_authors' });
  });
});
