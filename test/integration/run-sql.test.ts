import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { expectErrorKeys, relationExists, runSql } from '../helpers/assertions.js';

// run_sql (engine-api.md §4.1.1 steps 1–4, §3.3, §2.4): result shapes, PostgreSQL errors, read_only,
// session variables, resource_version. The consistency checks of step 5 are in run-sql-consistency.test.ts.

const e = useTestEngine();

/** The §4.1.1 step 3 error body. */
const pgError = (statement: string, message: string, statusCode: string, description: string | null = null, hint: string | null = null, position?: number) => ({
  path: '$.args',
  error: 'query execution failed',
  code: 'postgres-error',
  internal: {
    statement, prepared: false, arguments: [],
    error: { exec_status: 'FatalError', message, status_code: statusCode, description, hint, ...(position ? { position } : {}) },
  },
});

describe('run_sql result shapes (§4.1.1 step 2)', () => {
  it('answers TuplesOk with a header and rows in PostgreSQL text format, NULL as null', async () => {
    const r = await e.query(runSql('select 1 as one, true as t, null as n'));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.text).toBe('{"result_type":"TuplesOk","result":[["one","t","n"],["1","t",null]]}');
  });

  it('answers just the header for a query with no rows', async () => {
    expect(await e.sql('select 1 as one, 2 as two where false')).toEqual({ result_type: 'TuplesOk', result: [['one', 'two']] });
    await e.sql('create table t (id int, name text)');
    expect(await e.sql('select * from t')).toEqual({ result_type: 'TuplesOk', result: [['id', 'name']] });
  });

  it('answers the result of the last statement of a multi-statement script', async () => {
    const rows = await e.sql("create table t (id int, name text); insert into t values (2, 'b'), (1, null); select id, name from t order by id");
    expect(rows).toEqual({ result_type: 'TuplesOk', result: [['id', 'name'], ['1', null], ['2', 'b']] });
    expect(await e.sql('select 1 as x; create table u (id int)')).toEqual({ result_type: 'CommandOk', result: null });
    expect(await e.sql('select 1 as x; select 2 as y, 3 as z')).toEqual({ result_type: 'TuplesOk', result: [['y', 'z'], ['2', '3']] });
    expect(await relationExists(e, 'public.u')).toBe(true);
  });

  it('answers CommandOk for DDL and for INSERT/UPDATE/DELETE without RETURNING', async () => {
    expect(await e.sql('create table t (id int primary key, name text)')).toEqual({ result_type: 'CommandOk', result: null });
    expect(await e.sql("insert into t values (1, 'a')")).toEqual({ result_type: 'CommandOk', result: null });
    expect(await e.sql("update t set name = 'b'")).toEqual({ result_type: 'CommandOk', result: null });
    expect(await e.sql('delete from t where id = 7')).toEqual({ result_type: 'CommandOk', result: null });
    expect(await e.sql('select count(*) as c from t')).toEqual({ result_type: 'TuplesOk', result: [['c'], ['1']] });
  });

  it('answers TuplesOk for INSERT … RETURNING and for SHOW', async () => {
    await e.sql('create table t (id serial primary key, name text)');
    expect(await e.sql("insert into t (name) values ('a'), ('b') returning id, name, false as f")).toEqual({
      result_type: 'TuplesOk', result: [['id', 'name', 'f'], ['1', 'a', 'f'], ['2', 'b', 'f']],
    });
    expect(await e.sql("set local time zone 'UTC'; show timezone")).toEqual({ result_type: 'TuplesOk', result: [['TimeZone'], ['UTC']] });
  });

  it('answers TuplesOk whenever the last statement has a row description, even with no rows or no columns', async () => {
    await e.sql('create table t (id int)');
    expect(await e.sql('insert into t select id from t returning id, 1 as one')).toEqual({ result_type: 'TuplesOk', result: [['id', 'one']] });
    expect(await e.sql('select from (values (1), (2)) v')).toEqual({ result_type: 'TuplesOk', result: [[], [], []] });
  });

  it('renders timestamps, dates, numerics and json/jsonb as PostgreSQL text', async () => {
    const r = await e.sql(`set local time zone 'UTC'; select
      '2024-05-01 10:00:00+00'::timestamptz as ts, '2024-05-01 10:00:00.5'::timestamp as t2, '2024-05-01'::date as d,
      1.50::numeric as n, 9007199254740993::bigint as big,
      '{"b": 1, "a": [1, 2]}'::jsonb as j, '{"b":1,  "a":2}'::json as j2, '\\x01ff'::bytea as by`);
    expect(r).toEqual({
      result_type: 'TuplesOk',
      result: [
        ['ts', 't2', 'd', 'n', 'big', 'j', 'j2', 'by'],
        ['2024-05-01 10:00:00+00', '2024-05-01 10:00:00.5', '2024-05-01', '1.50', '9007199254740993',
          '{"a": [1, 2], "b": 1}', '{"b":1,  "a":2}', '\\x01ff'],
      ],
    });
  });

  it('renders arrays as PostgreSQL text', async () => {
    const r = await e.sql(`select array[1,2,3] as a, array['a b', 'c', null] as b, '{}'::int[] as e, array[true, false] as bo,
      array['{"k": 1}'::jsonb] as js, array[['2024-05-01'::date]] as d`);
    expect(r).toEqual({
      result_type: 'TuplesOk',
      result: [['a', 'b', 'e', 'bo', 'js', 'd'], ['{1,2,3}', '{"a b",c,NULL}', '{}', '{t,f}', '{"{\\"k\\": 1}"}', '{{2024-05-01}}']],
    });
  });
});

describe('run_sql errors (§4.1.1 step 3)', () => {
  it('answers postgres-error with the statement and the error fields', async () => {
    await expectErrorKeys(e, runSql('select 1/0'), 400, pgError('select 1/0', 'division by zero', '22012'));
  });

  it('reports the detail as description and the hint', async () => {
    await e.sql('create table t (id int primary key)');
    await e.sql('insert into t values (1)');
    const dup = 'insert into t values (1)';
    await expectErrorKeys(e, runSql(dup), 400,
      pgError(dup, 'duplicate key value violates unique constraint "t_pkey"', '23505', 'Key (id)=(1) already exists.'));
    await expectErrorKeys(e, runSql('select no_such_fn(1)'), 400, pgError('select no_such_fn(1)', 'function no_such_fn(integer) does not exist', '42883', null,
      'No function matches the given name and argument types. You might need to add explicit type casts.', 8));
  });

  it('rolls back the earlier statements of the same run_sql when one fails', async () => {
    await e.sql('create table keep (id int)');
    const sql = 'create table gone (id int); insert into keep values (1); alter table keep add column extra text; select 1/0';
    await expectErrorKeys(e, runSql(sql), 400, pgError(sql, 'division by zero', '22012'));
    expect(await relationExists(e, 'public.gone')).toBe(false);
    expect(await e.db.query('SELECT * FROM keep')).toEqual([]);
  });

  it('refuses transaction-control statements (docs/decisions.md)', async () => {
    await e.sql('create table t (id int)');
    const refused = {
      path: '$.args', error: 'transaction control statements (BEGIN, COMMIT, ROLLBACK) are not allowed in run_sql',
      code: 'not-supported',
    };
    for (const sql of ['begin', 'COMMIT', 'rollback;', 'insert into t values (1); commit', 'start transaction; select 1', ' end', 'abort',
      'insert into t values (1);\n  ROLLBACK; select 1']) {
      const r = await e.query(runSql(sql));
      expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: { ...refused, internal: expect.objectContaining({ line: expect.any(Number) }) } });
    }
    await expectErrorKeys(e, runSql('create table u (id int); commit'), 400, { ...refused, internal: { statement: 'commit', line: 1, column: 26 } });
    // Words that merely look like transaction control are fine: in strings, comments, identifiers and bodies.
    expect(await e.sql("do $$ begin perform 1; end $$; do $body$\nbegin\n  insert into t values (2);\nend\n$body$")).toEqual({ result_type: 'CommandOk', result: null });
    expect(await e.db.query('SELECT id FROM t')).toEqual([{ id: 2 }]);
    expect(await e.sql("select 'begin' as \"commit\"; -- rollback\nselect 1 as begin_x")).toEqual({ result_type: 'TuplesOk', result: [['begin_x'], ['1']] });
  });

  it('rejects a missing or non-string sql', async () => {
    await expectErrorKeys(e, { type: 'run_sql', args: {} }, 400, { path: '$.args', error: 'the key "sql" was not present', code: 'parse-failed' });
    await expectErrorKeys(e, { type: 'run_sql', args: { sql: 1 } }, 400, { path: '$.args.sql', error: 'expected String, encountered Number', code: 'parse-failed' });
    await expectErrorKeys(e, runSql('select 1', { read_only: 'yes' }), 400,
      { path: '$.args.read_only', error: 'expected Boolean, encountered String', code: 'parse-failed' });
  });
});

describe('run_sql read_only (§4.1.1 step 4)', () => {
  it('runs reads', async () => {
    await e.sql("create table t (id int); insert into t values (5)");
    expect(await e.ok(runSql('select id from t', { read_only: true }))).toEqual({ result_type: 'TuplesOk', result: [['id'], ['5']] });
  });

  it('fails writes with postgres-error 25006 and changes nothing', async () => {
    await e.sql('create table t (id int)');
    await expectErrorKeys(e, runSql('insert into t values (1)', { read_only: true }), 400,
      pgError('insert into t values (1)', 'cannot execute INSERT in a read-only transaction', '25006'));
    await expectErrorKeys(e, runSql('create table u (id int)', { read_only: true }), 400,
      pgError('create table u (id int)', 'cannot execute CREATE TABLE in a read-only transaction', '25006'));
    await e.ok({ type: 'track_table', args: 't' });
    await expectErrorKeys(e, runSql('alter table t rename to t2', { read_only: true }), 400,
      pgError('alter table t rename to t2', 'cannot execute ALTER TABLE in a read-only transaction', '25006'));
  });

  it('leaves later steps of a bulk writable (docs/decisions.md)', async () => {
    const r = await e.ok({ type: 'bulk', args: [runSql('select 1 as a', { read_only: true }), runSql('create table t (id int)')] });
    expect(r).toEqual([{ result_type: 'TuplesOk', result: [['a'], ['1']] }, { result_type: 'CommandOk', result: null }]);
    expect(await relationExists(e, 'public.t')).toBe(true);
  });
});

describe('run_sql session variables (§4.1.1 step 1, §2.4)', () => {
  const current = runSql("select current_setting('engine.session_variables', true) as v");

  it('sets engine.session_variables to the sorted session variables as JSON text', async () => {
    const r = await e.query(current, { 'X-Engine-Foo': 'bar' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result_type: 'TuplesOk', result: [['v'], ['{"x-engine-foo":"bar","x-engine-role":"admin"}']] });
    const sorted = await e.query(current, { 'X-Engine-Zeta': 'z', 'x-engine-alpha': 'A b', 'X-Engine-Admin-Secret': 'ignored', 'X-Other': 'no' });
    expect(sorted.body.result[1]).toEqual(['{"x-engine-alpha":"A b","x-engine-role":"admin","x-engine-zeta":"z"}']);
  });

  it('is transaction-local: the next request sees only its own variables', async () => {
    await e.query(current, { 'X-Engine-Foo': 'bar' });
    expect((await e.ok(current)).result[1]).toEqual(['{"x-engine-role":"admin"}']);
    // Outside run_sql (a direct connection) the setting is unset.
    expect(await e.db.query("SELECT coalesce(current_setting('engine.session_variables', true), '') AS v")).toEqual([{ v: '' }]);
  });

  it('is visible to every statement of the script, also in read_only mode', async () => {
    const r = await e.query(runSql("create table t (v text); insert into t values (current_setting('engine.session_variables', true)::jsonb->>'x-engine-foo'); select v from t"), { 'X-Engine-Foo': 'q' });
    expect(r.body).toEqual({ result_type: 'TuplesOk', result: [['v'], ['q']] });
    const ro = await e.query({ type: 'run_sql', args: { sql: "select current_setting('engine.session_variables', true) as v", read_only: true } }, { 'X-Engine-Foo': 'r' });
    expect(ro.body.result[1]).toEqual(['{"x-engine-foo":"r","x-engine-role":"admin"}']);
  });
});

describe('run_sql and resource_version (§3.3)', () => {
  it('changes the version only when the metadata document changed', async () => {
    const version = async (body: unknown) => {
      const r = await e.query(body);
      expect(r.status).toBe(200);
      return r.headers.get('x-engine-resource-version');
    };
    expect(await version(runSql('select 1'))).toBe('1');
    expect(await version(runSql('create table t (id int); create table u (id int)'))).toBe('1');
    expect(await version({ type: 'track_table', args: 't' })).toBe('2');
    expect(await version(runSql('insert into t values (1); alter table u rename to u2; alter table t add column name text'))).toBe('2');
    expect(await version(runSql('select * from t', { read_only: true }))).toBe('2');
    const before = (await e.state()).metadata;
    expect(await version(runSql('alter table t rename to t2'))).toBe('3');
    expect((await e.state()).metadata).not.toBe(before);
    expect(await version(runSql('drop table u2'))).toBe('3');
    expect(await version(runSql('drop table t2'))).toBe('4');
    expect(await version({ type: 'export_metadata', args: {} })).toBe('4');
    expect((await e.state()).metadata).toBe('{"version":2,"tables":[]}');
  });
});
