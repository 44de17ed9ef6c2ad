import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { post, useTestEngine, type TestEngine } from '../helpers/engine.js';
import { startProcessor, useProcessors } from '../helpers/events.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';

// Issue 29.1 and 29.2: `X-Hasura-*` and `X-Engine-*` name the same session variable wherever the engine reads one
// (permission filters, checks, presets, request headers), and what the engine sends (action handler bodies, event
// payloads, SQL session arguments) uses the prefix of ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX. Permissions here are
// written as projects written for the incumbent write them.

const SECRET = 'admin-s3cret';
const SQL = `CREATE TABLE profile (id serial PRIMARY KEY, owner_id integer NOT NULL, email text NOT NULL);
INSERT INTO profile (owner_id, email) VALUES (1, 'one@example.com'), (2, 'two@example.com'), (1, 'uno@example.com');
CREATE FUNCTION profile_viewer(p profile, hasura_session json) RETURNS text STABLE LANGUAGE sql AS $$ SELECT hasura_session->>'x-hasura-user-id' $$;`;

const METADATA = {
  type: 'bulk', args: [
    { type: 'track_table', args: 'profile' },
    { type: 'add_computed_field', args: { table: 'profile', name: 'viewer', definition: { function: 'profile_viewer', session_argument: 'hasura_session' } } },
    { type: 'create_select_permission', args: { table: 'profile', role: 'user', permission: {
      columns: ['id', 'owner_id', 'email'], computed_fields: ['viewer'], filter: { owner_id: { _eq: 'X-Hasura-User-Id' } } } } },
    { type: 'create_insert_permission', args: { table: 'profile', role: 'user', permission: {
      columns: ['email'], set: { owner_id: 'x-hasura-user-id' }, check: { email: { _eq: 'X-HASURA-USER-EMAIL' } } } } },
  ],
};

async function setup(e: TestEngine): Promise<void> {
  await e.sql(SQL);
  await e.ok(METADATA);
}

const gql = (e: TestEngine, query: string, headers: Record<string, string>) => post(`${e.url}/v1/graphql`, { query }, headers);
const OWNERS = '{ profile(order_by: {id: asc}) { id owner_id } }';
const profiles = async (e: TestEngine) => (await e.db.query<{ id: number; owner_id: number; email: string }>('SELECT id, owner_id, email FROM profile ORDER BY id'));

describe('the incumbent prefix in permissions and request headers (default outbound prefix)', () => {
  const e = useTestEngine({ adminSecret: SECRET, setup });

  it('the permissions apply as written and keep their names in export_metadata', async () => {
    const exported = (await e.ok({ type: 'export_metadata', args: {} })) as { tables: { select_permissions: { permission: { filter: unknown } }[]; insert_permissions: { permission: unknown }[] }[] };
    expect(exported.tables[0]?.select_permissions[0]?.permission.filter).toEqual({ owner_id: { _eq: 'X-Hasura-User-Id' } });
    expect(exported.tables[0]?.insert_permissions[0]?.permission).toMatchObject({ set: { owner_id: 'x-hasura-user-id' }, check: { email: { _eq: 'X-HASURA-USER-EMAIL' } } });
  });

  it('an integer X-Hasura-User-Id filters rows, under either header prefix and any case', async () => {
    const want = { data: { profile: [{ id: 1, owner_id: 1 }, { id: 3, owner_id: 1 }] } };
    expect((await gql(e, OWNERS, { 'X-Hasura-Admin-Secret': SECRET, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '1' })).body).toEqual(want);
    expect((await gql(e, OWNERS, { 'x-engine-admin-secret': SECRET, 'X-ENGINE-ROLE': 'user', 'x-engine-user-id': '1' })).body).toEqual(want);
    // Mixed prefixes for different variables, and the same value under both: one session.
    expect((await gql(e, OWNERS, { 'X-Hasura-Admin-Secret': SECRET, 'X-Engine-Role': 'user', 'X-Hasura-User-Id': '2', 'X-Engine-User-Id': '2' })).body)
      .toEqual({ data: { profile: [{ id: 2, owner_id: 2 }] } });
    // A missing variable is named as the permission writes it.
    expect((await gql(e, OWNERS, { 'X-Hasura-Admin-Secret': SECRET, 'X-Hasura-Role': 'user' })).text)
      .toBe('{"errors":[{"message":"missing session variable: \\"x-hasura-user-id\\"","extensions":{"path":"$","code":"not-found"}}]}');
    const wrong = await gql(e, OWNERS, { 'X-Hasura-Admin-Secret': 'nope', 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '1' });
    expect(wrong.text).toBe('{"errors":[{"message":"invalid x-engine-admin-secret","extensions":{"path":"$","code":"access-denied"}}]}');
  });

  it('the check compares the text column to the session value; the preset takes the session value', async () => {
    const headers = { 'X-Hasura-Admin-Secret': SECRET, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '2', 'X-Hasura-User-Email': 'deux@example.com' };
    const ok = await gql(e, 'mutation { insert_profile_one(object: {email: "deux@example.com"}) { owner_id email } }', headers);
    expect(ok.body).toEqual({ data: { insert_profile_one: { owner_id: 2, email: 'deux@example.com' } } });
    const before = await e.state();
    // The incumbent's name as a literal no longer passes the check (it did when it was compared as a string).
    const literal = await gql(e, 'mutation { insert_profile_one(object: {email: "x-hasura-user-email"}) { id } }', headers);
    expect(literal.body).toEqual({ errors: [{ message: 'check constraint of an insert permission has failed', extensions: { path: '$.selectionSet.insert_profile_one.args.object', code: 'permission-error' } }] });
    expect(await e.state()).toEqual(before);
    expect((await profiles(e)).map((p) => p.email)).toEqual(['one@example.com', 'two@example.com', 'uno@example.com', 'deux@example.com']);
  });

  it('one variable under both prefixes with different values is refused, and nothing changes', async () => {
    const before = await e.state();
    const rows = await profiles(e);
    const both = { 'X-Hasura-Admin-Secret': SECRET, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '1', 'X-Engine-User-Id': '2', 'X-Hasura-User-Email': 'a@b.c' };
    const message = 'session variable \\"user-id\\" is given twice with different values (\\"x-engine-user-id\\" and \\"x-hasura-user-id\\"): send it under one prefix, x-engine- or x-hasura-';
    // /v1/graphql answers every authentication failure as a GraphQL error (issue 27.8).
    const r = await gql(e, 'mutation { insert_profile_one(object: {email: "a@b.c"}) { id } }', both);
    expect([r.status, r.text]).toEqual([200, `{"errors":[{"message":"${message}","extensions":{"path":"$","code":"access-denied"}}]}`]);
    const q = await post(`${e.url}/v1/query`, { type: 'run_sql', args: { sql: "INSERT INTO profile (owner_id, email) VALUES (9, 'x')" } }, both);
    expect([q.status, q.text]).toEqual([400, `{"path":"$","error":"${message}","code":"access-denied"}`]);
    const role = await post(`${e.url}/v1/query`, { type: 'export_metadata', args: {} }, { 'X-Engine-Admin-Secret': SECRET, 'X-Engine-Role': 'admin', 'X-Hasura-Role': 'user' });
    expect([role.status, role.body]).toEqual([400, { path: '$', error: 'session variable "role" is given twice with different values ("x-engine-role" and "x-hasura-role"): send it under one prefix, x-engine- or x-hasura-', code: 'access-denied' }]);
    const secret = await post(`${e.url}/v1/query`, { type: 'run_sql', args: { sql: "INSERT INTO profile (owner_id, email) VALUES (9, 'x')" } }, { 'X-Engine-Admin-Secret': SECRET, 'X-Hasura-Admin-Secret': 'other' });
    expect([secret.status, secret.body.code, secret.body.error]).toEqual([400, 'access-denied', expect.stringContaining('"admin-secret" is given twice')]);
    expect(await e.state()).toEqual(before);
    expect(await profiles(e)).toEqual(rows);
  });

  it('X-Hasura-Use-Backend-Only-Permissions opens a backend_only insert permission to the secret holder', async () => {
    await e.ok({ type: 'create_insert_permission', args: { table: 'profile', role: 'svc', permission: { columns: ['owner_id', 'email'], check: {}, backend_only: true } } });
    const svc = { 'X-Hasura-Admin-Secret': SECRET, 'X-Hasura-Role': 'svc' };
    const insert = 'mutation { insert_profile(objects: [{owner_id: 5, email: "s@example.com"}]) { affected_rows } }';
    expect((await gql(e, insert, svc)).body).toEqual({ errors: [{ message: 'no mutations exist', extensions: { path: '$', code: 'validation-failed' } }] });
    expect((await gql(e, insert, { ...svc, 'X-Hasura-Use-Backend-Only-Permissions': 'true' })).body).toEqual({ data: { insert_profile: { affected_rows: 1 } } });
  });

  it('a session argument carries x-engine- names by default', async () => {
    const r = await gql(e, '{ profile(order_by: {id: asc}, limit: 1) { viewer } }', { 'X-Hasura-Admin-Secret': SECRET, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '1' });
    // The function reads the incumbent's key, which the default prefix does not send.
    expect(r.body).toEqual({ data: { profile: [{ viewer: null }] } });
  });
});

describe('ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX=x-hasura-: what the engine sends', () => {
  let hook: Webhook;
  const e = useTestEngine({ adminSecret: SECRET, auth: { sessionVariablePrefix: 'x-hasura-' }, setup: async (te) => {
    await setup(te);
    await te.ok({ type: 'bulk', args: [
      { type: 'set_custom_types', args: { objects: [{ name: 'Who', fields: [{ name: 'ok', type: 'Boolean!' }] }] } },
      { type: 'create_action', args: { name: 'whoami', definition: { handler: `${hook.url}/whoami`, output_type: 'Who', arguments: [], forward_client_headers: true } } },
      { type: 'create_action_permission', args: { action: 'whoami', role: 'user' } },
      { type: 'create_event_trigger', args: { name: 'profile_events', table: 'profile', webhook: `${hook.url}/event`, insert: { columns: '*' } } },
    ] });
  } });
  useProcessors();
  beforeAll(async () => {
    hook = await startWebhook((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  afterAll(async () => hook.close());
  beforeEach(() => void (hook.received.length = 0));

  const USER = { 'X-Engine-Admin-Secret': SECRET, 'X-Engine-Role': 'user', 'X-Engine-User-Id': '1', 'X-Engine-User-Email': 'new@example.com' };

  it('the action handler receives x-hasura- session variables; the admin secret is not forwarded under either prefix', async () => {
    const r = await gql(e, 'mutation { whoami { ok } }', { ...USER, 'X-Hasura-Admin-Secret': SECRET });
    expect(r.body).toEqual({ data: { whoami: { ok: true } } });
    expect(hook.received).toHaveLength(1);
    const got = hook.received[0];
    expect(got?.body.session_variables).toEqual({ 'x-hasura-role': 'user', 'x-hasura-user-email': 'new@example.com', 'x-hasura-user-id': '1' });
    expect([got?.headers['x-engine-admin-secret'], got?.headers['x-hasura-admin-secret'], got?.headers['x-engine-user-id']]).toEqual([undefined, undefined, '1']);
  });

  it("the event payload's session_variables and a function's session argument use x-hasura-", async () => {
    await startProcessor(e);
    const r = await gql(e, 'mutation { insert_profile_one(object: {email: "new@example.com"}) { owner_id viewer } }', USER);
    expect(r.body).toEqual({ data: { insert_profile_one: { owner_id: 1, viewer: '1' } } });
    const event = await eventually(() => hook.received.find((x) => x.body?.trigger?.name === 'profile_events'), 10_000, 'event delivered');
    expect(event.body.event.session_variables).toEqual({ 'x-hasura-role': 'user', 'x-hasura-user-email': 'new@example.com', 'x-hasura-user-id': '1' });
  });
});

describe("the incumbent's v1 admin-secret header, X-Hasura-Access-Key", () => {
  let hook: Webhook;
  const e = useTestEngine({ adminSecret: SECRET, setup: async (te) => {
    await setup(te);
    await te.ok({ type: 'bulk', args: [
      { type: 'set_custom_types', args: { objects: [{ name: 'Who', fields: [{ name: 'ok', type: 'Boolean!' }] }] } },
      { type: 'create_action', args: { name: 'whoami', definition: { handler: `${hook.url}/whoami`, output_type: 'Who', arguments: [], forward_client_headers: true } } },
      { type: 'create_action_permission', args: { action: 'whoami', role: 'user' } },
    ] });
  } });
  beforeAll(async () => {
    hook = await startWebhook((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  afterAll(async () => hook.close());

  it('is the admin secret: it admits, a wrong one is refused, and it conflicts with a different admin secret', async () => {
    expect((await gql(e, OWNERS, { 'X-Hasura-Access-Key': SECRET })).body).toEqual({ data: { profile: [{ id: 1, owner_id: 1 }, { id: 2, owner_id: 2 }, { id: 3, owner_id: 1 }] } });
    expect((await gql(e, OWNERS, { 'X-Hasura-Access-Key': 'nope' })).text)
      .toBe('{"errors":[{"message":"invalid x-engine-admin-secret","extensions":{"path":"$","code":"access-denied"}}]}');
    const both = await post(`${e.url}/v1/query`, { type: 'run_sql', args: { sql: 'DELETE FROM profile' } }, { 'X-Hasura-Access-Key': SECRET, 'X-Engine-Admin-Secret': 'other' });
    expect([both.status, both.body]).toEqual([400, { path: '$', code: 'access-denied',
      error: 'the admin secret is given twice with different values (x-engine-admin-secret or x-hasura-admin-secret, and x-hasura-access-key): send it once' }]);
    expect(await profiles(e)).toHaveLength(3);
  });

  it('is never a session variable nor forwarded to an action handler', async () => {
    const r = await gql(e, 'mutation { whoami { ok } }', { 'X-Hasura-Access-Key': SECRET, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '1' });
    expect(r.body).toEqual({ data: { whoami: { ok: true } } });
    const got = hook.received.at(-1);
    expect(got?.body.session_variables).toEqual({ 'x-engine-role': 'user', 'x-engine-user-id': '1' });
    expect(got?.headers['x-hasura-access-key']).toBeUndefined();
    expect(got?.text).not.toContain(SECRET);
  });
});
