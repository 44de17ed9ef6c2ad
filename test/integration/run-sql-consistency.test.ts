import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { dependencyError, err, expectErrorKeys, exportedWithBody, qt, relationExists, runSql, inconsistentError } from '../helpers/assertions.js';

// run_sql consistency checks (engine-api.md §4.1.1 steps 5–6, §3.4, §3.5; §7 rows 22, 26, 27).

const e = useTestEngine();

const fk = (column: string) => ({ foreign_key_constraint_on: column });
const fkArr = (table: string, column: string) => ({ foreign_key_constraint_on: { table: qt(table), column } });
const manual = (table: string, column_mapping: Record<string, string>) => ({ manual_configuration: { remote_table: qt(table), column_mapping } });

/**
 * author(id, name) and article(id, author_id → author, title), both tracked, with article.author and
 * author.articles through the foreign key, and (withManual) article.author_m / author.articles_m through manual
 * mappings. Leaves resource_version at 2.
 */
async function setup(withManual = false) {
  await e.sql(`create table author (id serial primary key, name text);
    create table article (id serial primary key, author_id int references author(id), title text)`);
  const steps: unknown[] = [
    { type: 'track_table', args: { table: 'author' } },
    { type: 'track_table', args: { table: 'article' } },
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: fk('author_id') } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  ];
  if (withManual) {
    steps.push(
      { type: 'create_object_relationship', args: { table: 'article', name: 'author_m', using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles_m', using: { manual_configuration: { remote_table: 'article', column_mapping: { id: 'author_id' } } } } },
    );
  }
  await e.ok({ type: 'bulk', args: steps });
  expect((await exportedWithBody(e)).version).toBe('2');
}

/** The §4.8.5 example. */
const articleDroppedRecords = {
  is_consistent: false,
  inconsistent_objects: [
    { definition: qt('article'), reason: 'no such table/view exists in postgres : "article"', type: 'table' },
    {
      definition: { table: qt('author'), name: 'articles', using: fkArr('article', 'author_id') },
      reason: 'in table "author": in relationship "articles": table "article" does not exist', type: 'array_relation',
    },
  ],
};

describe('renames rewrite the metadata (§4.1.1 step 5)', () => {
  it('a renamed table: its key and every remote table', async () => {
    await setup(true);
    expect(await e.ok(runSql('alter table author rename to writer'))).toEqual({ result_type: 'CommandOk', result: null });
    const ex = await exportedWithBody(e);
    expect(ex.version).toBe('3');
    expect(ex.body).toEqual({
      version: 2,
      tables: [
        { table: qt('article'), object_relationships: [{ name: 'author', using: fk('author_id') }, { name: 'author_m', using: manual('writer', { author_id: 'id' }) }] },
        { table: qt('writer'), array_relationships: [{ name: 'articles', using: fkArr('article', 'author_id') }, { name: 'articles_m', using: manual('article', { id: 'author_id' }) }] },
      ],
    });
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('a renamed column: foreign-key columns and manual mapping keys and values', async () => {
    await setup(true);
    await e.sql('alter table article rename column author_id to writer_id');
    const ex = await exportedWithBody(e);
    expect(ex.version).toBe('3');
    expect(ex.body).toEqual({
      version: 2,
      tables: [
        { table: qt('article'), object_relationships: [{ name: 'author', using: fk('writer_id') }, { name: 'author_m', using: manual('author', { writer_id: 'id' }) }] },
        { table: qt('author'), array_relationships: [{ name: 'articles', using: fkArr('article', 'writer_id') }, { name: 'articles_m', using: manual('article', { id: 'writer_id' }) }] },
      ],
    });
    await e.sql('alter table author rename column id to pk');
    expect((await exportedWithBody(e)).body).toEqual({
      version: 2,
      tables: [
        { table: qt('article'), object_relationships: [{ name: 'author', using: fk('writer_id') }, { name: 'author_m', using: manual('author', { writer_id: 'pk' }) }] },
        { table: qt('author'), array_relationships: [{ name: 'articles', using: fkArr('article', 'writer_id') }, { name: 'articles_m', using: manual('article', { pk: 'writer_id' }) }] },
      ],
    });
    // A column of the same name in another table is a different column: nothing else is rewritten.
    const v4 = (await exportedWithBody(e)).text;
    await e.sql('alter table article rename column id to article_pk');
    expect((await exportedWithBody(e)).text).toBe(v4);
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('table and column renames in one script, counted as one version', async () => {
    await setup(true);
    await e.sql('alter table author rename to writer; alter table article rename column author_id to writer_id; alter table article rename to post');
    const ex = await exportedWithBody(e);
    expect(ex.version).toBe('3');
    expect(ex.body).toEqual({
      version: 2,
      tables: [
        { table: qt('post'), object_relationships: [{ name: 'author', using: fk('writer_id') }, { name: 'author_m', using: manual('writer', { writer_id: 'id' }) }] },
        { table: qt('writer'), array_relationships: [{ name: 'articles', using: fkArr('post', 'writer_id') }, { name: 'articles_m', using: manual('post', { id: 'writer_id' }) }] },
      ],
    });
  });
});

describe('dropped tables (§4.1.1 step 5, §4.1.3)', () => {
  it('a tracked table with dependents: dependency-error, nothing changes', async () => {
    await setup();
    await expectErrorKeys(e, runSql('drop table author cascade'), 400, dependencyError('relationship article.author'));
    expect(await relationExists(e, 'public.author')).toBe(true);
    await expectErrorKeys(e, runSql('drop table article'), 400, dependencyError('relationship author.articles'));
    expect(await relationExists(e, 'public.article')).toBe(true);
  });

  it('lists every dependent, sorted, including tracked functions returning its rows', async () => {
    await setup(true);
    await e.sql('create function search_articles(q text) returns setof article language sql stable as $$ select * from article where title = q $$');
    await e.ok({ type: 'track_function', args: 'search_articles' });
    await expectErrorKeys(e, runSql('drop table article cascade'), 400,
      dependencyError('function search_articles, relationship author.articles, relationship author.articles_m'));
  });

  it('with cascade: true the table is untracked with its dependents', async () => {
    await setup();
    expect(await e.ok(runSql('drop table author cascade', { cascade: true }))).toEqual({ result_type: 'CommandOk', result: null });
    const ex = await exportedWithBody(e);
    expect(ex.version).toBe('3');
    expect(ex.text).toBe('{"version":2,"tables":[{"table":{"schema":"public","name":"article"}}]}');
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('a tracked table without dependents is untracked', async () => {
    await e.sql('create table lonely (id int); create table other (id int)');
    await e.ok({ type: 'track_table', args: 'lonely' });
    await e.ok({ type: 'track_table', args: 'other' });
    await e.sql('drop table lonely');
    const ex = await exportedWithBody(e);
    expect(ex.version).toBe('4');
    expect(ex.text).toBe('{"version":2,"tables":[{"table":{"schema":"public","name":"other"}}]}');
  });

  it('a table dropped and recreated under the same name (a new OID) is untracked', async () => {
    await e.sql('create table lonely (id int)');
    await e.ok({ type: 'track_table', args: 'lonely' });
    await e.sql('drop table lonely; create table lonely (id int)');
    const ex = await exportedWithBody(e);
    expect(ex.version).toBe('3');
    expect(ex.text).toBe('{"version":2,"tables":[]}');
  });

  it('a dropped tracked function is untracked', async () => {
    await setup();
    await e.sql('create function search_articles(q text) returns setof article language sql stable as $$ select * from article where title = q $$');
    await e.ok({ type: 'track_function', args: 'search_articles' });
    expect((await exportedWithBody(e)).version).toBe('3');
    await e.sql('drop function search_articles(text)');
    const ex = await exportedWithBody(e);
    expect(ex.version).toBe('4');
    expect((ex.body as { functions?: unknown }).functions).toBeUndefined();
  });
});

describe('dropped and retyped columns (§4.1.1 step 5)', () => {
  it('a dropped column used by relationships: dependency-error', async () => {
    await setup(true);
    await expectErrorKeys(e, runSql('alter table article drop column author_id'), 400,
      dependencyError('relationship article.author, relationship article.author_m, relationship author.articles, relationship author.articles_m'));
  });

  it('a dropped column with cascade: true removes the relationships using it', async () => {
    await setup(true);
    await e.ok(runSql('alter table author drop column name; alter table article drop column author_id', { cascade: true }));
    const ex = await exportedWithBody(e);
    expect(ex.version).toBe('3');
    expect(ex.text).toBe('{"version":2,"tables":[{"table":{"schema":"public","name":"article"}},{"table":{"schema":"public","name":"author"}}]}');
  });

  it('a dropped column without dependents changes nothing in the metadata', async () => {
    await setup();
    const before = await exportedWithBody(e);
    await e.sql('alter table article drop column title');
    expect(await exportedWithBody(e)).toEqual(before);
  });

  it('a type change of a column with dependents: dependency-error naming the column', async () => {
    await setup();
    await expectErrorKeys(e, runSql('alter table article alter column author_id type bigint'), 400, {
      path: '$.args',
      error: 'cannot change type of column "author_id" in table "article" because of the following dependencies : relationship article.author, relationship author.articles',
      code: 'dependency-error',
    });
  });

  it('a type change with cascade: true removes the dependents; without dependents nothing changes', async () => {
    await setup();
    const before = await exportedWithBody(e);
    await e.sql('alter table article alter column title type varchar(20)');
    expect(await exportedWithBody(e)).toEqual(before);
    await e.ok(runSql('alter table article alter column author_id type bigint', { cascade: true }));
    const ex = await exportedWithBody(e);
    expect(ex.version).toBe('3');
    expect(ex.text).toBe('{"version":2,"tables":[{"table":{"schema":"public","name":"article"}},{"table":{"schema":"public","name":"author"}}]}');
  });
});

describe('newly inconsistent objects (§4.1.1 step 5, §3.4 rule 2, row 22)', () => {
  it('a dropped foreign key: cannot continue due to new inconsistent metadata', async () => {
    await setup();
    await expectErrorKeys(e, runSql('alter table article drop constraint article_author_id_fkey'), 400, inconsistentError('cannot continue due to new inconsistent metadata', [
        {
          definition: { table: qt('article'), name: 'author', using: fk('author_id') },
          reason: 'in table "article": in relationship "author": no foreign constraint exists on the given column', type: 'object_relation',
        },
        {
          definition: { table: qt('author'), name: 'articles', using: fkArr('article', 'author_id') },
          reason: 'in table "author": in relationship "articles": no foreign constraint exists on the given column', type: 'array_relation',
        },
    ]));
  });

  it('a tracked function overloaded or made VOLATILE: not-supported (issue 27), nothing changes', async () => {
    await setup();
    await e.sql('create function search_articles(q text) returns setof article language sql stable as $$ select * from article where title = q $$');
    await e.ok({ type: 'track_function', args: 'search_articles' });
    const before = await e.state();
    await expectErrorKeys(e, runSql('create function search_articles(q int) returns setof article language sql stable as $$ select * from article where id = q $$'), 400,
      err('$.args', 'the function "search_articles" is being overloaded; overloaded functions are not supported', 'not-supported'));
    await expectErrorKeys(e, runSql('alter function search_articles(text) volatile'), 400,
      err('$.args', 'the type of function "search_articles" is being altered to "VOLATILE"; only STABLE or IMMUTABLE functions can be tracked', 'not-supported'));
    expect(await e.state()).toEqual(before);
  });

  it('objects already inconsistent do not make run_sql fail (rule 3)', async () => {
    await setup();
    await e.db.query('DROP TABLE article');
    await e.ok({ type: 'reload_metadata', args: {} });
    expect(await e.ok(runSql('create table t (id int); select 1 as one'))).toEqual({ result_type: 'TuplesOk', result: [['one'], ['1']] });
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual(articleDroppedRecords);
  });
});

describe('check_metadata_consistency: false (§4.1.1 step 6)', () => {
  it('a dropped table: the document is untouched, the inconsistencies are recorded', async () => {
    await setup();
    const before = await exportedWithBody(e);
    const r = await e.query(runSql('drop table article', { check_metadata_consistency: false }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result_type: 'CommandOk', result: null });
    expect(r.headers.get('x-engine-resource-version')).toBe('2');
    expect(await exportedWithBody(e)).toEqual(before);
    expect(await relationExists(e, 'public.article')).toBe(false);
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual(articleDroppedRecords);
    expect(await e.ok({ type: 'reload_metadata', args: {} })).toEqual({ message: 'success', is_consistent: false });
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual(articleDroppedRecords);
    expect(await exportedWithBody(e)).toEqual(before);
  });

  it('a renamed table and a dropped column: nothing is rewritten or removed', async () => {
    await setup(true);
    const before = await exportedWithBody(e);
    await e.ok(runSql('alter table author rename to writer; alter table article drop column title', { check_metadata_consistency: false }));
    expect(await exportedWithBody(e)).toEqual(before);
    expect(await e.ok({ type: 'reload_metadata', args: {} })).toEqual({ message: 'success', is_consistent: false });
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({
      is_consistent: false,
      inconsistent_objects: [
        {
          definition: { table: qt('article'), name: 'author', using: fk('author_id') },
          reason: 'in table "article": in relationship "author": table "writer" does not exist', type: 'object_relation',
        },
        {
          definition: { table: qt('article'), name: 'author_m', using: manual('author', { author_id: 'id' }) },
          reason: 'in table "article": in relationship "author_m": table "author" does not exist', type: 'object_relation',
        },
        { definition: qt('author'), reason: 'no such table/view exists in postgres : "author"', type: 'table' },
      ],
    });
    expect((await exportedWithBody(e)).version).toBe('2');
  });
});
