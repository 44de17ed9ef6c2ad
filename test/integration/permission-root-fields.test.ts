import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { err, expectError, exported, write } from '../helpers/assertions.js';
import { gql } from './graphql-fixture.js';

// Issue 29 point 6: select permissions' `query_root_fields` / `subscription_root_fields` choose which root fields a
// role gets (absent: all; [] none, the table reached only through relationships); stored and exported as written.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id int primary key, name text);
    create table article (id int primary key, title text, author_id int references author (id));
    insert into author values (1, 'Ann'); insert into article values (10, 'Intro', 1)`);
  for (const t of ['author', 'article']) await write(e, { type: 'track_table', args: t });
  await write(e, { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
  await write(e, { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: '*', filter: {}, allow_aggregations: true } } });
} });

const USER = { 'x-engine-role': 'user' };
const perm = (permission: Record<string, unknown>) => ({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {}, ...permission } } });
const rootFields = async (): Promise<string[]> => {
  const r = await gql(e, { query: '{ __schema { queryType { fields { name } } } }' }, USER);
  return (r.body as { data: { __schema: { queryType: { fields: { name: string }[] } } } }).data.__schema.queryType.fields.map((f) => f.name).filter((n) => n.startsWith('author'));
};

describe('query_root_fields and subscription_root_fields (issue 29 point 6)', () => {
  it('an empty list hides every root field of the table; relationships still reach it', async () => {
    await write(e, perm({ allow_aggregations: true, query_root_fields: [], subscription_root_fields: [] }));
    expect(await rootFields()).toEqual([]);
    const r = await gql(e, { query: '{ article { title author { name } } }' }, USER);
    expect(r.body).toEqual({ data: { article: [{ title: 'Intro', author: { name: 'Ann' } }] } });
    const denied = await gql(e, { query: '{ author { id } }' }, USER);
    expect(denied.body).toEqual({ errors: [{ message: 'field "author" not found in type: \'query_root\'', extensions: { path: '$.selectionSet.author', code: 'validation-failed' } }] });
  });

  it('a list gives exactly those root fields; absent gives all; the export keeps what was written', async () => {
    await write(e, perm({ allow_aggregations: true, query_root_fields: ['select_by_pk', 'select_aggregate'], subscription_root_fields: ['select_stream'] }));
    expect(await rootFields()).toEqual(['author_aggregate', 'author_by_pk']);
    const tables = JSON.parse((await exported(e)).text).tables as { select_permissions?: { permission: unknown }[] }[];
    expect(tables.flatMap((t) => t.select_permissions ?? []).map((p) => p.permission)).toContainEqual({
      columns: ['id', 'name'], filter: {}, allow_aggregations: true, query_root_fields: ['select_by_pk', 'select_aggregate'], subscription_root_fields: ['select_stream'],
    });
    await write(e, { type: 'drop_select_permission', args: { table: 'author', role: 'user' } });
    await write(e, perm({ allow_aggregations: true }));
    expect(await rootFields()).toEqual(['author', 'author_aggregate', 'author_by_pk']);
  });

  it('rejects unknown root fields and unknown permission keys at their path, changing nothing', async () => {
    await expectError(e, perm({ query_root_fields: ['select_stream'] }), 400,
      err('$.args.permission.query_root_fields[0]', 'expected one of "select", "select_by_pk", "select_aggregate", encountered "select_stream"', 'parse-failed'));
    await expectError(e, perm({ subscription_root_fields: 'select' }), 400, err('$.args.permission.subscription_root_fields', 'expected Array, encountered String', 'parse-failed'));
    await expectError(e, perm({ validate_input: { type: 'http' } }), 400, err('$.args.permission', 'unexpected keys in select permission: "validate_input"', 'parse-failed'));
    await expectError(e, { type: 'create_delete_permission', args: { table: 'author', role: 'user', permission: { filter: {}, backend_only: true } } }, 400,
      err('$.args.permission.backend_only', 'backend-only delete permissions are not supported', 'not-supported'));
  });
});
