import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { fails, runSql } from '../helpers/assertions.js';
import { startRemote, type RemoteServer, type Root } from '../helpers/remote-schema.js';
import { as, gql } from './graphql-fixture.js';

// Remote schema permissions (issue 35.2): a role's SDL is the part of the remote it sees (types, fields, arguments),
// checked against the remote when added; `@preset` arguments and input fields leave the role's schema and are set by
// the engine when it forwards, from the session or as written (`static: true`). Presets hold for remote
// relationships' calls too.

const e = useTestEngine();
let remote: RemoteServer;
let inputs: RemoteServer;

const INPUT_SDL = `
  type Query { messages(where: Where): [Message!]! }
  type Message { id: Int! owner: Int! }
  input Where { owner: IntEq, id: IntEq }
  input IntEq { eq: Int }
`;
interface Where { owner?: { eq?: number }; id?: { eq?: number } }
const inputRoot = (): Root => ({
  messages: ({ where }: { where?: Where }) => [1, 2, 3, 4].map((id) => ({ id, owner: id % 2 }))
    .filter((m) => where?.owner?.eq === undefined || m.owner === where.owner.eq)
    .filter((m) => where?.id?.eq === undefined || m.id === where.id.eq),
});

beforeAll(async () => {
  remote = await startRemote();
  inputs = await startRemote(INPUT_SDL, 0, inputRoot);
});
afterAll(async () => {
  await remote.close();
  await inputs.close();
});
beforeEach(async () => {
  await e.reset();
  remote.received.length = 0;
  inputs.received.length = 0;
  await e.ok({ type: 'add_remote_schema', args: { name: 'simple', definition: { url: `${remote.url}/graphql` } } });
});

const permit = (role: string, schema: string, remoteSchema = 'simple') => ({ type: 'add_remote_schema_permissions', args: { remote_schema: remoteSchema, role, definition: { schema } } });

describe('a role\'s part of a remote schema', () => {
  it('holds only the fields its SDL lists, on every type', async () => {
    await e.ok(permit('user', 'type Query { user(id: Int!): User } type User { id: Int! }'));
    expect((await gql(e, { query: '{ user(id: 2) { id } }' }, as('user', 1))).body).toEqual({ data: { user: { id: 2 } } });
    const hidden = await gql(e, { query: '{ user(id: 2) { name } }' }, as('user', 1));
    expect(hidden.body.errors[0]).toMatchObject({ extensions: { code: 'validation-failed' } });
    expect(hidden.body.errors[0].message).toContain('name');
    expect(remote.calls()).toHaveLength(1);
  });

  it('a session preset is set by the engine, and the role cannot give the argument', async () => {
    await e.ok(permit('user', 'type Query { user(id: Int! @preset(value: "x-hasura-user-id")): User } type User { id: Int! name: String! }'));
    expect((await gql(e, { query: '{ user { id name } }' }, as('user', 7))).body).toEqual({ data: { user: { id: 7, name: 'user 7' } } });
    expect(String(remote.calls()[0]!.body.query)).toContain('user(id: 7)');
    const given = await gql(e, { query: '{ user(id: 3) { id } }' }, as('user', 7));
    expect(given.body.errors[0].extensions.code).toBe('validation-failed');
    const missing = await gql(e, { query: '{ user { id } }' }, { 'x-hasura-role': 'user' });
    expect(missing.body).toEqual({ errors: [{ message: 'missing session variable: "x-hasura-user-id"', extensions: { path: '$', code: 'not-found' } }] });
    expect(remote.calls()).toHaveLength(1);
    // admin sees the whole remote, argument included.
    expect((await gql(e, { query: '{ user(id: 3) { id } }' })).body).toEqual({ data: { user: { id: 3 } } });
  });

  it('a static preset is sent as written', async () => {
    await e.ok(permit('user', 'type Query { hello(arg: String @preset(value: "x-hasura-user-id", static: true)): String }'));
    expect((await gql(e, { query: '{ hello }' }, as('user', 7))).body).toEqual({ data: { hello: 'Hello x-hasura-user-id' } });
  });

  it('an input field preset is set inside the object the client gives, also through a variable', async () => {
    // This remote alone: the test's role then sees only its part.
    await e.ok({ type: 'remove_remote_schema', args: { name: 'simple' } });
    await e.ok({ type: 'add_remote_schema', args: { name: 'inputs', definition: { url: `${inputs.url}/graphql` } } });
    await e.ok(permit('user', 'type Query { messages(where: Where): [Message!]! } type Message { id: Int! owner: Int! } input Where { owner: IntEq @preset(value: {eq: "x-hasura-user-id"}) id: IntEq } input IntEq { eq: Int }', 'inputs'));
    const lit = await gql(e, { query: '{ messages(where: {id: {eq: 3}}) { id owner } }' }, as('user', 1));
    expect(lit.body).toEqual({ data: { messages: [{ id: 3, owner: 1 }] } });
    const byVar = await gql(e, { query: 'query Q($w: Where) { messages(where: $w) { id } }', variables: { w: { id: { eq: 2 } } } }, as('user', 1));
    expect(byVar.body).toEqual({ data: { messages: [] } });
    const sent = inputs.calls().map((c) => String(c.body.query));
    expect(sent[0]).toContain('owner: {eq: 1}');
    expect(sent[1]).toContain('owner: {eq: 1}');
    expect(inputs.calls()[1]!.body.variables).toBeUndefined();
  });

  it('holds for remote relationships: a role whose part lacks the field does not see the relationship; presets apply to the join call', async () => {
    await e.ok(runSql('CREATE TABLE author (id int PRIMARY KEY); INSERT INTO author VALUES (1), (2);'));
    await e.ok({ type: 'track_table', args: { table: 'author' } });
    await e.ok({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id'], filter: {} } } });
    await e.ok({ type: 'create_select_permission', args: { table: 'author', role: 'other', permission: { columns: ['id'], filter: {} } } });
    await e.ok({ type: 'create_remote_relationship', args: { name: 'greeting', table: 'author', hasura_fields: ['id'], remote_schema: 'simple', remote_field: { hello: { arguments: {} } } } });
    await e.ok(permit('user', 'type Query { hello(arg: String @preset(value: "x-hasura-user-id")): String }'));
    await e.ok(permit('other', 'type Query { whoami: String }'));
    expect((await gql(e, { query: '{ author(order_by: {id: asc}) { greeting } }' }, as('user', 5))).body).toEqual({ data: { author: [{ greeting: 'Hello 5' }, { greeting: 'Hello 5' }] } });
    expect(remote.calls()).toHaveLength(1);
    expect((await gql(e, { query: '{ author { greeting } }' }, as('other', 5))).body.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('add_remote_schema_permissions refuses an SDL that is not part of the remote, and nothing changes', () => {
  const head = 'validation for the given role-based schema failed because';
  it.each([
    ['a type the remote lacks', 'type Query { hello: String } type Nope { id: Int }', `${head} "Object": "Nope" does not exist in the upstream remote schema`],
    ['a field the remote lacks', 'type Query { goodbye: String }', `${head} field "goodbye" does not exist in the "Object": "Query" of the upstream remote schema`],
    ['a field of another type', 'type Query { hello: Int }', `${head} field "Query.hello" expected to be of type "String" but is "Int"`],
    ['an argument the remote lacks', 'type Query { hello(other: String): String }', `${head} argument "other" does not exist in the field "Query.hello" of the upstream remote schema`],
    ['a union member the remote lacks', 'type Query { hello: String } union SearchResult = User | Query', `${head} type "Query" is not a member of the "Union": "SearchResult" of the upstream remote schema`],
  ])('%s', async (_, sdl, error) => {
    await fails(e, permit('user', sdl), 400, { path: '$.args', error, code: 'validation-failed' });
  });

  it('SDL that does not parse, and a role given twice', async () => {
    const bad = await e.query(permit('user', 'type Query {'));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'parse-failed', path: '$.args.definition.schema' });
    await e.ok(permit('user', 'type Query { hello: String }'));
    await fails(e, permit('user', 'type Query { hello: String }'), 400, { path: '$.args.role', error: 'permissions for role "user" already exist for remote schema "simple"', code: 'already-exists' });
  });
});
