import { beforeEach, describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { err, expectError, exported, write } from '../helpers/assertions.js';

// engine-api.md §4.6.2–§4.6.3 (actions, action permissions), §4.0 (Header, URL template), §4.8.2 step 3, §6.1–§6.3,
// §7 rows 8–17, 53–60, 79.

const e = useTestEngine({ setup: async () => {
  await write(e, { type: 'set_custom_types', args: TYPES }); // resource_version 2
} });

type Obj = Record<string, unknown>;
const TYPES = {
  scalars: [{ name: 'Date' }],
  enums: [{ name: 'Color', values: [{ value: 'RED' }] }],
  input_objects: [{ name: 'UserInput', fields: [{ name: 'email', type: 'String!' }] }],
  objects: [{ name: 'User', fields: [{ name: 'id', type: 'Int!' }] }, { name: 'Other', fields: [{ name: 'ok', type: 'Boolean' }] }],
};
const TYPES_EXPORT = { input_objects: TYPES.input_objects, objects: [TYPES.objects[1], TYPES.objects[0]], scalars: TYPES.scalars, enums: TYPES.enums };
const doc = (actions?: Obj[]) => JSON.stringify({ version: 2, tables: [], ...(actions ? { actions } : {}), custom_types: TYPES_EXPORT });

const pf = (path: string, error: string) => err(path, error, 'parse-failed');
const H = 'http://localhost:3000/a';
const create = (name: string, definition: Obj, extra: Obj = {}) => ({ type: 'create_action', args: { name, definition, ...extra } });
const update = (name: string, definition: Obj, extra: Obj = {}) => ({ type: 'update_action', args: { name, definition, ...extra } });
const perm = (op: 'create' | 'drop', args: Obj) => ({ type: `${op}_action_permission`, args });

const FULL = {
  handler: '{{ACTION_BASE_URL}}/x', output_type: '[User!]!',
  arguments: [{ name: 'input', type: 'UserInput!', description: 'who' }, { name: 'c', type: 'Color' }, { name: 'd', type: '[Date!]' }, { name: 'u', type: 'uuid' }, { name: 'at', type: 'timestamptz!' }],
  kind: 'asynchronous', type: 'mutation', headers: [{ name: 'X-A', value: '1' }, { name: 'X-B', value_from_env: 'MY_TOKEN' }], forward_client_headers: true, timeout: 10,
};
const FULL_EXPORT = {
  handler: '{{ACTION_BASE_URL}}/x', output_type: '[User!]!', arguments: FULL.arguments, kind: 'asynchronous', forward_client_headers: true,
  headers: [{ name: 'X-A', value: '1' }, { name: 'X-B', value_from_env: 'MY_TOKEN' }], timeout: 10,
};

async function actionLog(): Promise<string[]> {
  const r = await e.sql('select action_name from engine_catalog.action_log order by action_name');
  return (r.result as string[][]).slice(1).map((row) => row[0] as string);
}
const LOG_ROW = (name: string) =>
  `insert into engine_catalog.action_log (action_name, input_payload, request_headers, session_variables) values ('${name}', '{}', '[]', '{}')`;

describe('create_action, update_action, drop_action', () => {
  it('creates actions and exports them with defaults filled in or omitted (§6.1, §6.2)', async () => {
    await write(e, create('b', FULL, { comment: 'hi' }));
    await write(e, create('a', { handler: H, output_type: 'User' }));
    await write(e, create('c', { handler: 'https://example.com/c?x=1', output_type: 'Other!', arguments: [], kind: 'synchronous', type: 'mutation', headers: [],
      forward_client_headers: false, timeout: 30 }, { comment: null }));
    await write(e, create('d', { handler: '{{ BASE }}/d', output_type: '[Other]', timeout: 1 }, { comment: '' }));
    const x = await exported(e);
    expect(x.version).toBe('6');
    expect(x.text).toBe(doc([
      { name: 'a', definition: { handler: H, output_type: 'User', kind: 'synchronous' } },
      { name: 'b', definition: FULL_EXPORT, comment: 'hi' },
      { name: 'c', definition: { handler: 'https://example.com/c?x=1', output_type: 'Other!', kind: 'synchronous' } },
      { name: 'd', definition: { handler: '{{ BASE }}/d', output_type: '[Other]', kind: 'synchronous', timeout: 1 }, comment: '' },
    ]));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('update_action replaces the whole definition, keeps the comment when absent, keeps permissions and action_log rows', async () => {
    await write(e, create('b', FULL, { comment: 'hi' }));
    await write(e, perm('create', { action: 'b', role: 'user' }));
    await e.sql(LOG_ROW('b'));
    await write(e, update('b', { handler: 'http://h/2', output_type: 'Other' }));
    expect((await exported(e)).text).toBe(doc([
      { name: 'b', definition: { handler: 'http://h/2', output_type: 'Other', kind: 'synchronous' }, comment: 'hi', permissions: [{ role: 'user' }] }]));
    await write(e, update('b', { handler: 'http://h/3', output_type: 'User', kind: 'asynchronous' }, { comment: 'new' }));
    expect((await exported(e)).text).toBe(doc([
      { name: 'b', definition: { handler: 'http://h/3', output_type: 'User', kind: 'asynchronous' }, comment: 'new', permissions: [{ role: 'user' }] }]));
    await write(e, update('b', { handler: 'http://h/3', output_type: 'User' }, { comment: null }));
    expect((await exported(e)).text).toBe(doc([{ name: 'b', definition: { handler: 'http://h/3', output_type: 'User', kind: 'synchronous' }, permissions: [{ role: 'user' }] }]));
    expect(await actionLog()).toEqual(['b']);
  });

  it('drop_action removes the action and its permissions; clear_data (default true) deletes its action_log rows', async () => {
    await write(e, create('a', { handler: H, output_type: 'User' }));
    await write(e, create('b', { handler: H, output_type: 'User' }));
    await write(e, perm('create', { action: 'a', role: 'user' }));
    await write(e, perm('create', { name: 'a', role: 'editor' }));
    await e.sql(`${LOG_ROW('a')}; ${LOG_ROW('a')}; ${LOG_ROW('b')}`);
    await write(e, { type: 'drop_action', args: { name: 'a' } });
    expect((await exported(e)).text).toBe(doc([{ name: 'b', definition: { handler: H, output_type: 'User', kind: 'synchronous' } }]));
    expect(await actionLog()).toEqual(['b']);
    await write(e, create('a', { handler: H, output_type: 'Other' }));
    expect((await exported(e)).text).toBe(doc([
      { name: 'a', definition: { handler: H, output_type: 'Other', kind: 'synchronous' } },
      { name: 'b', definition: { handler: H, output_type: 'User', kind: 'synchronous' } }]));
    await e.sql(LOG_ROW('a'));
    await write(e, { type: 'drop_action', args: { name: 'b', clear_data: false } });
    expect(await actionLog()).toEqual(['a', 'b']);
    await write(e, { type: 'drop_action', args: { name: 'a', clear_data: true } });
    expect(await actionLog()).toEqual(['b']);
    expect((await exported(e)).text).toBe(doc());
  });

  it('rejects a taken name and unknown actions (§7 rows 53, 54)', async () => {
    await write(e, create('a', { handler: H, output_type: 'User' }));
    await expectError(e, create('a', { handler: H, output_type: 'Other' }), 400, err('$.args.name', 'action with name "a" already exists', 'already-exists'));
    // Resolution comes after the name check.
    await expectError(e, create('a', { handler: H, output_type: 'Nope' }), 400, err('$.args.name', 'action with name "a" already exists', 'already-exists'));
    const missing = err('$.args.name', 'action with name "nope" does not exist', 'not-exists');
    await expectError(e, update('nope', { handler: H, output_type: 'User' }), 400, missing);
    await expectError(e, { type: 'drop_action', args: { name: 'nope' } }, 400, missing);
    await expectError(e, { type: 'drop_action', args: { name: 'nope', clear_data: false } }, 400, missing);
  });

  it('rejects unresolvable definitions with the action record (§7 row 55)', async () => {
    const fail = (name: string, definition: Obj, reason: string, comment?: string) => {
      const error = `in action "${name}": ${reason}`;
      return { path: '$.args', error, code: 'constraint-violation', internal: [{ definition: { name, definition, ...(comment === undefined ? {} : { comment }) }, reason: error, type: 'action' }] };
    };
    const d = (output_type: string, args?: Obj[]) => ({ handler: H, output_type, ...(args ? { arguments: args } : {}), kind: 'synchronous' });
    const cases: [Obj, string][] = [
      [d('User', [{ name: 'x', type: 'Int' }, { name: 'y', type: 'String' }, { name: 'x', type: 'Int' }]), 'duplicate arguments: "x"'],
      [d('Nope', [{ name: 'x', type: 'Int' }, { name: 'x', type: 'User' }]), 'duplicate arguments: "x"'],
      [d('User', [{ name: 'x', type: 'Int' }, { name: 'u', type: 'User!' }]), 'the type "User" of argument "u" is not a scalar, enum or input object type'],
      [d('User', [{ name: 'n', type: '[Nope!]' }, { name: 'u', type: 'User!' }]), 'the type "Nope" of argument "n" is not a scalar, enum or input object type'],
      [d('Nope', [{ name: 'i', type: 'UserInput' }, { name: 'c', type: 'Color' }]), 'the type "Nope" is not an object type defined in custom types'],
      [d('[UserInput!]'), 'the type "UserInput" is not an object type defined in custom types'],
      [d('String'), 'the type "String" is not an object type defined in custom types'],
      [d('uuid!'), 'the type "uuid" is not an object type defined in custom types'],
      [d('Color'), 'the type "Color" is not an object type defined in custom types'],
    ];
    for (const [def, reason] of cases) await expectError(e, create('a', def, { comment: 'c' }), 400, fail('a', def, reason, 'c'));
    await write(e, create('a', { handler: H, output_type: 'User' }, { comment: 'kept' }));
    await write(e, perm('create', { action: 'a', role: 'user' }));
    for (const [def, reason] of cases) await expectError(e, update('a', def), 400, fail('a', def, reason, 'kept'));
    await expectError(e, update('a', d('Date'), { comment: null }), 400, fail('a', d('Date'), 'the type "Date" is not an object type defined in custom types'));
  });

  it('rejects bad handlers, headers, kinds, timeouts, names and types (§7 rows 8–13, 16, 17)', async () => {
    const def = (extra: Obj) => ({ handler: H, output_type: 'User', ...extra });
    const reserved = (key: string, name: string) => `env variables starting with "ENGINE_GRAPHQL_" are not allowed in ${key}: ${name}`;
    const cases: [Obj, Obj][] = [
      [def({ handler: 'ftp://example.com/x' }), pf('$.args.definition.handler', 'handler must be an http or https URL')],
      [def({ handler: 'localhost:3000/x' }), pf('$.args.definition.handler', 'handler must be an http or https URL')],
      [def({ handler: '/x' }), pf('$.args.definition.handler', 'handler must be an http or https URL')],
      [def({ handler: '' }), pf('$.args.definition.handler', 'handler must be an http or https URL')],
      [def({ handler: '{{ENGINE_GRAPHQL_ADMIN_SECRET}}/x' }), pf('$.args.definition', reserved('handler', 'ENGINE_GRAPHQL_ADMIN_SECRET'))],
      [def({ handler: 'http://{{HOST}}/{{ engine_graphql_db }}' }), pf('$.args.definition', reserved('handler', 'engine_graphql_db'))],
      [def({ headers: [{ name: 'a', value: '1' }, { name: 'b', value_from_env: 'ENGINE_GRAPHQL_X' }] }), pf('$.args.definition.headers[1]', reserved('value_from_env', 'ENGINE_GRAPHQL_X'))],
      [def({ headers: [{ name: 'b', value_from_env: 'Engine_GraphQL_Admin_Secret' }] }), pf('$.args.definition.headers[0]', reserved('value_from_env', 'Engine_GraphQL_Admin_Secret'))],
      [def({ headers: [{ name: 'b', value: '1', value_from_env: 'X' }] }), pf('$.args.definition.headers[0]', 'only one of "value" or "value_from_env" may be given')],
      [def({ headers: [{ name: 'a', value: '1' }, { name: 'b' }] }), pf('$.args.definition.headers[1]', 'one of "value" or "value_from_env" is required')],
      [def({ headers: [{ value: '1' }] }), pf('$.args.definition.headers[0]', 'the key "name" was not present')],
      [def({ kind: 'sync' }), pf('$.args.definition.kind', 'expected one of "synchronous", "asynchronous", encountered "sync"')],
      // Query actions are accepted (issue 12); other root types are not.
      [def({ type: 'subscription' }), pf('$.args.definition.type', 'expected one of "mutation", "query", encountered "subscription"')],
      [def({ timeout: 0 }), pf('$.args.definition.timeout', 'expected an integer >= 1, encountered 0')],
      [def({ timeout: 2.5 }), pf('$.args.definition.timeout', 'expected an integer >= 1, encountered 2.5')],
      [def({ timeout: '30' }), pf('$.args.definition.timeout', 'expected Number, encountered String')],
      [def({ output_type: '[User' }), pf('$.args.definition.output_type', 'invalid GraphQL type "[User"')],
      [def({ output_type: 'User!!' }), pf('$.args.definition.output_type', 'invalid GraphQL type "User!!"')],
      [def({ arguments: [{ name: 'a', type: 'Int' }, { name: 'b', type: '[Int]]' }] }), pf('$.args.definition.arguments[1].type', 'invalid GraphQL type "[Int]]"')],
      [def({ arguments: [{ name: 'a b', type: 'Int' }] }), pf('$.args.definition.arguments[0].name', '"a b" is not a valid GraphQL name')],
      [{ handler: H }, pf('$.args.definition', 'the key "output_type" was not present')],
    ];
    for (const [d, expected] of cases) await expectError(e, create('a', d), 400, expected);
    await expectError(e, create('my-action', def({})), 400, pf('$.args.name', '"my-action" is not a valid GraphQL name'));
    await write(e, create('a', def({})));
    // Parse errors come before the name and existence checks.
    for (const [d, expected] of cases) await expectError(e, create('a', d), 400, expected);
    for (const [d, expected] of cases) await expectError(e, update('a', d), 400, expected);
    await expectError(e, update('nope', def({ handler: 'ftp://x' })), 400, pf('$.args.definition.handler', 'handler must be an http or https URL'));
  });
});

describe('create_action_permission, drop_action_permission', () => {
  beforeEach(async () => {
    await write(e, create('a', { handler: H, output_type: 'User' }));
  });
  const A = { name: 'a', definition: { handler: H, output_type: 'User', kind: 'synchronous' } };

  it('creates under either key, ignores definition, exports sorted by role, allows drop and re-create', async () => {
    await write(e, perm('create', { action: 'a', role: 'user', definition: { select: { filter: {} } } }));
    await write(e, perm('create', { name: 'a', role: 'editor', comment: 'edits' }));
    await write(e, perm('create', { action: 'a', role: 'Admin', comment: null }));
    expect((await exported(e)).text).toBe(doc([{ ...A, permissions: [{ role: 'Admin' }, { role: 'editor', comment: 'edits' }, { role: 'user' }] }]));
    await write(e, perm('drop', { name: 'a', role: 'user' }));
    await write(e, perm('drop', { action: 'a', role: 'Admin' }));
    expect((await exported(e)).text).toBe(doc([{ ...A, permissions: [{ role: 'editor', comment: 'edits' }] }]));
    await write(e, perm('create', { action: 'a', role: 'user', comment: 'back' }));
    await write(e, perm('drop', { action: 'a', role: 'editor' }));
    expect((await exported(e)).text).toBe(doc([{ ...A, permissions: [{ role: 'user', comment: 'back' }] }]));
    await write(e, perm('drop', { name: 'a', role: 'user' }));
    expect((await exported(e)).text).toBe(doc([A]));
  });

  it('rejects bad keys, unknown actions, admin, duplicates and missing permissions (§7 rows 15, 54, 56–60)', async () => {
    await write(e, perm('create', { action: 'a', role: 'user' }));
    for (const op of ['create', 'drop'] as const) {
      await expectError(e, perm(op, { action: 'a', name: 'a', role: 'user' }), 400, pf('$.args', 'only one of "action" or "name" may be given'));
      await expectError(e, perm(op, { role: 'user' }), 400, pf('$.args', 'one of "action" or "name" is required'));
      await expectError(e, perm(op, { action: 'a', role: '' }), 400, pf('$.args.role', 'role name cannot be empty'));
      await expectError(e, perm(op, { action: 'nope', role: 'user' }), 400, err('$.args.action', 'action with name "nope" does not exist', 'not-exists'));
      await expectError(e, perm(op, { name: 'nope', role: 'user' }), 400, err('$.args.name', 'action with name "nope" does not exist', 'not-exists'));
    }
    const admin = (definition: Obj) => {
      const error = 'in action "a": in permission for role "admin": cannot define permission for admin role';
      return { path: '$.args', error, code: 'constraint-violation', internal: [{ definition, reason: error, type: 'action_permission' }] };
    };
    await expectError(e, perm('create', { action: 'a', role: 'admin' }), 400, admin({ action: 'a', role: 'admin' }));
    await expectError(e, perm('create', { name: 'a', role: 'admin', comment: 'x' }), 400, admin({ action: 'a', role: 'admin', comment: 'x' }));
    await expectError(e, perm('create', { action: 'a', role: 'user', comment: 'again' }), 400, err('$.args', 'permission for role "user" is already defined on "a"', 'already-exists'));
    await expectError(e, perm('drop', { name: 'a', role: 'editor' }), 400, err('$.args', 'permission for role "editor" is not defined on "a"', 'not-exists'));
    await expectError(e, perm('drop', { action: 'a', role: 'admin' }), 400, err('$.args', 'permission for role "admin" is not defined on "a"', 'not-exists'));
  });
});

describe('replace_metadata with actions and custom types (§4.8.2)', () => {
  it('stores the same document as the individual calls, byte for byte', async () => {
    await write(e, create('b', FULL, { comment: 'hi' }));
    await write(e, create('a', { handler: H, output_type: 'User', timeout: 30 }));
    await write(e, perm('create', { action: 'b', role: 'user' }));
    await write(e, perm('create', { name: 'b', role: 'editor', comment: 'e' }));
    const individual = (await exported(e)).text;
    expect(individual).toBe(doc([
      { name: 'a', definition: { handler: H, output_type: 'User', kind: 'synchronous' } },
      { name: 'b', definition: FULL_EXPORT, comment: 'hi', permissions: [{ role: 'editor', comment: 'e' }, { role: 'user' }] }]));
    await write(e, { type: 'clear_metadata', args: {} });
    expect((await exported(e)).text).toBe('{"version":2,"tables":[]}');
    await write(e, { type: 'replace_metadata', args: {
      version: 2, tables: [],
      custom_types: { objects: [...TYPES.objects].reverse(), enums: TYPES.enums, scalars: TYPES.scalars, input_objects: TYPES.input_objects },
      actions: [
        { name: 'b', definition: FULL, comment: 'hi', permissions: [{ role: 'user', comment: null }, { role: 'editor', comment: 'e' }] },
        { name: 'a', definition: { handler: H, output_type: 'User', type: 'mutation', arguments: [], headers: [] }, permissions: [] },
      ],
    } });
    expect((await exported(e)).text).toBe(individual);
  });

  it('rejects duplicate actions and duplicate action permissions (§7 row 79)', async () => {
    const act = (name: string, permissions: Obj[] = []) => ({ name, definition: { handler: H, output_type: 'User' }, permissions });
    const md = (actions: Obj[]) => ({ type: 'replace_metadata', args: { version: 2, tables: [], custom_types: TYPES, actions } });
    await expectError(e, md([act('a'), act('b'), act('a'), act('b'), act('a')]), 400,
      err('$.args.actions', 'multiple declarations exist for the following actions : "a", "b"', 'already-exists'));
    await expectError(e, md([act('a', [{ role: 'user' }]), act('b', [{ role: 'user' }, { role: 'x' }, { role: 'user' }])]), 400,
      err('$.args.actions[1]', 'multiple declarations exist for the following action permissions : "user"', 'already-exists'));
    await expectError(e, md([act('a', [{ role: 'user' }, { role: 'user' }])]), 400,
      err('$.args.actions[0]', 'multiple declarations exist for the following action permissions : "user"', 'already-exists'));
    await expectError(e, md([act('a', [{ role: 'user' }, { role: 'user' }]), act('a')]), 400,
      err('$.args.actions', 'multiple declarations exist for the following actions : "a"', 'already-exists'));
  });
});
