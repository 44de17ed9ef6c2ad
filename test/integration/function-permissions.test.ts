import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { err, expectError, exported, qt, write } from '../helpers/assertions.js';
import { gql } from './graphql-fixture.js';

// Issue 29 point 6: the incumbent's function permissions (stored, exported, their operations) and function entries'
// keys: what the engine cannot apply is refused, never dropped. Function root fields follow the select permission of
// the table they return (the incumbent's ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS default).

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table note (id int primary key, body text);
    insert into note values (1, 'a'), (2, 'b');
    create function search_notes(q text) returns setof note stable language sql as $$ select * from note where body like q $$`);
  await write(e, { type: 'track_table', args: 'note' });
} });

const fnOf = async () => (JSON.parse((await exported(e)).text).functions ?? []) as unknown[];

describe('function permissions (issue 29 point 6)', () => {
  it('create/drop_function_permission and pg_ names store the roles; export and replace_metadata keep them', async () => {
    for (const role of ['user', 'guest']) await write(e, { type: 'create_select_permission', args: { table: 'note', role, permission: { columns: ['id'], filter: {} } } });
    await write(e, { type: 'track_function', args: { function: 'search_notes', configuration: { exposed_as: 'query' } } });
    await write(e, { type: 'create_function_permission', args: { function: 'search_notes', role: 'user' } });
    await write(e, { type: 'pg_create_function_permission', args: { source: 'default', function: { schema: 'public', name: 'search_notes' }, role: 'guest' } });
    expect(await fnOf()).toEqual([{ function: qt('search_notes'), permissions: [{ role: 'user' }, { role: 'guest' }] }]);
    const doc = JSON.parse((await exported(e)).text);
    await e.ok({ type: 'replace_metadata', args: doc });
    expect(JSON.parse((await exported(e)).text)).toEqual(doc);
    await write(e, { type: 'drop_function_permission', args: { function: 'search_notes', role: 'user' } });
    expect(await fnOf()).toEqual([{ function: qt('search_notes'), permissions: [{ role: 'guest' }] }]);
  });

  it('the function root field follows the select permission of the returned table', async () => {
    await write(e, { type: 'track_function', args: 'search_notes' });
    await write(e, { type: 'create_select_permission', args: { table: 'note', role: 'user', permission: { columns: ['id'], filter: {} } } });
    const r = await gql(e, { query: '{ search_notes(args: {q: "a"}) { id } }' }, { 'x-engine-role': 'user' });
    expect(r.body).toEqual({ data: { search_notes: [{ id: 1 }] } });
  });

  it('refuses what it cannot apply, at its path, changing nothing', async () => {
    await write(e, { type: 'create_select_permission', args: { table: 'note', role: 'user', permission: { columns: ['id'], filter: {} } } });
    await write(e, { type: 'track_function', args: 'search_notes' });
    await write(e, { type: 'create_function_permission', args: { function: 'search_notes', role: 'user' } });
    const cases: [unknown, ReturnType<typeof err>][] = [
      [{ type: 'create_function_permission', args: { function: 'search_notes', role: 'user' } }, err('$.args', 'permission on function "search_notes" for role "user" already exists', 'already-exists')],
      [{ type: 'drop_function_permission', args: { function: 'search_notes', role: 'nobody' } }, err('$.args', 'permission on function "search_notes" for role "nobody" does not exist', 'not-exists')],
      [{ type: 'create_function_permission', args: { function: 'nope', role: 'user' } }, err('$.args.function', 'function "nope" is not tracked', 'not-exists')],
      // The incumbent's rule: the role must have a select permission on the table the function returns.
      [{ type: 'create_function_permission', args: { function: 'search_notes', role: 'guest' } },
        err('$.args', 'function permission can only be added when the function\'s return table "note" has select permission configured for role: "guest"', 'not-supported')],
      [{ type: 'replace_metadata', args: { version: 2, functions: [{ function: 'search_notes', configuration: { custom_name: 'find' } }] } },
        err('$.args.functions[0].configuration.custom_name', 'function configuration "custom_name" is not supported', 'not-supported')],
      [{ type: 'replace_metadata', args: { version: 2, functions: [{ function: 'search_notes', configuration: { exposed_as: 'mutation' } }] } },
        err('$.args.functions[0].configuration.exposed_as', 'function configuration "exposed_as": mutation is not supported', 'not-supported')],
      [{ type: 'replace_metadata', args: { version: 2, functions: [{ function: 'search_notes', permissions: [{ role: 'a' }, { role: 'a' }] }] } },
        err('$.args.functions[0].permissions', 'duplicate function permission for role "a"', 'already-exists')],
      [{ type: 'track_function', args: { function: 'search_notes', nope: 1 } }, err('$.args', 'unexpected keys in function: "nope"', 'parse-failed')],
    ];
    for (const [body, expected] of cases) await expectError(e, body, 400, expected);
  });
});
