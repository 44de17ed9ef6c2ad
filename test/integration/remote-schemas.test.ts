import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { post, startOn, useTestEngine } from '../helpers/engine.js';
import { fails, runSql } from '../helpers/assertions.js';
import { freePort, startRemote, type RemoteServer } from '../helpers/remote-schema.js';
import { as, gql } from './graphql-fixture.js';

// Remote schemas (issue 35): a real graphql-js server on 127.0.0.1; the metadata operations, the merged schema per
// role, forwarding (variables, session headers, customization), errors and the remote down → inconsistent → reload.

const e = useTestEngine();
let remote: RemoteServer;

beforeAll(async () => {
  remote = await startRemote();
});
afterAll(async () => remote.close());
beforeEach(async () => {
  await e.reset();
  remote.received.length = 0;
  remote.mode = 'graphql';
});

const add = (name: string, definition: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ type: 'add_remote_schema', args: { name, definition, ...extra } });

describe('add_remote_schema and the merged schema', () => {
  it('introspects the remote, merges its root fields and forwards the operation with its variables', async () => {
    await e.ok(add('simple', { url: `${remote.url}/graphql` }));
    const r = await gql(e, { query: 'query Q($id: Int!) { hello(arg: "me") u: user(id: $id) { id name friend { name } } }', variables: { id: 4 } });
    expect(r.body).toEqual({ data: { hello: 'Hello me', u: { id: 4, name: 'user 4', friend: { name: 'user 5' } } } });
    const calls = remote.calls();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body.variables).toEqual({ id: 4 });
    const exported = await e.ok({ type: 'export_metadata', args: {} });
    expect(exported.remote_schemas).toEqual([{ name: 'simple', definition: { url: `${remote.url}/graphql` } }]);
  });

  it('sends the session variables as headers and the client headers only with forward_client_headers', async () => {
    await e.ok(add('simple', { url: `${remote.url}/graphql`, headers: [{ name: 'x-api-key', value: 'k1' }] }));
    const r = await gql(e, { query: '{ whoami }' }, { ...as('user', 7), 'x-client': 'c' });
    expect(r.body).toEqual({ data: { whoami: '7' } });
    const got = remote.calls()[0]!;
    expect(got.headers['x-api-key']).toBe('k1');
    expect(got.headers['x-engine-role']).toBe('user');
    expect(got.headers['x-client']).toBeUndefined();
    await e.ok({ type: 'update_remote_schema', args: { name: 'simple', definition: { url: `${remote.url}/graphql`, forward_client_headers: true } } });
    await gql(e, { query: '{ whoami }' }, { ...as('user', 7), 'x-client': 'c' });
    expect(remote.calls()[1]!.headers['x-client']).toBe('c');
  });

  it('{{ENV}} templates in the URL are resolved', async () => {
    process.env['REMOTE_TEST_DOMAIN'] = remote.url;
    try {
      await e.ok(add('templated', { url: '{{REMOTE_TEST_DOMAIN}}/graphql' }));
      expect((await gql(e, { query: '{ hello }' })).body).toEqual({ data: { hello: 'Hello world' } });
    } finally {
      delete process.env['REMOTE_TEST_DOMAIN'];
    }
  });

  it('customization: root-field namespace, type prefix and field renames, mapped back when forwarded', async () => {
    await e.ok(add('custom', {
      url: `${remote.url}/graphql`,
      customization: { root_fields_namespace: 'rs', type_names: { prefix: 'R_' }, field_names: [{ parent_type: 'User', mapping: { name: 'fullName' } }] },
    }));
    const r = await gql(e, { query: '{ rs { __typename user(id: 2) { __typename fullName } search(term: "x") { __typename ... on R_Post { title } } } }' });
    expect(r.body).toEqual({ data: { rs: {
      __typename: 'rs_query', user: { __typename: 'R_User', fullName: 'user 2' },
      search: [{ __typename: 'R_User' }, { __typename: 'R_Post', title: 'a post' }],
    } } });
    expect(remote.calls()[0]!.body.query).toContain('fullName: name');
  });

  it('permissions: a role without one does not see the remote; a role with one sees only its root fields', async () => {
    await e.ok(add('simple', { url: `${remote.url}/graphql` }));
    await e.ok({ type: 'add_remote_schema_permissions', args: { remote_schema: 'simple', role: 'user', definition: { schema: 'type Query { hello(arg: String): String }' } } });
    expect((await gql(e, { query: '{ hello }' }, as('user', 1))).body).toEqual({ data: { hello: 'Hello world' } });
    const denied = await gql(e, { query: '{ whoami }' }, as('user', 1));
    expect(denied.body.errors[0].extensions.code).toBe('validation-failed');
    const other = await gql(e, { query: '{ hello }' }, as('other', 1));
    expect(other.body.errors[0].extensions.code).toBe('validation-failed');
    expect(remote.calls()).toHaveLength(1);
  });
});

describe('errors', () => {
  it('the remote\'s error comes back with its message and path', async () => {
    await e.ok(add('simple', { url: `${remote.url}/graphql` }));
    const r = await gql(e, { query: '{ fail }' });
    expect(r.body.errors).toEqual([expect.objectContaining({ message: 'the remote failed on purpose', path: ['fail'] })]);
  });

  it('a remote that answers text that is not JSON, or not in time, is a remote-schema-error at the root field', async () => {
    await e.ok(add('simple', { url: `${remote.url}/graphql`, timeout_seconds: 1 }));
    remote.mode = 'bad-json';
    const bad = await gql(e, { query: '{ hello }' });
    expect(bad.body.errors[0]).toMatchObject({ message: 'remote schema "simple" did not answer valid JSON (status 200)', extensions: { code: 'remote-schema-error', path: '$.selectionSet.hello' } });
    remote.mode = 'hang';
    const slow = await gql(e, { query: '{ hello }' });
    expect(slow.body.errors[0]).toMatchObject({
      message: 'http exception when calling remote schema "simple": request timed out after 1 seconds', extensions: { code: 'remote-schema-error', path: '$.selectionSet.hello' },
    });
  });

  it('an unreachable remote is refused by add_remote_schema, and nothing changes', async () => {
    const port = await freePort();
    const before = await e.state();
    await fails(e, add('down', { url: `http://127.0.0.1:${port}/graphql` }), 400, {
      code: 'remote-schema-error', path: '$.args', error: 'http exception when calling remote schema "down": connection refused',
    });
    expect(await e.state()).toEqual(before);
  });

  it('a name taken, a missing one, and a collision with a table are errors that change nothing', async () => {
    await e.ok(add('simple', { url: `${remote.url}/graphql` }));
    const before = await e.state();
    await fails(e, add('simple', { url: `${remote.url}/graphql` }), 400, { code: 'already-exists', path: '$.args.name', error: 'remote schema with name "simple" already exists' });
    await fails(e, { type: 'remove_remote_schema', args: { name: 'nope' } }, 400, { code: 'not-exists', path: '$.args.name', error: 'remote schema with name "nope" does not exist' });
    expect(await e.state()).toEqual(before);
    await e.ok({ type: 'remove_remote_schema', args: { name: 'simple' } });
    await e.ok(runSql('CREATE TABLE "User" (id int primary key)'));
    await e.ok({ type: 'track_table', args: { schema: 'public', name: 'User' } });
    const r = await e.query(add('simple', { url: `${remote.url}/graphql` }));
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('in remote schema "simple": Found conflicting definitions for GraphQL type \'User\': type "User" conflicts with the database schema\'s type "User"');
  });
});

describe('metadata round trip', () => {
  it('replace_metadata then export gives the canonical document, byte for byte, and again after a second replace', async () => {
    const doc = { version: 2, tables: [], remote_schemas: [{
      name: 'custom',
      definition: { url: `${remote.url}/graphql`, timeout_seconds: 20, headers: [{ name: 'x-a', value: 'b' }], customization: { root_fields_namespace: 'rs', type_names: { prefix: 'R_' } } },
      comment: 'c',
      permissions: [{ role: 'user', definition: { schema: 'type Query { hello: String }' } }],
    }] };
    await e.ok({ type: 'replace_metadata', args: { metadata: doc } });
    const first = (await e.query({ type: 'export_metadata', args: {} })).text;
    expect(JSON.parse(first)).toEqual(doc);
    await e.ok({ type: 'replace_metadata', args: { metadata: JSON.parse(first) } });
    expect((await e.query({ type: 'export_metadata', args: {} })).text).toBe(first);
  });
});

describe('a remote down at start, then reloaded', () => {
  it('is an inconsistent object, not an engine down; reload_remote_schema recovers it', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/graphql`;
    const doc = { version: 2, tables: [], remote_schemas: [{ name: 'later', definition: { url } }] };
    await e.ok({ type: 'replace_metadata', args: { metadata: doc, allow_inconsistent_metadata: true } });
    const inc = await e.ok({ type: 'get_inconsistent_metadata', args: {} });
    expect(inc.is_consistent).toBe(false);
    expect(inc.inconsistent_objects[0]).toMatchObject({ type: 'remote_schema', reason: 'in remote schema "later": http exception when calling remote schema "later": connection refused' });
    expect((await gql(e, { query: '{ hello }' })).body.errors[0].extensions.code).toBe('validation-failed');
    const back = await startRemote(undefined, port);
    try {
      await e.ok({ type: 'reload_remote_schema', args: { name: 'later' } });
      expect((await e.ok({ type: 'get_inconsistent_metadata', args: {} })).is_consistent).toBe(true);
      expect((await gql(e, { query: '{ hello }' })).body).toEqual({ data: { hello: 'Hello world' } });
    } finally {
      await back.close();
    }
  });

  it('an engine starting while a remote is down starts, serves its tables and lists the remote as inconsistent', async () => {
    const port = await freePort();
    const doc = { version: 2, tables: [], remote_schemas: [{ name: 'gone', definition: { url: `http://127.0.0.1:${port}/graphql` } }] };
    await e.ok({ type: 'replace_metadata', args: { metadata: doc, allow_inconsistent_metadata: true } });
    const second = await startOn(e.db);
    try {
      const inc = await post(`${second.url}/v1/query`, { type: 'get_inconsistent_metadata', args: {} });
      expect(inc.status).toBe(200);
      expect(inc.body.inconsistent_objects.map((o: { type: string }) => o.type)).toEqual(['remote_schema']);
      expect((await post(`${second.url}/v1/graphql`, { query: '{ __typename }' })).body).toEqual({ data: { __typename: 'query_root' } });
    } finally {
      await new Promise((resolve) => second.server.close(resolve));
    }
  });
});
