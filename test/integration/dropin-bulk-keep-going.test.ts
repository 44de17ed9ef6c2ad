import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { exported, qt } from '../helpers/assertions.js';

// The incumbent's `bulk_keep_going` (its console and scripts send it): every item runs in order, in the request's
// transaction; one that fails is undone — its statements and its metadata change — and answers its error object
// (its path under `$.args[i]`, as in `bulk`) in its slot; the others are kept. `bulk` still stops at the first failure.

const e = useTestEngine();

const SUCCESS = { message: 'success' };
const CMD_OK = { result_type: 'CommandOk', result: null };
const sql = (text: string) => ({ type: 'run_sql', args: { sql: text } });
const track = (table: string) => ({ type: 'track_table', args: table });

describe('bulk_keep_going', () => {
  it('answers each item\'s result or error in its slot and keeps the items that succeeded', async () => {
    await e.sql('create table a (id int primary key)');
    const r = await e.query({ type: 'bulk_keep_going', args: [
      track('a'),
      track('nope'),
      sql('create table b (id int primary key)'),
      // A failing statement is undone alone: the table it creates first is gone, and the transaction goes on.
      sql('create table c (id int); select 1/0'),
      track('b'),
      track('a'),
      { type: 'no_such_operation', args: {} },
    ] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      SUCCESS,
      { path: '$.args[1].args', error: 'no such table/view exists in postgres : "nope"', code: 'not-exists' },
      CMD_OK,
      { path: '$.args[3].args', error: 'query execution failed', code: 'postgres-error', internal: expect.objectContaining({ error: expect.objectContaining({ message: 'division by zero' }) }) },
      SUCCESS,
      { path: '$.args[5].args', error: 'view/table already tracked : "a"', code: 'already-tracked' },
      { path: '$.args[6].type', error: 'unknown operation type "no_such_operation"', code: 'parse-failed' },
    ]);
    expect(JSON.parse((await exported(e)).text)).toEqual({ version: 2, tables: [{ table: qt('a') }, { table: qt('b') }] });
    const tables = await e.db.query<{ t: string }>("select tablename as t from pg_tables where schemaname = 'public' order by 1");
    expect(tables.map((x) => x.t)).toEqual(['a', 'b']);
  });

  it('with every item failing, answers their errors and changes nothing', async () => {
    const before = await e.state();
    const r = await e.query({ type: 'bulk_keep_going', args: [track('nope'), sql('select 1/0')] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject([{ path: '$.args[0].args', code: 'not-exists' }, { path: '$.args[1].args', code: 'postgres-error' }]);
    expect(await e.state()).toEqual(before);
  });

  it('refuses args that are not a list, changing nothing', async () => {
    const before = await e.state();
    const r = await e.query({ type: 'bulk_keep_going', args: { type: 'track_table', args: 'a' } });
    expect({ status: r.status, code: (r.body as { code: string }).code, path: (r.body as { path: string }).path }).toEqual({ status: 400, code: 'parse-failed', path: '$.args' });
    expect(await e.state()).toEqual(before);
  });
});
