import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { exported, qt, inconsistentError } from '../helpers/assertions.js';

// clear_metadata, reload_metadata, get_inconsistent_metadata, drop_inconsistent_metadata (engine-api.md §4.8.3–6,
// §3.4; §7 row 23).

const e = useTestEngine();

const op = (type: string) => ({ type, args: {} });
const CONSISTENT = { is_consistent: true, inconsistent_objects: [] };

/** author and article tracked, with the array relationship author.articles (resource_version 4). */
async function setup() {
  await e.sql('create table author (id serial primary key, name text); create table article (id serial primary key, author_id int references author(id), title text)');
  await e.ok({ type: 'track_table', args: 'author' });
  await e.ok({ type: 'track_table', args: 'article' });
  await e.ok({ type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } });
}

/** The example of §4.8.5, byte for byte (line breaks removed). */
const EXAMPLE = '{"is_consistent":false,"inconsistent_objects":['
  + '{"definition":{"schema":"public","name":"article"},"reason":"no such table/view exists in postgres : \\"article\\"","type":"table"},'
  + '{"definition":{"table":{"schema":"public","name":"author"},"name":"articles","using":{"foreign_key_constraint_on":{"table":{"schema":"public","name":"article"},"column":"author_id"}}},'
  + '"reason":"in table \\"author\\": in relationship \\"articles\\": table \\"article\\" does not exist","type":"array_relation"}]}';

describe('get_inconsistent_metadata and reload_metadata (§4.8.4–5)', () => {
  it('answers consistent for fresh and for consistent metadata; reload keeps the version', async () => {
    expect(await e.ok(op('get_inconsistent_metadata'))).toEqual(CONSISTENT);
    await setup();
    const r = await e.query(op('get_inconsistent_metadata'));
    expect(r.text).toBe('{"is_consistent":true,"inconsistent_objects":[]}');
    expect(r.headers.get('x-engine-resource-version')).toBe('4');
    const reload = await e.query(op('reload_metadata'));
    expect(reload.status).toBe(200);
    expect(reload.text).toBe('{"message":"success","is_consistent":true}');
    expect(reload.headers.get('x-engine-resource-version')).toBe('4');
    expect((await exported(e)).version).toBe('4');
  });

  it('the §4.8.5 example: article dropped by another database client, then reload', async () => {
    await setup();
    const before = await exported(e);
    await e.db.query('DROP TABLE article');
    const reload = await e.query(op('reload_metadata'));
    expect(reload.status).toBe(200);
    expect(reload.text).toBe('{"message":"success","is_consistent":false}');
    expect(reload.headers.get('x-engine-resource-version')).toBe('4');
    const r = await e.query(op('get_inconsistent_metadata'));
    expect(r.status).toBe(200);
    expect(r.text).toBe(EXAMPLE);
    // Inconsistent objects stay in the metadata and in exports (§3.4).
    expect(await exported(e)).toEqual(before);
  });

  it('the §4.8.5 example: article dropped through run_sql with check_metadata_consistency: false', async () => {
    await setup();
    const before = await exported(e);
    await e.ok({ type: 'run_sql', args: { sql: 'drop table article', check_metadata_consistency: false } });
    expect(await e.ok(op('reload_metadata'))).toEqual({ message: 'success', is_consistent: false });
    expect((await e.query(op('get_inconsistent_metadata'))).text).toBe(EXAMPLE);
    expect(await exported(e)).toEqual(before);
  });

  it('reload picks up a table created again by another client', async () => {
    await setup();
    await e.db.query('DROP TABLE article');
    await e.ok(op('reload_metadata'));
    await e.db.query('CREATE TABLE article (id serial primary key, author_id int references author(id), title text)');
    expect(await e.ok(op('reload_metadata'))).toEqual({ message: 'success', is_consistent: true });
    expect(await e.ok(op('get_inconsistent_metadata'))).toEqual(CONSISTENT);
    expect((await exported(e)).version).toBe('4');
  });

  it('already-inconsistent objects do not block other writes (§3.4 rule 3)', async () => {
    await setup();
    await e.db.query('DROP TABLE article');
    await e.ok(op('reload_metadata'));
    await e.sql('create table other (id int)');
    await e.ok({ type: 'track_table', args: 'other' });
    expect((await e.query(op('get_inconsistent_metadata'))).text).toBe(EXAMPLE);
    expect((await exported(e)).version).toBe('5');
  });
});

describe('drop_inconsistent_metadata (§4.8.6)', () => {
  it('removes the inconsistent objects with their children', async () => {
    await setup();
    await e.db.query('DROP TABLE article');
    await e.ok(op('reload_metadata'));
    const r = await e.query(op('drop_inconsistent_metadata'));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: 'success' });
    expect(r.headers.get('x-engine-resource-version')).toBe('5');
    expect((await exported(e)).text).toBe('{"version":2,"tables":[{"table":{"schema":"public","name":"author"}}]}');
    expect(await e.ok(op('get_inconsistent_metadata'))).toEqual(CONSISTENT);
  });

  it('removes objects of every kind until none is left', async () => {
    await e.sql(`create table author (id serial primary key, name text);
      create table article (id serial primary key, author_id int references author(id), title text);
      create function search_articles(q text) returns setof article language sql stable as $$ select * from article where title = q $$;
      create function volatile_articles() returns setof article language sql volatile as $$ select * from article $$`);
    const doc = {
      version: 2,
      tables: [
        { table: 'gone', object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] },
        {
          table: 'author',
          object_relationships: [{ name: 'name', using: { manual_configuration: { remote_table: 'article', column_mapping: { id: 'author_id' } } } }],
          array_relationships: [
            { name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
            { name: 'gone_rows', using: { manual_configuration: { remote_table: 'gone', column_mapping: { id: 'author_id' } } } },
          ],
        },
        { table: 'article', object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }, { name: 'bad', using: { foreign_key_constraint_on: 'title' } }] },
      ],
      functions: ['search_articles', 'volatile_articles', { function: 'missing_fn' }],
    };
    const stored = await e.ok({ type: 'replace_metadata', args: { metadata: doc, allow_inconsistent_metadata: true } });
    expect(stored.is_consistent).toBe(false);
    expect(stored.inconsistent_objects.map((o: { type: string; reason: string }) => [o.type, o.reason])).toEqual([
      ['object_relation', 'in table "article": in relationship "bad": no foreign constraint exists on the given column'],
      ['object_relation', 'in table "author": in relationship "name": "name" conflicts with an existing column of table "author"'],
      ['array_relation', 'in table "author": in relationship "gone_rows": table "gone" does not exist'],
      ['table', 'no such table/view exists in postgres : "gone"'],
      ['function', 'in function "missing_fn": no such function exists in postgres : "missing_fn"'],
      ['function', 'in function "volatile_articles": the function "volatile_articles" is of type VOLATILE; only STABLE or IMMUTABLE functions can be tracked'],
    ]);
    expect(await e.ok(op('drop_inconsistent_metadata'))).toEqual({ message: 'success' });
    expect((await exported(e)).text).toBe(JSON.stringify({
      version: 2,
      tables: [
        { table: qt('article'), object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] },
        { table: qt('author'), array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } } }] },
      ],
      functions: [{ function: qt('search_articles') }],
    }));
    expect(await e.ok(op('get_inconsistent_metadata'))).toEqual(CONSISTENT);
    expect(await e.ok(op('reload_metadata'))).toEqual({ message: 'success', is_consistent: true });
  });
});

describe('clear_metadata (§4.8.3)', () => {
  it('empties the metadata and leaves the database alone', async () => {
    await setup();
    const before = await e.state();
    const r = await e.query(op('clear_metadata'));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: 'success' });
    expect(r.headers.get('x-engine-resource-version')).toBe('5');
    const after = await e.state();
    expect(after.metadata).toBe('{"version":2,"tables":[]}');
    expect(after.version).toBe('5');
    expect(after.schema).toBe(before.schema);
    expect(await e.ok(op('get_inconsistent_metadata'))).toEqual(CONSISTENT);
  });

  it('clears inconsistent metadata too', async () => {
    await setup();
    await e.db.query('DROP TABLE article');
    await e.ok(op('reload_metadata'));
    await e.ok(op('clear_metadata'));
    expect(await exported(e)).toEqual({ text: '{"version":2,"tables":[]}', version: '5' });
    expect(await e.ok(op('get_inconsistent_metadata'))).toEqual(CONSISTENT);
  });
});

describe('failing metadata requests change nothing', () => {
  it('a failed replace inside a bulk rolls back the earlier steps', async () => {
    await setup();
    const before = await e.state();
    const r = await e.query({ type: 'bulk', args: [op('clear_metadata'), { type: 'replace_metadata', args: { version: 2, tables: [{ table: 'nope' }] } }] });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(inconsistentError('cannot continue due to inconsistent metadata',
      [{ definition: qt('nope'), reason: 'no such table/view exists in postgres : "nope"', type: 'table' }], '$.args[1].args'));
    expect(await e.state()).toEqual(before);
  });
});
