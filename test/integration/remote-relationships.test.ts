import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { fails, runSql } from '../helpers/assertions.js';
import { startRemote, type RemoteServer, type Root } from '../helpers/remote-schema.js';
import { as, gql } from './graphql-fixture.js';
import { modernClient } from '../helpers/subscriptions.js';

// Remote relationships, table → remote schema field (issue 35.3): a real graphql-js remote on 127.0.0.1 that counts
// its calls. The join is batched: one call per remote schema for the whole operation, one aliased field per distinct
// (relationship, join values), never a call per row.

const SDL = `
  type Query {
    profile(id: Int!): Profile
    messages(where: MessageWhere, limit: Int): [Message!]!
    level(id: Int!): Level
    fails(id: Int!): String
  }
  type Profile { id: Int! name: String! }
  type Level { profile: Profile }
  type Message { id: Int! author_id: Int! text: String! }
  input MessageWhere { author_id: IntEq, text: StringEq }
  input IntEq { eq: Int }
  input StringEq { eq: String }
`;

const MESSAGES = [{ id: 1, author_id: 1, text: 'hi' }, { id: 2, author_id: 1, text: 'yo' }, { id: 3, author_id: 2, text: 'hi' }];

interface Where { author_id?: { eq?: number }; text?: { eq?: string } }

const root = (): Root => {
  const profile = (id: number) => ({ id, name: `profile ${id}` });
  return {
    profile: ({ id }: { id: number }) => profile(id),
    messages: ({ where, limit }: { where?: Where; limit?: number }) => MESSAGES
      .filter((m) => where?.author_id?.eq === undefined || m.author_id === where.author_id.eq)
      .filter((m) => where?.text?.eq === undefined || m.text === where.text.eq)
      .slice(0, limit ?? 100),
    level: ({ id }: { id: number }) => ({ profile: profile(id * 10) }),
    fails: ({ id }: { id: number }) => {
      throw new Error(`no profile ${id}`);
    },
  };
};

const e = useTestEngine();
let remote: RemoteServer;

beforeAll(async () => {
  remote = await startRemote(SDL, 0, root);
});
afterAll(async () => remote.close());
beforeEach(async () => {
  await e.reset();
  remote.received.length = 0;
  remote.mode = 'graphql';
  await e.ok(runSql(`CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, profile_id int);
    INSERT INTO author (name, profile_id) SELECT 'author ' || g, CASE WHEN g % 100 = 0 THEN NULL ELSE g END FROM generate_series(1, 1000) AS g;`));
  await e.ok({ type: 'track_table', args: { table: 'author' } });
  await e.ok({ type: 'add_remote_schema', args: { name: 'profiles', definition: { url: `${remote.url}/graphql` } } });
});

const legacy = (name: string, remoteField: Record<string, unknown>, fields = ['profile_id']) => ({
  type: 'create_remote_relationship',
  args: { name, table: 'author', hasura_fields: fields, remote_schema: 'profiles', remote_field: remoteField },
});
const profileRel = legacy('profile', { profile: { arguments: { id: '$profile_id' } } });

describe('a table → remote schema relationship', () => {
  it('joins a list of 1,000 rows with exactly one call to the remote, one aliased field per row; null join values are null without a field', async () => {
    await e.ok(profileRel);
    const r = await gql(e, { query: '{ author(order_by: {id: asc}) { id profile { id name } } }' });
    const rows = r.body.data.author as { id: number; profile: { id: number; name: string } | null }[];
    expect(rows).toHaveLength(1000);
    expect(rows[0]).toEqual({ id: 1, profile: { id: 1, name: 'profile 1' } });
    expect(rows[99]).toEqual({ id: 100, profile: null });
    expect(rows[999]).toEqual({ id: 1000, profile: null });
    expect(rows[998]).toEqual({ id: 999, profile: { id: 999, name: 'profile 999' } });
    const calls = remote.calls();
    expect(calls).toHaveLength(1);
    const query = String(calls[0]!.body.query);
    expect(query.match(/_r\d+: profile\(/g)).toHaveLength(990);
    expect(query).toContain('_r0: profile(id: 1)');
  });

  it('a subscription with a remote relationship is answered with the join (not multiplexed: its statement alone has markers)', async () => {
    await e.ok(profileRel);
    const c = modernClient(e.url, {});
    try {
      const r = c.subscribe('subscription { author(where: {id: {_eq: 1}}) { id profile { name } } }');
      expect((await r.next(() => true)).data).toEqual({ author: [{ id: 1, profile: { name: 'profile 1' } }] });
    } finally {
      await c.dispose();
    }
  });

  it('the statement\'s answer is spliced as text: a numeric keeps its digits next to a joined field', async () => {
    await e.ok(profileRel);
    await e.ok(runSql('ALTER TABLE author ADD COLUMN score numeric; UPDATE author SET score = 0.10 WHERE id = 1;'));
    await e.ok({ type: 'reload_metadata', args: {} });
    const r = await gql(e, { query: '{ author_by_pk(id: 1) { score profile { id } } }' });
    expect(r.text).toMatch(/"score" ?: ?0\.10\b/);
    expect(r.body).toEqual({ data: { author_by_pk: { score: 0.1, profile: { id: 1 } } } });
  });

  it('rows with the same join values share one field of the call', async () => {
    await e.ok(profileRel);
    await e.ok(runSql('UPDATE author SET profile_id = 7 WHERE id <= 5'));
    const r = await gql(e, { query: '{ author(where: {id: {_lte: 5}}, order_by: {id: asc}) { id profile { name } } }' });
    expect(r.body.data.author.map((a: { profile: { name: string } }) => a.profile.name)).toEqual(Array(5).fill('profile 7'));
    expect(remote.calls()).toHaveLength(1);
    expect(String(remote.calls()[0]!.body.query).match(/profile\(/g)).toHaveLength(1);
  });

  it('the newer definition form (pg_create_remote_relationship, to_remote_schema): nested join arguments merged with the client\'s, inside an array relationship and across root fields, still one call', async () => {
    await e.ok(runSql('CREATE TABLE book (id serial PRIMARY KEY, author_id int REFERENCES author (id)); INSERT INTO book (author_id) VALUES (1), (2);'));
    await e.ok({ type: 'track_table', args: { table: 'book' } });
    await e.ok({ type: 'create_object_relationship', args: { table: 'book', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    await e.ok({
      type: 'pg_create_remote_relationship',
      args: {
        source: 'default', table: 'author', name: 'messages',
        definition: { to_remote_schema: { remote_schema: 'profiles', lhs_fields: ['id'], remote_field: { messages: { arguments: { where: { author_id: { eq: '$id' } } } } } } },
      },
    });
    const r = await gql(e, {
      query: 'query Q($t: String) { author(where: {id: {_lte: 2}}, order_by: {id: asc}) { id messages(where: {text: {eq: $t}}) { id text } } book(order_by: {id: asc}) { id author { all: messages { id } } } }',
      variables: { t: 'hi' },
    });
    expect(r.body).toEqual({ data: {
      author: [{ id: 1, messages: [{ id: 1, text: 'hi' }] }, { id: 2, messages: [{ id: 3, text: 'hi' }] }],
      book: [{ id: 1, author: { all: [{ id: 1 }, { id: 2 }] } }, { id: 2, author: { all: [{ id: 3 }] } }],
    } });
    expect(remote.calls()).toHaveLength(1);
  });

  it('a field path below the root (level → profile), a mutation\'s returning rows, and __typename', async () => {
    await e.ok(legacy('deep', { level: { arguments: { id: '$profile_id' }, field: { profile: { arguments: {} } } } }));
    const q = await gql(e, { query: '{ author_by_pk(id: 2) { deep { __typename name } } }' });
    expect(q.body).toEqual({ data: { author_by_pk: { deep: { __typename: 'Profile', name: 'profile 20' } } } });
    const m = await gql(e, { query: 'mutation { insert_author(objects: [{name: "new", profile_id: 5}]) { returning { name deep { name } } } }' });
    expect(m.body).toEqual({ data: { insert_author: { returning: [{ name: 'new', deep: { name: 'profile 50' } }] } } });
    expect(remote.calls()).toHaveLength(2);
  });

  it('the remote\'s error comes back with its message, at the relationship\'s field; a remote answering no JSON is a remote-schema-error at the field', async () => {
    await e.ok(legacy('broken', { fails: { arguments: { id: '$id' } } }, ['id']));
    const r = await gql(e, { query: '{ author(where: {id: {_eq: 1}}) { id broken } }' });
    expect(r.body.errors).toEqual([expect.objectContaining({ message: 'no profile 1', path: ['author', 'broken'] })]);
    expect(r.body.data).toBeUndefined();
    await e.ok(profileRel);
    remote.mode = 'bad-json';
    const bad = await gql(e, { query: '{ author(where: {id: {_eq: 1}}) { profile { name } } }' });
    expect(bad.body).toEqual({ errors: [{ message: 'remote schema "profiles" did not answer valid JSON (status 200)', extensions: { path: '$.selectionSet.author.selectionSet.profile', code: 'remote-schema-error', internal: { status: 200, body: '<html>not json</html>' } } }] });
  });

  it('a role sees the relationship only when it may select every join column', async () => {
    await e.ok(profileRel);
    await e.ok({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'profile_id'], filter: { id: { _eq: 'X-Hasura-User-Id' } } } } });
    await e.ok({ type: 'create_select_permission', args: { table: 'author', role: 'blind', permission: { columns: ['id'], filter: {} } } });
    expect((await gql(e, { query: '{ author { id profile { name } } }' }, as('user', 3))).body).toEqual({ data: { author: [{ id: 3, profile: { name: 'profile 3' } }] } });
    const blind = await gql(e, { query: '{ author { id profile { name } } }' }, as('blind'));
    expect(blind.body.errors[0].extensions.code).toBe('validation-failed');
    expect(blind.body.errors[0].message).toContain('profile');
  });

  it('update and delete; the table\'s remote_relationships export as given and load back by replace_metadata', async () => {
    await e.ok(profileRel);
    await e.ok({ type: 'update_remote_relationship', args: { name: 'profile', table: 'author', hasura_fields: ['id'], remote_schema: 'profiles', remote_field: { profile: { arguments: { id: '$id' } } } } });
    expect((await gql(e, { query: '{ author_by_pk(id: 100) { profile { id } } }' })).body).toEqual({ data: { author_by_pk: { profile: { id: 100 } } } });
    const exported = await e.ok({ type: 'export_metadata', args: {} });
    expect(exported.tables[0].remote_relationships).toEqual([
      { name: 'profile', definition: { remote_schema: 'profiles', hasura_fields: ['id'], remote_field: { profile: { arguments: { id: '$id' } } } } },
    ]);
    await e.ok({ type: 'delete_remote_relationship', args: { table: 'author', name: 'profile' } });
    expect((await e.ok({ type: 'export_metadata', args: {} })).tables[0].remote_relationships).toBeUndefined();
    await e.ok({ type: 'replace_metadata', args: { metadata: exported } });
    expect((await e.ok({ type: 'export_metadata', args: {} }))).toEqual(exported);
    expect((await gql(e, { query: '{ author_by_pk(id: 4) { profile { id } } }' })).body).toEqual({ data: { author_by_pk: { profile: { id: 4 } } } });
  });
});

describe('errors of the remote relationship operations change nothing', () => {
  it('an unknown remote schema, remote field or argument is the relationship\'s inconsistency', async () => {
    await fails(e, { ...legacy('r', {}), args: { ...legacy('r', {}).args, remote_schema: 'nope', remote_field: { profile: { arguments: { id: '$profile_id' } } } } }, 400, expect.objectContaining({
      path: '$.args', error: 'in table "author": in remote relationship "r": remote schema "nope" does not exist or is inconsistent', code: 'constraint-violation',
    }));
    await fails(e, legacy('r', { nothing: { arguments: {} } }), 400, expect.objectContaining({
      path: '$.args', error: 'in table "author": in remote relationship "r": field "nothing" does not exist in type "Query" of the remote schema', code: 'constraint-violation',
    }));
    await fails(e, legacy('r', { profile: { arguments: { other: '$profile_id' } } }), 400, expect.objectContaining({
      path: '$.args', error: 'in table "author": in remote relationship "r": argument "other" does not exist in field "Query.profile" of the remote schema', code: 'constraint-violation',
    }));
    await fails(e, legacy('r', { profile: { arguments: { id: '$profile_id' } } }, ['nope']), 400, {
      path: '$.args.remote_field', error: 'the argument variable "$profile_id" is not one of the hasura_fields (nope)', code: 'parse-failed',
    });
  });

  it('the remote schema cannot be removed while a relationship uses it', async () => {
    await e.ok(profileRel);
    await fails(e, { type: 'remove_remote_schema', args: { name: 'profiles' } }, 400, {
      path: '$.args', error: 'cannot drop due to the following dependent objects : remote relationship author.profile', code: 'dependency-error',
    });
    await e.ok({ type: 'delete_remote_relationship', args: { table: 'author', name: 'profile' } });
    await e.ok({ type: 'remove_remote_schema', args: { name: 'profiles' } });
  });

  it('a name taken by a column, a missing relationship, and to_source are refused', async () => {
    await fails(e, legacy('name', { profile: { arguments: { id: '$profile_id' } } }), 400, {
      path: '$.args.name', error: '"name" conflicts with an existing column of table "author"', code: 'already-exists',
    });
    await fails(e, { type: 'delete_remote_relationship', args: { table: 'author', name: 'nope' } }, 400, {
      path: '$.args.name', error: 'remote relationship "nope" does not exist on table "author"', code: 'not-exists',
    });
    await fails(e, { ...legacy('nope', { profile: { arguments: { id: '$profile_id' } } }), type: 'update_remote_relationship' }, 400, {
      path: '$.args.name', error: 'remote relationship "nope" does not exist on table "author"', code: 'not-exists',
    });
    await e.ok(profileRel);
    await fails(e, profileRel, 400, { path: '$.args.name', error: '"profile" conflicts with an existing remote relationship of table "author"', code: 'already-exists' });
    await fails(e, { type: 'pg_create_remote_relationship', args: { source: 'default', table: 'author', name: 'x', definition: { to_source: { source: 'other', table: 'b' } } } }, 400, {
      path: '$.args.definition.to_source', error: 'remote relationships to a table of another source are not supported: engine has one database', code: 'not-supported',
    });
  });
});

const toSource = (name: string, typeName: string, source: Record<string, unknown>) => ({
  type: 'create_remote_schema_remote_relationship',
  args: { remote_schema: 'profiles', type_name: typeName, name, definition: { to_source: { source: 'default', ...source } } },
});
const authorsRel = toSource('authors', 'Profile', { table: 'author', relationship_type: 'array', field_mapping: { id: 'profile_id' } });

describe('a remote schema type → table relationship (to_source)', () => {
  it('answers the rows joined on the remote object\'s fields; the remote is asked for those fields instead', async () => {
    await e.ok(authorsRel);
    const r = await gql(e, { query: '{ profile(id: 3) { name authors { id name } } }' });
    expect(r.body).toEqual({ data: { profile: { name: 'profile 3', authors: [{ id: 3, name: 'author 3' }] } } });
    const sent = String(remote.calls()[0]!.body.query);
    expect(sent).toContain('_engine_jk_id: id');
    expect(sent).not.toContain('authors');
  });

  it('nests under a table → remote relationship (two levels: one remote call, one statement), under the role\'s permission', async () => {
    await e.ok(authorsRel);
    await e.ok(toSource('first', 'Profile', { table: 'author', relationship_type: 'object', field_mapping: { id: 'id' } }));
    await e.ok(profileRel);
    const n = await gql(e, { query: '{ author(where: {id: {_lte: 2}}, order_by: {id: asc}) { id profile { name authors { id } first { name } } } }' });
    expect(n.body).toEqual({ data: { author: [
      { id: 1, profile: { name: 'profile 1', authors: [{ id: 1 }], first: { name: 'author 1' } } },
      { id: 2, profile: { name: 'profile 2', authors: [{ id: 2 }], first: { name: 'author 2' } } },
    ] } });
    expect(remote.calls()).toHaveLength(1);
    await e.ok({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id'], filter: { id: { _eq: 'X-Hasura-User-Id' } } } } });
    expect((await gql(e, { query: '{ a: profile(id: 3) { authors { id } } b: profile(id: 4) { authors { id } } }' }, as('user', 4))).body)
      .toEqual({ data: { a: { authors: [] }, b: { authors: [{ id: 4 }] } } });
  });

  it('exports in the remote schema\'s remote_relationships by type, and is deleted', async () => {
    await e.ok(authorsRel);
    const exported = await e.ok({ type: 'export_metadata', args: {} });
    expect(exported.remote_schemas[0].remote_relationships).toEqual([{ type_name: 'Profile', relationships: [
      { name: 'authors', definition: { to_source: { source: 'default', table: 'author', relationship_type: 'array', field_mapping: { id: 'profile_id' } } } },
    ] }]);
    await e.ok({ type: 'delete_remote_schema_remote_relationship', args: { remote_schema: 'profiles', type_name: 'Profile', name: 'authors' } });
    expect((await e.ok({ type: 'export_metadata', args: {} })).remote_schemas[0].remote_relationships).toBeUndefined();
    await e.ok({ type: 'replace_metadata', args: { metadata: exported } });
    expect((await gql(e, { query: '{ profile(id: 5) { authors { id } } }' })).body).toEqual({ data: { profile: { authors: [{ id: 5 }] } } });
  });

  it('errors change nothing: an unknown type or column, a taken name, to_remote_schema, a missing relationship', async () => {
    await fails(e, toSource('x', 'Nope', { table: 'author', relationship_type: 'array', field_mapping: { id: 'profile_id' } }), 400, expect.objectContaining({
      code: 'constraint-violation', path: '$.args', error: 'in remote schema "profiles": in remote relationship "Nope.x": object type "Nope" does not exist in the remote schema',
    }));
    await fails(e, toSource('x', 'Profile', { table: 'author', relationship_type: 'array', field_mapping: { id: 'nope' } }), 400, expect.objectContaining({
      code: 'constraint-violation', path: '$.args', error: 'in remote schema "profiles": in remote relationship "Profile.x": column "nope" does not exist in table "author"',
    }));
    await fails(e, toSource('name', 'Profile', { table: 'author', relationship_type: 'array', field_mapping: { id: 'profile_id' } }), 400, expect.objectContaining({
      code: 'constraint-violation', path: '$.args', error: 'in remote schema "profiles": in remote relationship "Profile.name": "name" conflicts with a field of type "Profile" of the remote schema',
    }));
    await fails(e, { type: 'create_remote_schema_remote_relationship', args: { remote_schema: 'profiles', type_name: 'Profile', name: 'x', definition: { to_remote_schema: {} } } }, 400, {
      code: 'not-supported', path: '$.args.definition.to_remote_schema', error: 'remote schema → remote schema relationships are not supported',
    });
    await fails(e, { type: 'delete_remote_schema_remote_relationship', args: { remote_schema: 'profiles', type_name: 'Profile', name: 'x' } }, 400, {
      code: 'not-exists', path: '$.args.name', error: 'remote relationship "x" does not exist on type "Profile" of remote schema "profiles"',
    });
  });
});
