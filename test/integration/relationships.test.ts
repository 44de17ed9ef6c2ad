import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { err, expectError, exported, qt, write, inconsistentError } from '../helpers/assertions.js';

// engine-api.md §4.2 (relationships), §3.4 (consistency rules), §6.1/§6.4 (export shape), §7 rows 10, 12–13, 21–22, 38–40.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id int primary key, name text);
    create table article (id int primary key, author_id int references author(id), editor_id int, title text);
    create table draft (id int primary key, author_id int references author(id));
    create table publisher (id int primary key);
    create table book (id int primary key, publisher_id int references publisher(id));
    create table pair (a int, b int, primary key (a, b));
    create table pair_ref (id int, a int, b int, foreign key (a, b) references pair (a, b));
    create schema billing;
    create table billing.account (id int primary key);
    create table billing.invoice (id int primary key, customer_id int references author(id), account_id int references billing.account(id), total int)`);
  for (const t of ['author', 'article', 'book', 'pair', 'pair_ref', { schema: 'billing', name: 'invoice' }]) await write(e, { type: 'track_table', args: t });
} });

type Q = string | { schema?: string; name: string };
const qtOf = (t: Q) => (typeof t === 'string' ? qt(t) : qt(t.name, t.schema));
const text = (t: Q) => (qtOf(t).schema === 'public' ? qtOf(t).name : `${qtOf(t).schema}.${qtOf(t).name}`);
const INVOICE = qt('invoice', 'billing');

const rel = (kind: 'object' | 'array', table: Q, name: string, using: unknown, extra: Record<string, unknown> = {}) =>
  ({ type: `create_${kind}_relationship`, args: { table, name, using, ...extra } });

/** A `using` as stored and exported: column_mapping keys sorted by code point (§6.3). */
function stored(using: unknown): unknown {
  const m = (using as { manual_configuration?: { remote_table: unknown; column_mapping: Record<string, string> } }).manual_configuration;
  if (!m) return using;
  const sorted = Object.fromEntries(Object.entries(m.column_mapping).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { manual_configuration: { remote_table: m.remote_table, column_mapping: sorted } };
}

/** The §7 row 39 body: the message with its context and one internal record (definition with "table" first). */
function resolutionError(kind: 'object' | 'array', table: Q, name: string, using: unknown, reason: string) {
  const error = `in table "${text(table)}": in relationship "${name}": ${reason}`;
  return {
    path: '$.args', error, code: 'constraint-violation',
    internal: [{ definition: { table: qtOf(table), name, using: stored(using) }, reason: error, type: `${kind}_relation` }],
  };
}

describe('creating relationships', () => {
  it('creates foreign-key and manual relationships of both kinds and exports them (§6.1, §6.4)', async () => {
    await write(e, rel('object', 'article', 'author', { foreign_key_constraint_on: 'author_id' }));
    await write(e, rel('array', 'author', 'articles', { foreign_key_constraint_on: { table: 'article', column: 'author_id' } }));
    await write(e, rel('object', 'article', 'editor', { manual_configuration: { remote_table: 'author', column_mapping: { editor_id: 'id' } } }, { comment: 'edits it' }));
    await write(e, rel('array', 'author', 'edited', { manual_configuration: { remote_table: { schema: 'public', name: 'article' }, column_mapping: { id: 'editor_id' } } }, { comment: null }));
    await write(e, rel('object', { schema: 'billing', name: 'invoice' }, 'customer', { foreign_key_constraint_on: 'customer_id' }, { comment: '' }));
    await write(e, rel('array', { name: 'author' }, 'invoices', { foreign_key_constraint_on: { table: { schema: 'billing', name: 'invoice' }, column: 'customer_id' } }));
    await write(e, rel('object', 'pair_ref', 'pair', { manual_configuration: { remote_table: 'pair', column_mapping: { b: 'b', a: 'a' } } }));
    const x = await exported(e);
    expect(x.version).toBe('14');
    expect(x.text).toBe(JSON.stringify({
      version: 2,
      tables: [
        { table: INVOICE, object_relationships: [{ name: 'customer', using: { foreign_key_constraint_on: 'customer_id' }, comment: '' }] },
        {
          table: qt('article'),
          object_relationships: [
            { name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
            { name: 'editor', using: { manual_configuration: { remote_table: qt('author'), column_mapping: { editor_id: 'id' } } }, comment: 'edits it' },
          ],
        },
        {
          table: qt('author'),
          array_relationships: [
            { name: 'articles', using: { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } } },
            { name: 'edited', using: { manual_configuration: { remote_table: qt('article'), column_mapping: { id: 'editor_id' } } } },
            { name: 'invoices', using: { foreign_key_constraint_on: { table: INVOICE, column: 'customer_id' } } },
          ],
        },
        { table: qt('book') },
        { table: qt('pair') },
        { table: qt('pair_ref'), object_relationships: [{ name: 'pair', using: { manual_configuration: { remote_table: qt('pair'), column_mapping: { a: 'a', b: 'b' } } } }] },
      ],
    }));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('rejects invalid names and using objects with parse errors (§7 rows 5, 6, 10, 12, 13)', async () => {
    const fk = { foreign_key_constraint_on: 'author_id' };
    const manual = { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } };
    const cases: [Record<string, unknown>, Record<string, string>][] = [
      [rel('object', 'article', 'my author', fk), err('$.args.name', '"my author" is not a valid GraphQL name', 'parse-failed')],
      [rel('array', 'author', '1articles', manual), err('$.args.name', '"1articles" is not a valid GraphQL name', 'parse-failed')],
      [rel('object', 'article', 'author', { ...fk, ...manual }), err('$.args.using', 'only one of "foreign_key_constraint_on" or "manual_configuration" may be given', 'parse-failed')],
      [rel('array', 'author', 'articles', { ...manual, foreign_key_constraint_on: { table: 'article', column: 'author_id' } }),
        err('$.args.using', 'only one of "foreign_key_constraint_on" or "manual_configuration" may be given', 'parse-failed')],
      [rel('object', 'article', 'author', {}), err('$.args.using', 'one of "foreign_key_constraint_on" or "manual_configuration" is required', 'parse-failed')],
      [rel('array', 'author', 'articles', { foreign_key_constraint_on: null }), err('$.args.using', 'one of "foreign_key_constraint_on" or "manual_configuration" is required', 'parse-failed')],
      [rel('object', 'article', 'author', 'author_id'), err('$.args.using', 'expected Object, encountered String', 'parse-failed')],
      [rel('array', 'author', 'articles', { foreign_key_constraint_on: 'author_id' }), err('$.args.using.foreign_key_constraint_on', 'expected Object, encountered String', 'parse-failed')],
      [rel('array', 'author', 'articles', { foreign_key_constraint_on: { table: 'article' } }), err('$.args.using.foreign_key_constraint_on', 'one of "column" or "columns" is required', 'parse-failed')],
      [rel('object', 'article', 'author', { manual_configuration: { remote_table: 'author' } }), err('$.args.using.manual_configuration', 'the key "column_mapping" was not present', 'parse-failed')],
      [rel('object', 'article', 'author', { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id', 'my col': 5 } } }),
        err("$.args.using.manual_configuration.column_mapping['my col']", 'expected String, encountered Number', 'parse-failed')],
      [rel('object', 'article', 'author', fk, { comment: 5 }), err('$.args.comment', 'expected String, encountered Number', 'parse-failed')],
      [{ type: 'create_object_relationship', args: { table: 'article', name: 'author' } }, err('$.args', 'the key "using" was not present', 'parse-failed')],
    ];
    for (const [body, expected] of cases) await expectError(e, body, 400, expected);
  });

  it('rejects a name taken by a column or a relationship, before resolving (§7 row 38)', async () => {
    await write(e, rel('object', 'article', 'author', { foreign_key_constraint_on: 'author_id' }));
    await write(e, rel('array', 'author', 'articles', { foreign_key_constraint_on: { table: 'article', column: 'author_id' } }));
    const conflict = (name: string, what: string, t: string) => err('$.args.name', `"${name}" conflicts with an existing ${what} of table "${t}"`, 'already-exists');
    await expectError(e, rel('object', 'article', 'title', { foreign_key_constraint_on: 'no_such_column' }), 400, conflict('title', 'column', 'article'));
    await expectError(e, rel('array', 'article', 'author', { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } }), 400,
      conflict('author', 'relationship', 'article'));
    await expectError(e, rel('object', 'author', 'articles', { manual_configuration: { remote_table: 'nope', column_mapping: {} } }), 400,
      conflict('articles', 'relationship', 'author'));
    await expectError(e, rel('object', { schema: 'billing', name: 'invoice' }, 'total', { foreign_key_constraint_on: 'customer_id' }), 400,
      conflict('total', 'column', 'billing.invoice'));
  });

  it('reports object foreign-key reasons in order (§4.2)', async () => {
    const cases: [Q, string, string][] = [
      ['article', 'nope', 'column "nope" does not exist in table "article"'],
      ['article', 'title', 'no foreign constraint exists on the given column'],
      ['pair_ref', 'a', 'no foreign constraint exists on the given column'],
      ['author', 'id', 'no foreign constraint exists on the given column'],
      ['book', 'publisher_id', 'table "publisher" does not exist'],
      [INVOICE, 'account_id', 'table "billing.account" does not exist'],
      [INVOICE, 'nope', 'column "nope" does not exist in table "billing.invoice"'],
    ];
    for (const [table, column, reason] of cases) {
      const using = { foreign_key_constraint_on: column };
      await expectError(e, rel('object', table, 'r', using), 400, resolutionError('object', table, 'r', using, reason));
    }
  });

  it('reports array foreign-key reasons in order (§4.2)', async () => {
    const fk = (table: Q, column: string) => ({ foreign_key_constraint_on: { table: qtOf(table), column } });
    const cases: [Q, ReturnType<typeof fk>, string][] = [
      ['author', fk('draft', 'nope'), 'table "draft" does not exist'],
      ['author', fk({ schema: 'billing', name: 'nope' }, 'customer_id'), 'table "billing.nope" does not exist'],
      ['author', fk('article', 'nope'), 'column "nope" does not exist in table "article"'],
      ['author', fk(INVOICE, 'nope'), 'column "nope" does not exist in table "billing.invoice"'],
      ['author', fk('article', 'editor_id'), 'no foreign constraint exists on the given column'],
      ['article', fk(INVOICE, 'customer_id'), 'no foreign constraint exists on the given column'],
      ['pair', fk('pair_ref', 'a'), 'no foreign constraint exists on the given column'],
    ];
    for (const [table, using, reason] of cases) {
      await expectError(e, rel('array', table, 'r', using), 400, resolutionError('array', table, 'r', using, reason));
    }
    // String names in the request appear in the internal definition in their stored (object) form.
    await expectError(e, rel('array', 'author', 'r', { foreign_key_constraint_on: { table: 'article', column: 'nope' } }), 400,
      resolutionError('array', 'author', 'r', fk('article', 'nope'), 'column "nope" does not exist in table "article"'));
  });

  it('reports manual-configuration reasons in order, local columns before remote ones (§4.2)', async () => {
    const manual = (remote: Q, column_mapping: Record<string, string>) => ({ manual_configuration: { remote_table: qtOf(remote), column_mapping } });
    const cases: ['object' | 'array', Q, ReturnType<typeof manual>, string][] = [
      ['object', 'article', manual('draft', {}), 'table "draft" does not exist'],
      ['array', 'author', manual('draft', { nope: 'nope' }), 'table "draft" does not exist'],
      ['object', 'article', manual('author', {}), 'column mapping cannot be empty'],
      ['array', INVOICE, manual('author', {}), 'column mapping cannot be empty'],
      ['object', 'article', manual('author', { author_id: 'nope', zz: 'id' }), 'column "zz" does not exist in table "article"'],
      ['array', 'author', manual('article', { zz: 'nope', aa: 'nope' }), 'column "zz" does not exist in table "author"'],
      ['array', 'author', manual('article', { id: 'zz', name: 'aa' }), 'column "zz" does not exist in table "article"'],
      ['object', INVOICE, manual('author', { customer_id: 'nope' }), 'column "nope" does not exist in table "author"'],
      ['object', 'article', manual(INVOICE, { author_id: 'nope' }), 'column "nope" does not exist in table "billing.invoice"'],
    ];
    for (const [kind, table, using, reason] of cases) {
      await expectError(e, rel(kind, table, 'r', using), 400, resolutionError(kind, table, 'r', using, reason));
    }
  });
});

describe('drop_relationship', () => {
  it('drops a relationship of either kind', async () => {
    const before = (await exported(e)).text;
    await write(e, rel('object', 'article', 'author', { foreign_key_constraint_on: 'author_id' }));
    await write(e, rel('array', INVOICE, 'lines', { manual_configuration: { remote_table: 'article', column_mapping: { id: 'id' } } }));
    await write(e, { type: 'drop_relationship', args: { table: 'article', relationship: 'author' } });
    await write(e, { type: 'drop_relationship', args: { table: { schema: 'billing', name: 'invoice' }, relationship: 'lines', cascade: false } });
    expect((await exported(e)).text).toBe(before);
  });

  it('rejects a relationship that does not exist (§7 row 40)', async () => {
    await write(e, rel('object', 'article', 'author', { foreign_key_constraint_on: 'author_id' }));
    await expectError(e, { type: 'drop_relationship', args: { table: 'author', relationship: 'author' } }, 400,
      err('$.args.relationship', 'relationship "author" does not exist in table "author"', 'not-exists'));
    await expectError(e, { type: 'drop_relationship', args: { table: 'article', relationship: 'title' } }, 400,
      err('$.args.relationship', 'relationship "title" does not exist in table "article"', 'not-exists'));
    await expectError(e, { type: 'drop_relationship', args: { table: INVOICE, relationship: 'customer' } }, 400,
      err('$.args.relationship', 'relationship "customer" does not exist in table "billing.invoice"', 'not-exists'));
  });
});

describe('consistency rules (§3.4)', () => {
  const fkAuthor = { foreign_key_constraint_on: 'author_id' };
  const fkArticles = { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } };
  const inconsistent = async () => e.ok({ type: 'get_inconsistent_metadata', args: {} });

  it('rejects a relationship on a tracked table missing from the database (§7 row 21)', async () => {
    await e.ok({ type: 'run_sql', args: { sql: 'drop table article', check_metadata_consistency: false } });
    expect(await e.ok({ type: 'reload_metadata', args: {} })).toEqual({ message: 'success', is_consistent: false });
    const manual = { manual_configuration: { remote_table: qt('author'), column_mapping: { author_id: 'id' } } };
    for (const [kind, name, using] of [['object', 'author', fkAuthor], ['array', 'authors', manual]] as const) {
      const error = `in table "article": in relationship "${name}": table "article" is inconsistent`;
      await expectError(e, rel(kind, 'article', name, using), 400, {
        path: '$.args', error, code: 'constraint-violation',
        internal: [{ definition: { table: qt('article'), name, using }, reason: error, type: `${kind}_relation` }],
      });
    }
    // A relationship pointing at the missing table is itself inconsistent (§4.8.5 example).
    await expectError(e, rel('array', 'author', 'articles', fkArticles), 400,
      resolutionError('array', 'author', 'articles', fkArticles, 'table "article" does not exist'));
  });

  it('drops relationships of, and untracks, a tracked table missing from the database', async () => {
    await write(e, rel('object', 'article', 'author', fkAuthor));
    await write(e, rel('array', 'article', 'self', { manual_configuration: { remote_table: 'article', column_mapping: { id: 'id' } } }));
    await e.ok({ type: 'run_sql', args: { sql: 'drop table article', check_metadata_consistency: false } });
    expect(await inconsistent()).toEqual({ is_consistent: false, inconsistent_objects: [
      { definition: qt('article'), reason: 'no such table/view exists in postgres : "article"', type: 'table' },
    ] });
    await write(e, { type: 'drop_relationship', args: { table: 'article', relationship: 'author' } });
    await expectError(e, { type: 'drop_relationship', args: { table: 'article', relationship: 'author' } }, 400,
      err('$.args.relationship', 'relationship "author" does not exist in table "article"', 'not-exists'));
    await write(e, { type: 'untrack_table', args: { table: 'article' } });
    expect(await inconsistent()).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('fails an operation that makes other objects inconsistent with 400 unexpected (§7 row 22)', async () => {
    await write(e, rel('object', 'article', 'author', fkAuthor));
    await write(e, rel('array', 'author', 'articles', fkArticles));
    await write(e, rel('object', 'article', 'writer', { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } }));
    const record = (kind: 'object' | 'array', table: string, name: string, using: unknown, reason: string) => {
      const msg = `in table "${table}": in relationship "${name}": ${reason}`;
      return { definition: { table: qt(table), name, using }, reason: msg, type: `${kind}_relation` };
    };
    const noFk = 'no foreign constraint exists on the given column';
    await expectError(e, { type: 'run_sql', args: { sql: 'alter table article drop constraint article_author_id_fkey' } }, 400,
      inconsistentError('cannot continue due to new inconsistent metadata',
        [record('object', 'article', 'author', fkAuthor, noFk), record('array', 'author', 'articles', fkArticles, noFk)]));
    await expectError(e, { type: 'run_sql', args: { sql: 'alter table article add column writer int' } }, 400,
      inconsistentError('cannot continue due to new inconsistent metadata',
        [record('object', 'article', 'writer', { manual_configuration: { remote_table: qt('author'), column_mapping: { author_id: 'id' } } },
          '"writer" conflicts with an existing column of table "article"')]));
    expect(await inconsistent()).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('rejects a name taken by an inconsistent relationship of the table (§4.2: unique among its relationships)', async () => {
    await write(e, rel('object', 'article', 'author', fkAuthor));
    await e.ok({ type: 'run_sql', args: { sql: 'alter table article drop constraint article_author_id_fkey', check_metadata_consistency: false } });
    const manual = { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } };
    for (const kind of ['object', 'array'] as const) {
      await expectError(e, rel(kind, 'article', 'author', manual), 400,
        err('$.args.name', '"author" conflicts with an existing relationship of table "article"', 'already-exists'));
    }
  });

  it('never fails an operation because of objects that were already inconsistent (rule 3)', async () => {
    await write(e, rel('object', 'article', 'author', fkAuthor));
    await write(e, rel('array', 'author', 'articles', fkArticles));
    const v = (await exported(e)).version;
    await e.ok({ type: 'run_sql', args: { sql: 'alter table article drop constraint article_author_id_fkey', check_metadata_consistency: false } });
    expect((await exported(e)).version).toBe(v);
    const listed = await inconsistent();
    expect(listed.is_consistent).toBe(false);
    expect(listed.inconsistent_objects.map((o: { reason: string }) => o.reason)).toEqual([
      'in table "article": in relationship "author": no foreign constraint exists on the given column',
      'in table "author": in relationship "articles": no foreign constraint exists on the given column',
    ]);
    await write(e, { type: 'track_table', args: 'draft' });
    await write(e, rel('object', 'draft', 'author', fkAuthor));
    await write(e, rel('object', 'article', 'editor', { manual_configuration: { remote_table: 'author', column_mapping: { editor_id: 'id' } } }));
    const r = await e.query({ type: 'run_sql', args: { sql: 'create table tag (id int)' } });
    expect(r.status).toBe(200);
    await write(e, { type: 'drop_relationship', args: { table: 'article', relationship: 'author' } });
    expect((await inconsistent()).inconsistent_objects).toEqual([{
      definition: { table: qt('author'), name: 'articles', using: fkArticles },
      reason: 'in table "author": in relationship "articles": no foreign constraint exists on the given column', type: 'array_relation',
    }]);
    await write(e, { type: 'untrack_table', args: { table: 'draft' } });
  });
});
