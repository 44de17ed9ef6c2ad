import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { dependencyError, fails, inconsistentError, runSql } from '../helpers/assertions.js';
import { buildSchema, graphql } from 'graphql';
import { startRemote, type RemoteServer, type Root } from '../helpers/remote-schema.js';
import { startWebhook } from '../helpers/webhook.js';
import { as, gql } from './graphql-fixture.js';

// Issue 35 rules around remote schemas: a dropped join column is a dependency error (renames carry through), join
// values keep every digit, two remotes whose roots are both `Query` merge while other same-named types conflict
// unless customised, inherited roles see their parents' parts of a remote (presets must agree), and an action's
// output cannot be joined to a remote schema (as with the incumbent).

const SDL = `
  type Query {
    profile(id: Int!): Profile
    item(id: ID!): Item
    label(text: String!): String
    hello(arg: String): String
  }
  type Profile { id: Int! name: String! }
  type Item { id: ID! }
`;
const root = (): Root => ({
  profile: ({ id }: { id: number }) => ({ id, name: `profile ${id}` }),
  item: ({ id }: { id: string }) => ({ id }),
  label: ({ text }: { text: string }) => `label ${text}`,
  hello: ({ arg }: { arg?: string }) => `Hello ${arg ?? 'world'}`,
});
const TWIN_SDL = 'type Query { twin: Profile } type Profile { id: Int! name: String! twinOf: Int }';
const SAME_SDL = 'type Query { same: Profile } type Profile { id: Int! name: String! }';

const e = useTestEngine();
let main: RemoteServer;
let twin: RemoteServer;
let same: RemoteServer;

beforeAll(async () => {
  main = await startRemote(SDL, 0, root);
  twin = await startRemote(TWIN_SDL, 0, () => ({ twin: () => ({ id: 2, name: 'twin', twinOf: 1 }) }));
  same = await startRemote(SAME_SDL, 0, () => ({ same: () => ({ id: 4, name: 'same' }) }));
});
afterAll(async () => {
  await main.close();
  await twin.close();
  await same.close();
});
beforeEach(async () => {
  await e.reset();
  main.received.length = 0;
  await e.ok(runSql(`CREATE TABLE author (id int PRIMARY KEY, profile_id int, big bigint);
    INSERT INTO author VALUES (1, 1, 9007199254740993), (2, 2, -9223372036854775807);`));
  await e.ok({ type: 'track_table', args: { table: 'author' } });
  await e.ok({ type: 'add_remote_schema', args: { name: 'main', definition: { url: `${main.url}/graphql` } } });
});

const legacy = (name: string, field: string, arg: string, column: string) => ({
  type: 'create_remote_relationship',
  args: { name, table: 'author', hasura_fields: [column], remote_schema: 'main', remote_field: { [field]: { arguments: { [arg]: `$${column}` } } } },
});
const toSource = { type: 'create_remote_schema_remote_relationship', args: {
  remote_schema: 'main', type_name: 'Profile', name: 'authors',
  definition: { to_source: { source: 'default', table: 'author', relationship_type: 'array', field_mapping: { id: 'profile_id' } } },
} };

describe('dependencies of remote relationships on columns and tables', () => {
  it('dropping a join column by run_sql is a dependency error naming both kinds; nothing changes; cascade removes them', async () => {
    await e.ok(legacy('profile', 'profile', 'id', 'profile_id'));
    await e.ok(toSource);
    await fails(e, runSql('ALTER TABLE author DROP COLUMN profile_id'), 400,
      dependencyError('remote relationship author.profile, remote_relationship authors on type Profile in remote schema main'));
    await e.ok(runSql('ALTER TABLE author DROP COLUMN profile_id', { cascade: true }));
    const md = await e.ok({ type: 'export_metadata', args: {} });
    expect(md.tables[0].remote_relationships).toBeUndefined();
    expect(md.remote_schemas[0].remote_relationships).toBeUndefined();
    expect((await e.ok({ type: 'get_inconsistent_metadata', args: {} })).is_consistent).toBe(true);
  });

  it('dropping the table of a to_source relationship is a dependency error', async () => {
    await e.ok(runSql('CREATE TABLE fan (id int PRIMARY KEY, profile_id int)'));
    await e.ok({ type: 'track_table', args: { table: 'fan' } });
    await e.ok({ ...toSource, args: { ...toSource.args, name: 'fans', definition: { to_source: { table: 'fan', relationship_type: 'array', field_mapping: { id: 'profile_id' } } } } });
    await fails(e, runSql('DROP TABLE fan'), 400, dependencyError('remote_relationship fans on type Profile in remote schema main'));
  });

  it('renaming a join column or the table by run_sql carries into both forms and the to_source mapping', async () => {
    await e.ok(legacy('profile', 'profile', 'id', 'profile_id'));
    await e.ok({ type: 'pg_create_remote_relationship', args: { source: 'default', table: 'author', name: 'again', definition: { to_remote_schema: { remote_schema: 'main', lhs_fields: ['profile_id'], remote_field: { profile: { arguments: { id: '$profile_id' } } } } } } });
    await e.ok(toSource);
    await e.ok(runSql('ALTER TABLE author RENAME COLUMN profile_id TO pid'));
    await e.ok(runSql('ALTER TABLE author RENAME TO writer'));
    const md = await e.ok({ type: 'export_metadata', args: {} });
    expect(md.tables[0].table).toEqual({ schema: 'public', name: 'writer' });
    expect(md.tables[0].remote_relationships).toEqual([
      { name: 'again', definition: { to_remote_schema: { remote_schema: 'main', lhs_fields: ['pid'], remote_field: { profile: { arguments: { id: '$pid' } } } } } },
      { name: 'profile', definition: { remote_schema: 'main', hasura_fields: ['pid'], remote_field: { profile: { arguments: { id: '$pid' } } } } },
    ]);
    expect(md.remote_schemas[0].remote_relationships[0].relationships[0].definition.to_source)
      .toEqual({ source: 'default', table: { schema: 'public', name: 'writer' }, relationship_type: 'array', field_mapping: { id: 'pid' } });
    expect((await e.ok({ type: 'get_inconsistent_metadata', args: {} })).is_consistent).toBe(true);
    const r = await gql(e, { query: '{ writer_by_pk(id: 1) { profile { name authors { id } } again { id } } }' });
    expect(r.body).toEqual({ data: { writer_by_pk: { profile: { name: 'profile 1', authors: [{ id: 1 }] }, again: { id: 1 } } } });
  });
});

describe('join values', () => {
  it('a bigint above 2^53 keeps its digits: an ID argument gets the number as printed, a String argument its text', async () => {
    await e.ok(legacy('item', 'item', 'id', 'big'));
    await e.ok(legacy('label', 'label', 'text', 'big'));
    const r = await gql(e, { query: '{ author(order_by: {id: asc}) { item { id } label } }' });
    expect(r.body).toEqual({ data: { author: [
      { item: { id: '9007199254740993' }, label: 'label 9007199254740993' },
      { item: { id: '-9223372036854775807' }, label: 'label -9223372036854775807' },
    ] } });
    const sent = String(main.calls()[0]!.body.query);
    expect(sent).toContain('item(id: 9007199254740993)');
    expect(sent).toContain('label(text: "-9223372036854775807")');
  });
});

describe('chains through tables', () => {
  it('a remote type → table → that table\'s remote relationship is joined (not left as the engine\'s marker)', async () => {
    await e.ok(legacy('profile', 'profile', 'id', 'profile_id'));
    await e.ok(toSource);
    const r = await gql(e, { query: '{ profile(id: 2) { name authors { id profile { name } } } }' });
    expect(r.body).toEqual({ data: { profile: { name: 'profile 2', authors: [{ id: 2, profile: { name: 'profile 2' } }] } } });
    expect(main.calls()).toHaveLength(2);
  });
});

describe('an asynchronous action\'s stored output', () => {
  it('reaches a table\'s remote relationship, joined when the result is read', async () => {
    await e.ok(legacy('profile', 'profile', 'id', 'profile_id'));
    await e.ok({ type: 'set_custom_types', args: { objects: [{
      name: 'AuthorRef', fields: [{ name: 'author_id', type: 'Int!' }],
      relationships: [{ name: 'author', type: 'object', remote_table: 'author', field_mapping: { author_id: 'id' } }],
    }] } });
    await e.ok({ type: 'create_action', args: { name: 'lookup', definition: { kind: 'asynchronous', handler: 'http://127.0.0.1:9/lookup', output_type: 'AuthorRef', arguments: [] } } });
    const id = '00000000-0000-4000-8000-0000000000aa';
    await e.sql(`INSERT INTO engine_catalog.action_log (id, action_name, input_payload, request_headers, session_variables, status, response_payload)
      VALUES ('${id}', 'lookup', '{}', '[]', '{"x-hasura-role": "admin"}', 'completed', '{"author_id": 2}')`);
    const r = await gql(e, { query: `{ lookup(id: "${id}") { output { author_id author { profile { name } } } } }` });
    expect(r.body).toEqual({ data: { lookup: { output: { author_id: 2, author: { profile: { name: 'profile 2' } } } } } });
  });
});

describe('a remote\'s numbers', () => {
  it('keep their digits to the client and into a to_source join on a bigint column', async () => {
    // The remote writes 2^53 + 1 as a JSON number (graphql-js would round it: its text is put in afterwards).
    const schema = buildSchema('scalar BigInt type Query { big: Big } type Big { n: BigInt! }');
    const raw = await startWebhook(async (req, res) => {
      const body = req.body as { query: string; variables?: Record<string, unknown> };
      const result = await graphql({ schema, source: body.query, rootValue: { big: () => ({ n: 'BIG:9007199254740993' }) }, variableValues: body.variables ?? {} });
      res.end(JSON.stringify(result).replace(/"BIG:(-?\d+)"/g, '$1'));
    });
    try {
      await e.ok({ type: 'add_remote_schema', args: { name: 'bigs', definition: { url: `${raw.url}/graphql` } } });
      await e.ok({ type: 'create_remote_schema_remote_relationship', args: {
        remote_schema: 'bigs', type_name: 'Big', name: 'authors',
        definition: { to_source: { source: 'default', table: 'author', relationship_type: 'array', field_mapping: { n: 'big' } } },
      } });
      const r = await gql(e, { query: '{ big { n authors { id big } } }' });
      expect(r.text.replace(/\s/g, '')).toBe('{"data":{"big":{"n":9007199254740993,"authors":[{"id":1,"big":9007199254740993}]}}}');
    } finally {
      await raw.close();
    }
  });
});

describe('two remote schemas with types named alike', () => {
  it('their `Query` roots merge; another type of the same name is the incumbent\'s conflict, and nothing changes', async () => {
    const add = { type: 'add_remote_schema', args: { name: 'twin', definition: { url: `${twin.url}/graphql` } } };
    const r = await e.query(add);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: 'constraint-violation', path: '$.args',
      error: 'in remote schema "twin": Found conflicting definitions for GraphQL type \'Profile\': type "Profile" conflicts with remote schema "main"\'s type "Profile"',
    });
    await fails(e, add, 400, r.body);
  });

  it('the same definition in both is one type of the merged schema (the incumbent merges them), for admin and for roles', async () => {
    await e.ok({ type: 'add_remote_schema', args: { name: 'same', definition: { url: `${same.url}/graphql` } } });
    expect((await e.ok({ type: 'get_inconsistent_metadata', args: {} })).is_consistent).toBe(true);
    await e.ok(legacy('profile', 'profile', 'id', 'profile_id'));
    await e.ok({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'profile_id'], filter: {} } } });
    const q = { query: '{ same { __typename name } profile(id: 3) { __typename name } author_by_pk(id: 1) { profile { __typename name } } }' };
    const want = { data: { same: { __typename: 'Profile', name: 'same' }, profile: { __typename: 'Profile', name: 'profile 3' }, author_by_pk: { profile: { __typename: 'Profile', name: 'profile 1' } } } };
    expect((await gql(e, q)).body).toEqual(want);
    expect((await gql(e, q, as('user', 1))).body).toEqual(want);
    const t = await gql(e, { query: '{ __type(name: "Profile") { fields { name } } }' });
    expect(t.body).toEqual({ data: { __type: { fields: [{ name: 'id' }, { name: 'name' }] } } });
  });

  it('a type-name prefix (customization) resolves it: both remotes answer in one operation', async () => {
    await e.ok({ type: 'add_remote_schema', args: { name: 'twin', definition: { url: `${twin.url}/graphql`, customization: { type_names: { prefix: 'Twin_' } } } } });
    const r = await gql(e, { query: '{ twin { __typename name } profile(id: 3) { __typename name } }' });
    expect(r.body).toEqual({ data: { twin: { __typename: 'Twin_Profile', name: 'twin' }, profile: { __typename: 'Profile', name: 'profile 3' } } });
  });
});

const permit = (role: string, schema: string) => ({ type: 'add_remote_schema_permissions', args: { remote_schema: 'main', role, definition: { schema } } });
const inherit = (name: string, set: string[]) => ({ type: 'add_inherited_role', args: { role_name: name, role_set: set } });

describe('inherited roles on a remote schema', () => {
  beforeEach(async () => {
    await e.ok(permit('reader', 'type Query { hello(arg: String): String }'));
    await e.ok(permit('owner', 'type Query { profile(id: Int! @preset(value: "x-hasura-user-id")): Profile } type Profile { id: Int! }'));
  });

  it('sees a field when any parent role sees it, with the parent\'s presets; what no parent sees stays hidden', async () => {
    await e.ok(inherit('both', ['reader', 'owner']));
    const r = await gql(e, { query: '{ hello profile { id } }' }, as('both', 5));
    expect(r.body).toEqual({ data: { hello: 'Hello world', profile: { id: 5 } } });
    expect(String(main.calls()[0]!.body.query)).toContain('profile(id: 5)');
    for (const query of ['{ profile { name } }', '{ profile(id: 1) { id } }', '{ label(text: "x") }']) {
      const hidden = await gql(e, { query }, as('both', 5));
      expect(hidden.body.errors[0].extensions.code).toBe('validation-failed');
    }
    expect(main.calls()).toHaveLength(1);
  });

  it('a table\'s remote relationship: the join columns from one parent\'s select permission, the remote field from the other\'s part', async () => {
    await e.ok(legacy('greeting', 'hello', 'arg', 'profile_id'));
    await e.ok({ type: 'create_select_permission', args: { table: 'author', role: 'owner', permission: { columns: ['id', 'profile_id'], filter: {} } } });
    const q = { query: '{ author(order_by: {id: asc}) { id greeting } }' };
    expect((await gql(e, q, as('owner', 1))).body.errors[0].extensions.code).toBe('validation-failed');
    await e.ok(inherit('both', ['reader', 'owner']));
    expect((await gql(e, q, as('both', 1))).body).toEqual({ data: { author: [{ id: 1, greeting: 'Hello 1' }, { id: 2, greeting: 'Hello 2' }] } });
  });

  it('parents that show one argument with different presets conflict: the inherited role is refused and nothing changes; a permission of its own settles it', async () => {
    await e.ok(permit('other', 'type Query { profile(id: Int!): Profile } type Profile { id: Int! name: String! }'));
    const reason = 'Could not inherit permission for the role \'mixed\' for the entity: \'remote schema: "main"\': the parent roles give argument Query.profile.id different presets';
    await fails(e, inherit('mixed', ['owner', 'other']), 400, inconsistentError('cannot continue due to new inconsistent metadata', [
      { definition: { name: 'mixed', entity: { remote_schema: 'main' } }, reason, type: 'inherited role permission inconsistency' },
    ]));
    await e.ok(permit('mixed', 'type Query { hello: String }'));
    await e.ok(inherit('mixed', ['owner', 'other']));
    expect((await gql(e, { query: '{ hello }' }, as('mixed', 1))).body).toEqual({ data: { hello: 'Hello world' } });
    expect((await gql(e, { query: '{ profile { id } }' }, as('mixed', 1))).body.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('an action output and a remote schema', () => {
  it('cannot be joined (the incumbent\'s rule): set_custom_types refuses the relationship, nothing changes', async () => {
    await fails(e, { type: 'set_custom_types', args: { objects: [{
      name: 'Out', fields: [{ name: 'id', type: 'Int!' }],
      relationships: [{ name: 'profile', type: 'object', remote_schema: 'main', field_mapping: { id: 'id' } }],
    }] } }, 400, {
      path: '$.args.objects[0].relationships[0].remote_schema', code: 'not-supported',
      error: 'an action\'s output type cannot be joined to a remote schema: its relationships lead to tables (remote_table)',
    });
  });
});
