import { describe, expect, it } from 'vitest';
import { post, useTestEngine } from '../helpers/engine.js';
import { fails } from '../helpers/assertions.js';

// engine-api.md §4.8.7 `bulk` (and §3.3 for its transaction and resource_version, §7 row 80 for its errors).

const e = useTestEngine();

const SUCCESS = { message: 'success' };
const CMD_OK = { result_type: 'CommandOk', result: null };
const sql = (text: string) => ({ type: 'run_sql', args: { sql: text } });
const track = (table: unknown) => ({ type: 'track_table', args: table });
const bulk = (...ops: unknown[]) => ({ type: 'bulk', args: ops });
const EXPORT = { type: 'export_metadata', args: {} };
const GET_INC = { type: 'get_inconsistent_metadata', args: {} };
const objRel = (table: string, name: string, column: string) => ({
  type: 'create_object_relationship', args: { table, name, using: { foreign_key_constraint_on: column } },
});
const tableEntry = (name: string) => ({ table: { schema: 'public', name } });
const AUTHOR_ARTICLE = 'create table author (id serial primary key, name text); ' +
  'create table article (id serial primary key, author_id int references author(id), title text)';

/** The metadata row as stored in the database, bypassing the engine's cache. */
async function stored(): Promise<{ doc: unknown; version: number }> {
  const rows = await e.db.query<{ m: string; v: number }>('SELECT metadata::text AS m, resource_version AS v FROM engine_catalog.metadata');
  return { doc: JSON.parse(rows[0]?.m ?? 'null'), version: Number(rows[0]?.v) };
}

describe('success', () => {
  it('an empty bulk answers [] and changes nothing', async () => {
    const before = await e.state();
    const r = await e.query(bulk());
    expect({ status: r.status, text: r.text }).toEqual({ status: 200, text: '[]' });
    expect(r.headers.get('x-engine-resource-version')).toBe('1');
    expect(await e.state()).toEqual(before);
  });

  it('answers the results in order; each sub-operation sees the earlier ones', async () => {
    const r = await e.query(bulk(
      sql(AUTHOR_ARTICLE),
      sql("insert into author (name) values ('ann') returning id, name"),
      track('author'),
      track({ table: 'article' }),
      objRel('article', 'author', 'author_id'),
      EXPORT,
      sql('select count(*) as n from author'),
      GET_INC,
    ));
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      CMD_OK,
      { result_type: 'TuplesOk', result: [['id', 'name'], ['1', 'ann']] },
      SUCCESS,
      SUCCESS,
      SUCCESS,
      {
        version: 2,
        tables: [
          { ...tableEntry('article'), object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] },
          tableEntry('author'),
        ],
      },
      { result_type: 'TuplesOk', result: [['n'], ['1']] },
      { is_consistent: true, inconsistent_objects: [] },
    ]);
    expect(r.headers.get('x-engine-resource-version')).toBe('2');
    const after = await e.ok(EXPORT);
    expect(after).toEqual((r.body as unknown[])[5]);
  });

  it('sees an earlier rename by run_sql', async () => {
    const r = await e.ok(bulk(sql('create table a (id int)'), track('a'), sql('alter table a rename to b'), EXPORT));
    expect(r).toEqual([CMD_OK, SUCCESS, CMD_OK, { version: 2, tables: [tableEntry('b')] }]);
  });

  it('nested bulks answer nested arrays', async () => {
    const r = await e.ok(bulk(sql('create table a (id int)'), bulk(track('a'), bulk()), bulk(EXPORT)));
    expect(r).toEqual([CMD_OK, [SUCCESS, []], [{ version: 2, tables: [tableEntry('a')] }]]);
  });
});

describe('resource_version', () => {
  it('grows by exactly 1 for a bulk with several writes, and the stored document matches', async () => {
    await e.sql(AUTHOR_ARTICLE);
    const r = await e.query(bulk(track('author'), track('article'), objRel('article', 'author', 'author_id')));
    expect(r.status).toBe(200);
    expect(r.headers.get('x-engine-resource-version')).toBe('2');
    expect((await e.state()).version).toBe('2');
    const s = await stored();
    expect(s.version).toBe(2);
    expect(s.doc).toEqual(await e.ok(EXPORT));
    // Another bulk with writes: one more.
    const r2 = await e.query(bulk({ type: 'drop_relationship', args: { table: 'article', relationship: 'author' } }, { type: 'untrack_table', args: { table: 'article' } }));
    expect(r2.status).toBe(200);
    expect(r2.headers.get('x-engine-resource-version')).toBe('3');
    expect(await stored()).toEqual({ doc: { version: 2, tables: [tableEntry('author')] }, version: 3 });
  });

  it('grows by exactly 1 when a metadata write is followed by a run_sql that changes no metadata', async () => {
    const r = await e.query(bulk(sql('create table a (id int)'), track('a'), sql('create table b (id int)'), sql('select 1')));
    expect(r.status).toBe(200);
    expect(r.body).toEqual([CMD_OK, SUCCESS, CMD_OK, { result_type: 'TuplesOk', result: [['?column?'], ['1']] }]);
    expect(r.headers.get('x-engine-resource-version')).toBe('2');
    const s = await stored();
    expect(s).toEqual({ doc: { version: 2, tables: [tableEntry('a')] }, version: 2 });
    // A fresh cache built from the database agrees with what the request reported.
    await e.engine.refresh();
    expect(await e.ok(EXPORT)).toEqual({ version: 2, tables: [tableEntry('a')] });
  });

  it('stays unchanged for a bulk of reads only', async () => {
    await e.sql('create table a (id int)');
    await e.ok(track('a'));
    const before = await e.state();
    expect(before.version).toBe('2');
    const r = await e.query(bulk(EXPORT, GET_INC, bulk(EXPORT)));
    expect(r.status).toBe(200);
    expect(r.headers.get('x-engine-resource-version')).toBe('2');
    const doc = { version: 2, tables: [tableEntry('a')] };
    expect(r.body).toEqual([doc, { is_consistent: true, inconsistent_objects: [] }, [doc]]);
    expect(await e.state()).toEqual(before);
    expect((await stored()).version).toBe(2);
  });
});

describe('failure rolls everything back', () => {
  it('rewrites $.args.table of the third sub-operation to $.args[2].args.table and undoes the DDL and tracking', async () => {
    const r = await fails(e, bulk(sql(AUTHOR_ARTICLE + "; insert into author (name) values ('x')"), track('author'), objRel('nope', 'r', 'c')),
      400, { path: '$.args[2].args.table', error: 'table "nope" does not exist', code: 'not-exists' });
    expect(r.text).toBe('{"path":"$.args[2].args.table","error":"table \\"nope\\" does not exist","code":"not-exists"}');
    // The engine's cache was not touched either: the table never existed.
    await fails(e, track('author'), 400, { path: '$.args', error: 'no such table/view exists in postgres : "author"', code: 'not-exists' });
  });

  it('an earlier write in the same bulk is visible to, and undone with, a later failing sub-operation', async () => {
    await e.sql('create table a (id int)');
    await fails(e, bulk(track('a'), track('a')), 400, { path: '$.args[1].args', error: 'view/table already tracked : "a"', code: 'already-tracked' });
    await fails(e, bulk(track('a'), { type: 'untrack_table', args: { table: 'a' } }, { type: 'untrack_table', args: { table: 'a' } }),
      400, { path: '$.args[2].args', error: 'view/table already untracked : "a"', code: 'already-untracked' });
  });

  it.each<[string, unknown[], Record<string, unknown>]>([
    ['unknown type in element 1', [sql('create table a (id int)'), { type: 'x', args: {} }],
      { path: '$.args[1].type', error: 'unknown operation type "x"', code: 'parse-failed' }],
    ['element not an object', ['track_table'], { path: '$.args[0]', error: 'expected Object, encountered String', code: 'parse-failed' }],
    ['element null', [sql('create table a (id int)'), null], { path: '$.args[1]', error: 'expected Object, encountered Null', code: 'parse-failed' }],
    ['element without type', [{ args: {} }], { path: '$.args[0]', error: 'the key "type" was not present', code: 'parse-failed' }],
    ['type not a string', [{ type: 1, args: {} }], { path: '$.args[0].type', error: 'expected String, encountered Number', code: 'parse-failed' }],
    ['element without args', [sql('create table a (id int)'), { type: 'track_table' }],
      { path: '$.args[1]', error: 'the key "args" was not present', code: 'parse-failed' }],
    ['element version 3', [{ type: 'export_metadata', args: {}, version: 3 }],
      { path: '$.args[0].version', error: 'expected one of 1, 2, encountered 3', code: 'parse-failed' }],
    ['args of the wrong type', [sql('create table a (id int)'), track({ table: 5 })],
      { path: '$.args[1].args.table', error: 'expected Object, encountered Number', code: 'parse-failed' }],
    ['run_sql sql: 1', [sql('create table a (id int)'), { type: 'run_sql', args: { sql: 1 } }],
      { path: '$.args[1].args.sql', error: 'expected String, encountered Number', code: 'parse-failed' }],
    ['nested bulk, parse error', [sql('create table a (id int)'), bulk({ type: 'run_sql', args: { sql: 1 } })],
      { path: '$.args[1].args[0].args.sql', error: 'expected String, encountered Number', code: 'parse-failed' }],
    ['nested bulk, check failure', [sql('create table a (id int)'), bulk(track('a'), objRel('nope', 'r', 'c'))],
      { path: '$.args[1].args[1].args.table', error: 'table "nope" does not exist', code: 'not-exists' }],
    ['twice nested bulk, unknown type', [bulk(sql('create table a (id int)'), bulk(EXPORT, { type: 'y', args: {} }))],
      { path: '$.args[0].args[1].args[1].type', error: 'unknown operation type "y"', code: 'parse-failed' }],
    ['nested bulk args not an array', [sql('create table a (id int)'), { type: 'bulk', args: 'x' }],
      { path: '$.args[1].args', error: 'expected Array, encountered String', code: 'parse-failed' }],
  ])('%s', async (_name, ops, expected) => {
    await fails(e, bulk(...ops), 400, expected);
  });

  it('keeps the status of a 409 sub-error, and its internal', async () => {
    await e.sql('create table a (id int)');
    const r = await fails(e, bulk(track('a'), { type: 'replace_metadata', args: { metadata: { version: 2, tables: [] }, resource_version: 99 } }),
      409, { path: '$.args[1].args.resource_version', error: 'resource version mismatch', code: 'conflict', internal: { requested: 99, current: 1 } });
    expect(r.text).toBe('{"path":"$.args[1].args.resource_version","error":"resource version mismatch","code":"conflict","internal":{"requested":99,"current":1}}');
  });

  it('a top-level resource_version (the incumbent\'s optimistic lock on any request) runs it only at that version', async () => {
    await e.sql('create table a (id int); create table b (id int)');
    expect(await e.ok({ ...bulk(track('a')), resource_version: 1 })).toEqual([SUCCESS]);
    // Another writer moved the engine to 2: a request made at 1 changes nothing.
    const r = await fails(e, { ...bulk(track('b')), resource_version: 1 }, 409,
      { path: '$.resource_version', error: 'resource version mismatch', code: 'conflict', internal: { requested: 1, current: 2 } });
    expect(r.text).toBe('{"path":"$.resource_version","error":"resource version mismatch","code":"conflict","internal":{"requested":1,"current":2}}');
    await fails(e, { ...EXPORT, resource_version: 7 }, 409,
      { path: '$.resource_version', error: 'resource version mismatch', code: 'conflict', internal: { requested: 7, current: 2 } });
    await fails(e, { ...bulk(track('b')), resource_version: 'two' }, 400, { path: '$.resource_version', error: 'expected Number, encountered String', code: 'parse-failed' });
    expect(await e.ok({ ...bulk(track('b')), resource_version: 2 })).toEqual([SUCCESS]);
  });

  it('a postgres-error in a later run_sql undoes the DDL of an earlier one, with internal for the admin', async () => {
    await fails(e, bulk(sql('create table a (id int)'), track('a'), sql('create table b (id int); select * from nope')), 400, {
      path: '$.args[2].args', error: 'query execution failed', code: 'postgres-error',
      internal: {
        statement: 'create table b (id int); select * from nope', prepared: false, arguments: [],
        error: { exec_status: 'FatalError', message: 'relation "nope" does not exist', status_code: '42P01', description: null, hint: null, position: 40 },
      },
    });
  });

  it('after a failed bulk the next requests start from the old state', async () => {
    await e.sql('create table a (id int)');
    await fails(e, bulk(track('a'), sql('drop table a'), { type: 'x', args: {} }), 400,
      { path: '$.args[2].type', error: 'unknown operation type "x"', code: 'parse-failed' });
    const r = await e.query(bulk(track('a'), EXPORT));
    expect(r.status).toBe(200);
    expect(r.body).toEqual([SUCCESS, { version: 2, tables: [tableEntry('a')] }]);
    expect(r.headers.get('x-engine-resource-version')).toBe('2');
  });
});

describe('role check', () => {
  const DENIED = { path: '$.args', error: 'restricted access : admin only', code: 'access-denied' };

  it('happens once, for the bulk itself, before its elements are read', async () => {
    const user = { 'x-engine-role': 'user' };
    await fails(e, bulk(sql('create table a (id int)')), 400, DENIED, user);
    await fails(e, bulk('x', { type: 'nope', args: {} }), 400, DENIED, user);
    await fails(e, { type: 'bulk', args: 5 }, 400, DENIED, user);
    await fails(e, bulk(), 400, DENIED, user);
  });

  it('sub-operations run as the bulk\'s admin caller', async () => {
    const r = await post(`${e.url}/v1/query`, bulk(sql('create table a (id int)'), track('a'), EXPORT), { 'x-engine-role': 'admin' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([CMD_OK, SUCCESS, { version: 2, tables: [tableEntry('a')] }]);
  });
});
