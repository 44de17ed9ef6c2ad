import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { err, expectError, exported, qt, write } from '../helpers/assertions.js';
import { q } from './graphql-fixture.js';

// Issue 29 point 6: the incumbent's table settings — set_table_is_enum, set_table_customization,
// set_table_custom_fields, track_table with is_enum / configuration — and its pg_* operation names. What is accepted
// takes effect in /v1/graphql and in the export; what is not known is rejected, never dropped.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table status (value text primary key, comment text);
    insert into status values ('open', 'Still open'), ('done', null);
    create table task (id int primary key, title text, status text references status (value));
    insert into task values (1, 'a', 'open'), (2, 'b', 'done');
    create table bad_enum (id int primary key, label text)`);
} });

type Tables = { table: { name: string }; is_enum?: boolean; configuration?: unknown }[];
const tableOf = async (name: string) => (JSON.parse((await exported(e)).text).tables as Tables).find((t) => t.table.name === name);

describe('table settings of the incumbent (issue 29 point 6)', () => {
  it('track_table with is_enum and configuration: the enum type and the custom names appear', async () => {
    await write(e, { type: 'track_table', args: { table: 'status', is_enum: true } });
    await write(e, { type: 'track_table', args: { table: { schema: 'public', name: 'task' }, configuration: {
      custom_name: 'todo', custom_root_fields: { select: 'todos', select_by_pk: 'todoById', select_aggregate: 'todoStats', insert_one: 'addTodo', update_by_pk: 'editTodo', delete: 'removeTodos' },
      custom_column_names: { title: 'label' },
    } } });
    expect(await tableOf('status')).toEqual({ table: qt('status'), is_enum: true });
    expect((await tableOf('task'))?.configuration).toEqual({
      custom_name: 'todo',
      custom_root_fields: { select: 'todos', select_by_pk: 'todoById', select_aggregate: 'todoStats', insert_one: 'addTodo', update_by_pk: 'editTodo', delete: 'removeTodos' },
      custom_column_names: { title: 'label' },
    });
    expect(await q(e, '{ todos(where: {status: {_eq: done}}) { label status } todoById(id: 1) { label } todoStats { aggregate { count } } }'))
      .toEqual({ data: { todos: [{ label: 'b', status: 'done' }], todoById: { label: 'a' }, todoStats: { aggregate: { count: 2 } } } });
    expect(await q(e, 'mutation { addTodo(object: {id: 3, label: "c", status: open}) { id } editTodo(pk_columns: {id: 3}, _set: {label: "d"}) { label } removeTodos(where: {id: {_eq: 3}}) { affected_rows } }'))
      .toEqual({ data: { addTodo: { id: 3 }, editTodo: { label: 'd' }, removeTodos: { affected_rows: 1 } } });
    const t = await q(e, '{ __type(name: "status_enum") { enumValues { name } } task: __type(name: "task") { name } }');
    expect(t).toEqual({ data: { __type: { enumValues: [{ name: 'done' }, { name: 'open' }] }, task: null } });
  });

  it('set_table_is_enum and set_table_customization change a tracked table, and can be undone', async () => {
    await write(e, { type: 'track_table', args: 'status' });
    await write(e, { type: 'track_table', args: 'task' });
    await write(e, { type: 'set_table_is_enum', args: { table: 'status', is_enum: true } });
    await write(e, { type: 'set_table_customization', args: { table: 'task', configuration: { custom_root_fields: { select: 'allTasks' } } } });
    expect(await q(e, '{ allTasks(where: {status: {_eq: open}}) { id } }')).toEqual({ data: { allTasks: [{ id: 1 }] } });
    await write(e, { type: 'set_table_is_enum', args: { table: 'status', is_enum: false } });
    await write(e, { type: 'set_table_customization', args: { table: 'task', configuration: {} } });
    expect(await tableOf('status')).toEqual({ table: qt('status') });
    expect(await tableOf('task')).toEqual({ table: qt('task') });
    expect(await q(e, '{ task(where: {status: {_eq: "open"}}) { id } }')).toEqual({ data: { task: [{ id: 1 }] } });
  });

  it('set_table_custom_fields (the older form) sets root fields and column names and keeps custom_name', async () => {
    await write(e, { type: 'track_table', args: { table: 'task', configuration: { custom_name: 'todo' } } });
    await write(e, { type: 'set_table_custom_fields', args: { table: 'task', custom_root_fields: { select: 'todos' }, custom_column_names: { title: 'label' } } });
    expect((await tableOf('task'))?.configuration).toEqual({ custom_name: 'todo', custom_root_fields: { select: 'todos' }, custom_column_names: { title: 'label' } });
    expect(await q(e, '{ todos(order_by: {id: asc}) { label } }')).toEqual({ data: { todos: [{ label: 'a' }, { label: 'b' }] } });
  });

  it('pg_* operation names are the same operations; source must be the one database', async () => {
    await write(e, { type: 'pg_track_table', args: { source: 'default', table: 'status', is_enum: true } });
    await write(e, { type: 'pg_track_table', args: { source: 'default', table: 'task' } });
    await write(e, { type: 'pg_create_object_relationship', args: { source: 'default', table: 'task', name: 'state', using: { foreign_key_constraint_on: 'status' } } });
    await write(e, { type: 'pg_create_select_permission', args: { source: 'default', table: 'task', role: 'user', permission: { columns: ['id'], filter: {} } } });
    await write(e, { type: 'pg_set_table_customization', args: { source: 'default', table: 'task', configuration: { custom_root_fields: { select: 'tasks' } } } });
    await e.ok({ type: 'bulk', args: [{ type: 'pg_drop_select_permission', args: { source: 'default', table: 'task', role: 'user' } }] });
    expect(await q(e, '{ tasks(order_by: {id: asc}) { id state { comment } } }')).toEqual({ data: { tasks: [{ id: 1, state: { comment: 'Still open' } }, { id: 2, state: { comment: null } }] } });
    await expectError(e, { type: 'pg_untrack_table', args: { source: 'other', table: 'task' } }, 400,
      err('$.args.source', 'source with name "other" does not exist', 'not-exists'));
    await expectError(e, { type: 'pg_rename_relationship', args: { source: 'default', table: 'task', name: 'state', new_name: 's' } }, 400,
      err('$.type', 'unknown operation type "pg_rename_relationship"', 'parse-failed'));
  });

  it('rejects what it cannot apply at its path, changing nothing', async () => {
    await write(e, { type: 'track_table', args: 'task' });
    const cases: [unknown, ReturnType<typeof err>][] = [
      [{ type: 'track_table', args: { table: 'status', apollo_federation_config: { enable: 'v1' } } }, err('$.args', 'unexpected keys: "apollo_federation_config"', 'parse-failed')],
      [{ type: 'track_table', args: { table: 'status', is_enum: 'yes' } }, err('$.args.is_enum', 'expected Boolean, encountered String', 'parse-failed')],
      [{ type: 'track_table', args: { table: 'status', configuration: { custom_root_fields: { select_stream: 's' } } } },
        err('$.args.configuration.custom_root_fields', 'unexpected keys in custom_root_fields: "select_stream"', 'parse-failed')],
      [{ type: 'set_table_is_enum', args: { table: 'status', is_enum: true } }, err('$.args.table', 'table "status" does not exist', 'not-exists')],
      [{ type: 'set_table_is_enum', args: { table: 'task' } }, err('$.args', 'the key "is_enum" was not present', 'parse-failed')],
      [{ type: 'set_table_customization', args: { table: 'task', configuration: { custom_name: 'my task' } } },
        err('$.args.configuration.custom_name', '"my task" is not a valid GraphQL name', 'parse-failed')],
      [{ type: 'set_table_customization', args: { table: 'task', source: 'x', configuration: {} } }, err('$.args.source', 'source with name "x" does not exist', 'not-exists')],
    ];
    for (const [body, expected] of cases) await expectError(e, body, 400, expected);
  });

  it('an enum setting the table cannot take fails as inconsistent, changing nothing', async () => {
    await write(e, { type: 'track_table', args: 'bad_enum' });
    let before = await e.state();
    const r = await e.query({ type: 'set_table_is_enum', args: { table: 'bad_enum', is_enum: true } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ path: '$.args', code: 'constraint-violation',
      error: 'cannot continue due to new inconsistent metadata: the table "bad_enum" cannot be used as an enum: its primary key must be of type text' });
    expect(await e.state()).toEqual(before);
    before = await e.state();
    const t = await e.query({ type: 'track_table', args: { table: 'status', configuration: { custom_column_names: { nope: 'x' } } } });
    expect(t.status).toBe(400);
    expect(t.body).toMatchObject({ path: '$.args', code: 'constraint-violation', error: 'the configuration of table "status" names columns that do not exist: "nope"' });
    expect(await e.state()).toEqual(before);
  });

  it("replace_metadata takes the incumbent's version 1 `query_templates: []` and rejects templates", async () => {
    await write(e, { type: 'replace_metadata', args: { version: 2, tables: [{ table: qt('task') }], query_templates: [] } });
    expect(JSON.parse((await exported(e)).text)).toEqual({ version: 2, tables: [{ table: qt('task') }] });
    await expectError(e, { type: 'replace_metadata', args: { version: 2, tables: [], query_templates: [{ name: 'q' }] } }, 400,
      err('$.args.query_templates', '"query_templates" is not supported (the incumbent\'s version 1 query templates); only an empty list is accepted', 'not-supported'));
  });
});
