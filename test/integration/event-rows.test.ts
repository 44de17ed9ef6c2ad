import { beforeEach, describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { Engine } from '../../src/server/engine.js';

// The event rows written by the database triggers of event triggers (engine-api.md §3.2, §4.7.1), archiving
// (§4.7.2), reinstalling at start-up and reload (§3.1, §4.8.4), invoke_event_trigger and redeliver_event
// (§4.7.3–4.7.4, §7 rows 67, 70–73). Delivery is not exercised: only the rows and their states.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id int primary key, name text, age int, bio text);
    create table article (id int primary key, title text)`);
  await e.ok({ type: 'bulk', args: [{ type: 'track_table', args: 'author' }, { type: 'track_table', args: 'article' }] });
} });

const ADMIN = { 'x-engine-role': 'admin' };
const create = (name: string, args: Record<string, unknown>) =>
  e.ok({ type: 'create_event_trigger', args: { name, table: 'author', webhook: 'http://localhost:1/hook', ...args } });
const all = { insert: { columns: '*' }, update: { columns: '*' }, delete: { columns: '*' } };

interface Ev { id: string; schema_name: string; table_name: string; trigger_name: string; payload: unknown; delivered: boolean; error: boolean;
  tries: number; locked: unknown; next_retry_at: unknown; archived: boolean }
async function events(): Promise<Ev[]> {
  return e.db.query<Ev & Record<string, unknown>>(`SELECT id::text AS id, schema_name, table_name, trigger_name, payload, delivered, error, tries,
    locked, next_retry_at, archived FROM engine_catalog.event_log ORDER BY created_at, trigger_name, payload::text`);
}
/** Events as [trigger, op, data, session_variables], in creation order. */
async function summary(): Promise<[string, string, unknown, unknown][]> {
  return (await events()).map((r) => {
    const p = r.payload as { op: string; data: unknown; session_variables: unknown };
    return [r.trigger_name, p.op, p.data, p.session_variables] as [string, string, unknown, unknown];
  });
}
const row = (id: number, name: string | null, age: number | null, bio: string | null = null) => ({ id, name, age, bio });
const fresh = { delivered: false, error: false, tries: 0, locked: null, next_retry_at: null, archived: false };

describe('event rows of data changes', () => {
  it('INSERT, UPDATE and DELETE each write exactly one row, in the transaction of the change', async () => {
    await create('t', all);
    await e.sql("insert into author values (1, 'a', 30)");
    const [ins] = await events();
    expect(ins).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), schema_name: 'public', table_name: 'author', trigger_name: 't',
      payload: { op: 'INSERT', data: { old: null, new: row(1, 'a', 30) }, session_variables: ADMIN }, ...fresh });
    const xmin = await e.db.query<{ a: string; b: string }>(
      "SELECT (SELECT xmin::text FROM author) AS a, (SELECT xmin::text FROM engine_catalog.event_log) AS b");
    expect(xmin[0]?.a).toBe(xmin[0]?.b);
    await e.sql("update author set name = 'b' where id = 1");
    await e.sql('delete from author where id = 1');
    await e.sql("insert into author values (2, 'x', null), (3, 'y', null)");
    expect(await summary()).toEqual([
      ['t', 'INSERT', { old: null, new: row(1, 'a', 30) }, ADMIN],
      ['t', 'UPDATE', { old: row(1, 'a', 30), new: row(1, 'b', 30) }, ADMIN],
      ['t', 'DELETE', { old: row(1, 'b', 30), new: null }, ADMIN],
      ['t', 'INSERT', { old: null, new: row(2, 'x', null) }, ADMIN],
      ['t', 'INSERT', { old: null, new: row(3, 'y', null) }, ADMIN],
    ]);
    expect((await events()).every((r) => r.table_name === 'author' && r.schema_name === 'public')).toBe(true);
  });

  it('data holds only the payload columns; all columns when payload is absent or "*"', async () => {
    await create('p', { insert: { columns: '*', payload: ['id', 'name'] }, update: { columns: ['age'], payload: ['age'] }, delete: { columns: '*', payload: '*' } });
    await e.sql("insert into author values (1, 'a', 30, 'bio')");
    await e.sql('update author set age = 31');
    await e.sql('delete from author');
    expect(await summary()).toEqual([
      ['p', 'INSERT', { old: null, new: { id: 1, name: 'a' } }, ADMIN],
      ['p', 'UPDATE', { old: { age: 30 }, new: { age: 31 } }, ADMIN],
      ['p', 'DELETE', { old: row(1, 'a', 31, 'bio'), new: null }, ADMIN],
    ]);
  });

  it('an UPDATE writes an event only when a listened column changes', async () => {
    await create('named', { update: { columns: ['name', 'bio'] } });
    await create('star', { update: { columns: '*' } });
    await e.db.query("insert into author values (1, 'a', 30)");
    await e.sql('update author set age = 31');
    expect(await summary()).toEqual([['star', 'UPDATE', { old: row(1, 'a', 30), new: row(1, 'a', 31) }, ADMIN]]);
    await e.sql("update author set name = name, bio = null, age = age");
    expect(await events()).toHaveLength(1);
    await e.sql("update author set bio = 'x'");
    expect((await summary()).slice(1)).toEqual([
      ['named', 'UPDATE', { old: row(1, 'a', 31), new: row(1, 'a', 31, 'x') }, ADMIN],
      ['star', 'UPDATE', { old: row(1, 'a', 31), new: row(1, 'a', 31, 'x') }, ADMIN],
    ]);
    // "*" includes columns added later.
    await e.sql('alter table author add column extra int; update author set extra = 7');
    expect((await summary()).slice(3)).toEqual([['star', 'UPDATE', { old: { ...row(1, 'a', 31, 'x'), extra: null }, new: { ...row(1, 'a', 31, 'x'), extra: 7 } }, ADMIN]]);
  });

  it('a change in a transaction that rolls back writes no event', async () => {
    await create('t', all);
    const before = await e.state();
    const r = await e.query({ type: 'run_sql', args: { sql: "insert into author values (1, 'a', 1); update author set age = 2; select 1/0" } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('postgres-error');
    const b = await e.query({ type: 'bulk', args: [{ type: 'run_sql', args: { sql: "insert into author values (1, 'a', 1)" } },
      { type: 'track_table', args: 'nope' }] });
    expect(b.status).toBe(400);
    expect(b.body.path).toBe('$.args[1].args');
    expect(await e.state()).toEqual(before);
    expect(before.rows).toBe('0/0/3');
    expect(await e.db.query('SELECT * FROM author')).toEqual([]);
  });

  it("run_sql changes carry the caller's session variables, other clients' changes carry null", async () => {
    await create('t', { insert: { columns: '*' } });
    const r = await e.query({ type: 'run_sql', args: { sql: "insert into author values (1, 'a', 1)" } }, { 'X-Engine-User-Id': '42' });
    expect(r.status).toBe(200);
    await e.db.query("insert into author values (2, 'b', 2)");
    await e.sql("insert into author values (3, 'c', 3)");
    expect((await summary()).map((s) => s[3])).toEqual([{ 'x-engine-role': 'admin', 'x-engine-user-id': '42' }, null, ADMIN]);
  });
});

describe('triggers follow their table', () => {
  it('a table renamed through run_sql keeps its events, with the new table name', async () => {
    await create('t', { insert: { columns: '*' } });
    await e.sql('alter table author rename to writer');
    const md = await e.ok({ type: 'export_metadata', args: {} });
    expect(md.tables[1]).toEqual({ table: { schema: 'public', name: 'writer' }, event_triggers: [{ name: 't',
      definition: { enable_manual: true, insert: { columns: '*' } }, retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://localhost:1/hook' }] });
    await e.db.query("insert into writer values (1, 'a', 1)");
    const [ev] = await events();
    expect([ev?.schema_name, ev?.table_name, ev?.trigger_name]).toEqual(['public', 'writer', 't']);
  });

  it('a table moved to another schema through run_sql keeps its events, with the new schema name', async () => {
    await create('t', { insert: { columns: '*' } });
    await e.sql('create schema s2; alter table author set schema s2');
    expect((await e.ok({ type: 'export_metadata', args: {} })).tables[1].table).toEqual({ schema: 's2', name: 'author' });
    await e.db.query("insert into s2.author values (1, 'a', 1)");
    expect((await events()).map((r) => [r.schema_name, r.table_name, r.trigger_name])).toEqual([['s2', 'author', 't']]);
  });

  it('columns renamed through run_sql keep working in columns and payload', async () => {
    await create('t', { update: { columns: ['name'], payload: ['id', 'name'] } });
    await e.db.query("insert into author values (1, 'a', 1)");
    await e.sql('alter table author rename column name to full_name');
    const md = await e.ok({ type: 'export_metadata', args: {} });
    expect(md.tables[1].event_triggers[0].definition.update).toEqual({ columns: ['full_name'], payload: ['id', 'full_name'] });
    await e.sql('update author set age = 2');
    expect(await events()).toEqual([]);
    await e.sql("update author set full_name = 'b'");
    expect(await summary()).toEqual([['t', 'UPDATE', { old: { id: 1, full_name: 'a' }, new: { id: 1, full_name: 'b' } }, ADMIN]]);
  });
});

describe('archiving (§4.7.2)', () => {
  it('delete_event_trigger and untrack_table archive the events of the removed triggers only', async () => {
    await create('t1', { insert: { columns: '*' } });
    await create('t2', { insert: { columns: '*' } });
    await e.ok({ type: 'create_event_trigger', args: { name: 't3', table: 'article', webhook: 'http://h/x', insert: { columns: '*' } } });
    await e.sql("insert into author values (1, 'a', 1); insert into article values (1, 'x')");
    const archived = async () => (await events()).map((r) => [r.trigger_name, r.archived]).sort();
    expect(await archived()).toEqual([['t1', false], ['t2', false], ['t3', false]]);
    await e.ok({ type: 'delete_event_trigger', args: { name: 't1' } });
    expect(await archived()).toEqual([['t1', true], ['t2', false], ['t3', false]]);
    await e.ok({ type: 'untrack_table', args: { table: 'article' } });
    expect(await archived()).toEqual([['t1', true], ['t2', false], ['t3', true]]);
    const left = await e.db.query<{ n: string }>(`SELECT tgname || ' on ' || tgrelid::regclass::text AS n FROM pg_trigger WHERE NOT tgisinternal AND tgrelid NOT IN (SELECT oid FROM pg_class WHERE relnamespace = 'engine_catalog'::regnamespace)
      UNION ALL SELECT proname FROM pg_proc WHERE proname LIKE 'notify%' ORDER BY 1`);
    expect(left.map((r) => r.n)).toEqual(['notify_engine_t2_INSERT', 'notify_engine_t2_INSERT on author']);
  });

  it('a table dropped through run_sql is untracked and its events archived', async () => {
    await create('t1', { insert: { columns: '*' } });
    await e.ok({ type: 'create_event_trigger', args: { name: 't3', table: 'article', webhook: 'http://h/x', insert: { columns: '*' } } });
    await e.sql("insert into author values (1, 'a', 1); insert into article values (1, 'x')");
    await e.sql('drop table article');
    expect((await events()).map((r) => [r.trigger_name, r.archived]).sort()).toEqual([['t1', false], ['t3', true]]);
  });

  it('an event row of a trigger that is not in the metadata is archived at the commit of the request', async () => {
    await create('t1', { insert: { columns: '*' } });
    await e.sql(`select engine_catalog.insert_event_log('public', 'author', 'ghost', 'INSERT', '{"old":null,"new":{}}');
      insert into author values (1, 'a', 1)`);
    expect((await events()).map((r) => [r.trigger_name, r.archived]).sort()).toEqual([['ghost', true], ['t1', false]]);
  });

  it('bulk of clear_metadata then replace_metadata with the same triggers archives nothing', async () => {
    await create('t', all);
    await e.sql("insert into author values (1, 'a', 1)");
    const md = await e.ok({ type: 'export_metadata', args: {} });
    await e.ok({ type: 'bulk', args: [{ type: 'clear_metadata', args: {} }, { type: 'replace_metadata', args: md }] });
    await e.db.query('delete from author');
    expect((await events()).map((r) => [r.trigger_name, (r.payload as { op: string }).op, r.archived])).toEqual([['t', 'INSERT', false], ['t', 'DELETE', false]]);
  });
});

describe('reinstalling database triggers', () => {
  const names = async () => (await e.db.query<{ n: string }>("SELECT tgname AS n FROM pg_trigger WHERE NOT tgisinternal AND tgrelid NOT IN (SELECT oid FROM pg_class WHERE relnamespace = 'engine_catalog'::regnamespace) ORDER BY 1")).map((r) => r.n);
  const TRIGGERS = ['notify_engine_t_DELETE', 'notify_engine_t_INSERT', 'notify_engine_t_UPDATE'];

  it('at start-up', async () => {
    await create('t', all);
    expect(await names()).toEqual(TRIGGERS);
    await e.db.query('drop trigger "notify_engine_t_INSERT" on author');
    await e.db.query('drop trigger "notify_engine_t_UPDATE" on author');
    await e.db.query('drop function engine_catalog."notify_engine_t_INSERT"()');
    expect(await names()).toEqual(['notify_engine_t_DELETE']);
    const before = await e.state();
    await Engine.start(e.db);
    expect(await names()).toEqual(TRIGGERS);
    expect(await e.state()).toEqual({ ...before, rows: '0/0/3' });
    await e.db.query("insert into author values (1, 'a', 1)");
    expect(await summary()).toEqual([['t', 'INSERT', { old: null, new: row(1, 'a', 1) }, null]]);
  });

  it('by reload_metadata, resource_version unchanged', async () => {
    await create('t', all);
    await e.db.query('drop trigger "notify_engine_t_UPDATE" on author');
    const before = await e.state();
    const r = await e.query({ type: 'reload_metadata', args: {} });
    expect(r.body).toEqual({ message: 'success', is_consistent: true });
    expect(r.headers.get('x-engine-resource-version')).toBe(before.version);
    expect(await names()).toEqual(TRIGGERS);
    expect(await e.state()).toEqual({ ...before, rows: '0/0/3' });
  });
});

describe('invoke_event_trigger', () => {
  it('inserts a MANUAL event with the payload and the caller session variables', async () => {
    await create('t', { insert: { columns: '*' } });
    const before = await e.state();
    const r = await e.query({ type: 'invoke_event_trigger', args: { name: 't', payload: { a: [1, 'x'], b: null } } }, { 'X-Engine-User-Id': '42' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['event_id']);
    expect(r.body.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(r.headers.get('x-engine-resource-version')).toBe(before.version);
    expect(await events()).toEqual([{ id: r.body.event_id, schema_name: 'public', table_name: 'author', trigger_name: 't',
      payload: { op: 'MANUAL', data: { old: null, new: { a: [1, 'x'], b: null } }, session_variables: { ...ADMIN, 'x-engine-user-id': '42' } }, ...fresh }]);
    expect(await e.state()).toEqual({ ...before, rows: '1/0/1' });
    await e.ok({ type: 'invoke_event_trigger', args: { name: 't', payload: 5 } });
    expect((await summary())[1]).toEqual(['t', 'MANUAL', { old: null, new: 5 }, ADMIN]);
  });

  it.each([
    ['67 no such trigger', 'nope', 'not-exists', 'event trigger "nope" does not exist'],
    ['70 manual mode off', 'off', 'not-supported', 'manual mode is not enabled for event trigger "off"'],
  ])('%s', async (_, name, code, error) => {
    await create('off', { insert: { columns: '*' }, enable_manual: false });
    const before = await e.state();
    const r = await e.query({ type: 'invoke_event_trigger', args: { name, payload: {} } });
    expect([r.status, r.text]).toEqual([400, JSON.stringify({ path: '$.args.name', error, code })]);
    expect(await e.state()).toEqual(before);
  });
});

describe('redeliver_event', () => {
  let id: string;
  beforeEach(async () => {
    await create('t', { insert: { columns: '*' } });
    await e.db.query("insert into author values (1, 'a', 1)");
    id = (await events())[0]?.id ?? '';
  });
  const redeliver = (event_id: unknown) => e.query({ type: 'redeliver_event', args: { event_id } });
  const setState = (sql: string) => e.db.query(`UPDATE engine_catalog.event_log SET ${sql} WHERE id = $1`, [id]);
  const stateOf = async () => {
    const r = await e.db.query<Record<string, unknown>>(`SELECT delivered, error, tries, next_retry_at IS NOT NULL AS retry, locked IS NOT NULL AS locked,
      archived FROM engine_catalog.event_log WHERE id = $1`, [id]);
    return r[0];
  };
  const reset = { delivered: false, error: false, tries: 0, retry: false, locked: false, archived: false };

  it.each([
    ['delivered', 'delivered = true, tries = 1'],
    ['error', "error = true, tries = 3, next_retry_at = now() + interval '1 hour'"],
    ['waiting', "tries = 1, next_retry_at = now() + interval '1 hour'"],
    ['abandoned lock', "locked = now() - interval '31 minutes', tries = 2"],
  ])('resets an event in state %s', async (_, sql) => {
    await setState(sql);
    const before = await e.state();
    const r = await redeliver(id.toUpperCase());
    expect([r.status, r.body]).toEqual([200, { message: 'success' }]);
    expect(r.headers.get('x-engine-resource-version')).toBe(before.version);
    expect(await stateOf()).toEqual(reset);
    expect(await e.state()).toEqual(before);
  });

  it.each([
    ['71 not a UUID', () => 'abc', () => ({ path: '$.args.event_id', error: 'expected a UUID, encountered "abc"', code: 'parse-failed' })],
    ['72 no such event', () => '00000000-0000-4000-8000-000000000000',
      () => ({ path: '$.args.event_id', error: 'event "00000000-0000-4000-8000-000000000000" does not exist', code: 'not-exists' })],
    ['72 archived', () => id, () => ({ path: '$.args.event_id', error: `event "${id}" does not exist`, code: 'not-exists' }), 'archived = true, delivered = true'],
    ['73 in flight', () => id, () => ({ path: '$.args.event_id', error: `event "${id}" is already being processed`, code: 'busy' }), 'locked = now(), tries = 1'],
    ['73 locked 29 minutes ago', () => id, () => ({ path: '$.args.event_id', error: `event "${id}" is already being processed`, code: 'busy' }),
      "locked = now() - interval '29 minutes'"],
  ])('%s', async (_, arg, expected, sql?: string) => {
    if (sql) await setState(sql);
    const before = await e.state();
    const row = await events();
    const r = await redeliver(arg());
    expect([r.status, r.text]).toEqual([400, JSON.stringify(expected())]);
    expect(await e.state()).toEqual(before);
    expect(await events()).toEqual(row);
  });
});
