/**
 * End-to-end, issue 29's acceptance: projects written for the incumbent, unedited (our own fixtures in its conventions:
 * config v3 with `migrations/default/` and `seeds/default/`, config v2 with one tables.yaml; `X-Hasura-*` in every
 * permission; uuid and text user ids; `public.gen_random_uuid()` defaults; composite foreign-key relationships in the
 * incumbent's forms; an enum table and custom root fields) go through migrate → apply → diff 0 → export byte-identical,
 * then answer GraphQL as each role to the incumbent's tokens and headers, and an action handler and an event webhook
 * receive `x-hasura-*` session variables when the engine is so set. The environment uses only the incumbent's names.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { bearer, HS_KEY, HS_SECRET, sign } from '../helpers/jwt.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';
import { cli, show, snapshot, tempDir } from './cli-helpers.js';
import { externalDatabase, serve, stopAll } from './process-helpers.js';

const ADMIN = 'incumbent-admin-secret';
const ADA = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';
const HASURA_NS = 'https://hasura.io/jwt/claims';
const hooks: Webhook[] = [];

afterEach(async () => {
  await stopAll();
  for (const h of hooks.splice(0)) await h.close();
});

async function project(fixture: string, env: Record<string, string> = {}) {
  const dir = join(await tempDir('engine-dropin-'), 'project');
  cpSync(new URL(`../fixtures/projects/${fixture}`, import.meta.url).pathname, dir, { recursive: true });
  const db = EXTERNAL_URL ? ['--database-url', await externalDatabase('engine_dropin')] : ['--data-dir', join(dir, '..', 'data')];
  const { url } = await serve(dir, db, {
    HASURA_GRAPHQL_ADMIN_SECRET: ADMIN,
    HASURA_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: HS_SECRET }),
    ...env,
  });
  const run = (...args: string[]) => cli(args, { cwd: dir, env: { HASURA_GRAPHQL_ENDPOINT: url, HASURA_GRAPHQL_ADMIN_SECRET: ADMIN } });
  for (const step of [['migrate', 'apply'], ['metadata', 'apply'], ['seed', 'apply']]) {
    const r = await run(...step);
    expect(r.code, `${step.join(' ')}: ${show(r)}`).toBe(0);
  }
  const diff = await run('metadata', 'diff', '--exit-code');
  expect(diff.code, show(diff)).toBe(0);
  const before = snapshot(join(dir, 'metadata'));
  const exported = await run('metadata', 'export');
  expect(exported.code, show(exported)).toBe(0);
  expect(snapshot(join(dir, 'metadata'))).toEqual(before);
  const gql = async (query: string, headers: Record<string, string>, variables?: Record<string, unknown>) => (await post(`${url}/v1/graphql`, { query, ...(variables ? { variables } : {}) }, headers)).body;
  return { url, gql };
}

const token = (userId: string) => sign({ [HASURA_NS]: { 'x-hasura-allowed-roles': ['user'], 'x-hasura-default-role': 'user', 'x-hasura-user-id': userId } }, HS_KEY);

describe('an incumbent project, unedited (issue 29 acceptance)', () => {
  it('config v3: migrations and seeds per database, composite keys, X-Hasura-* permissions, incumbent tokens, x-hasura-* outbound', async () => {
    const events = await startWebhook((_, res) => void res.end('{}'));
    const handler = await startWebhook((req, res) => {
      const s = (req.body as { session_variables: Record<string, string> }).session_variables;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, sharedBy: s['x-hasura-user-id'] ?? null }));
    });
    hooks.push(events, handler);
    const { gql } = await project('incumbent-v3', {
      NOTES_WEBHOOK_URL: events.url, ACTION_BASE_URL: handler.url, HASURA_GRAPHQL_SESSION_VARIABLE_PREFIX: 'x-hasura-',
    });
    const ada = bearer(await token(ADA));

    // Row filters on a uuid column compared with X-Hasura-User-Id from the incumbent's claims namespace.
    expect(await gql('{ notes { body owner { email } } users { display_name } }', ada)).toEqual({
      data: { notes: [{ body: "Ada's note", owner: { email: 'ada@example.com' } }], users: [{ display_name: 'Ada' }] },
    });
    // Composite foreign keys both ways: teams.memberships ({table, columns}) and memberships.team ([org_id, team_no]).
    expect(await gql('{ teams { name memberships { role } } memberships { team { name } } }', ada)).toEqual({
      data: { teams: [{ name: 'Core', memberships: [{ role: 'lead' }] }], memberships: [{ team: { name: 'Core' } }] },
    });
    // The incumbent's headers: admin secret plus role and user id under X-Hasura-*.
    const bobHeaders = { 'X-Hasura-Admin-Secret': ADMIN, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': BOB };
    expect(await gql('{ notes { body } }', bobHeaders)).toEqual({ data: { notes: [{ body: "Bob's note" }] } });

    // An insert through the preset; the event webhook gets x-hasura-* session variables.
    const inserted = await gql('mutation { insert_notes_one(object: {body: "new"}) { owner_id body } }', ada);
    expect(inserted).toEqual({ data: { insert_notes_one: { owner_id: ADA, body: 'new' } } });
    type Delivery = { event: { session_variables: Record<string, string>; data: { new: { body: string } } }; trigger: { name: string } };
    // The seeds' inserts were delivered too (as admin): the one of this insert is found by its row.
    const delivered = await eventually(() => events.received.find((r) => (r.body as Delivery).event.data.new.body === 'new'), 30_000, 'the event delivery');
    const ev = delivered.body as Delivery;
    expect(ev.trigger.name).toBe('note_created');
    expect(ev.event.session_variables).toEqual({ 'x-hasura-role': 'user', 'x-hasura-user-id': ADA });

    // The action handler (forward_client_headers) reads x-hasura-user-id from the session variables it is sent.
    const shared = await gql('mutation ($id: uuid!) { shareNote(noteId: $id, email: "bob@example.com") { ok sharedBy } }', ada, { id: ADA });
    expect(shared).toEqual({ data: { shareNote: { ok: true, sharedBy: ADA } } });
    expect((handler.received[0]?.body as { session_variables: Record<string, string> }).session_variables).toEqual({ 'x-hasura-role': 'user', 'x-hasura-user-id': ADA });
  });

  it('config v2: text user ids, an enum table, custom root fields, X-HASURA-USER-ID in any case', async () => {
    const { gql } = await project('incumbent-v2');
    const admin = { 'X-Hasura-Admin-Secret': ADMIN };
    expect((await gql('mutation { insert_profiles(objects: [{user_id: "auth0|ada", name: "Ada"}, {user_id: "auth0|bob", name: "Bob"}]) { affected_rows } }', admin))).toEqual({
      data: { insert_profiles: { affected_rows: 2 } },
    });
    const ada = bearer(await token('auth0|ada'));
    const added = await gql('mutation { add_todo_item(object: {title: "Write docs", status: open}) { title status assignee { name } } }', ada);
    expect(added).toEqual({ data: { add_todo_item: { title: 'Write docs', status: 'open', assignee: { name: 'Ada' } } } });
    const bob = bearer(await token('auth0|bob'));
    expect(await gql('{ todo_items { title } }', bob)).toEqual({ data: { todo_items: [] } });
    expect(await gql('mutation { update_tasks(where: {}, _set: {status: done}) { affected_rows } }', ada)).toEqual({ data: { update_tasks: { affected_rows: 1 } } });
    expect(await gql('{ todo_items { title status } profiles { name tasks { title } } }', ada)).toEqual({
      data: { todo_items: [{ title: 'Write docs', status: 'done' }], profiles: [{ name: 'Ada', tasks: [{ title: 'Write docs' }] }] },
    });
  });
});
