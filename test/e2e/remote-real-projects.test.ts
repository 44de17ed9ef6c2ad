import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { startRemote, type RemoteServer, type Root } from '../helpers/remote-schema.js';
import { startWebhook, type Received } from '../helpers/webhook.js';
import { cli, show, tempDir, useTestEngine } from './cli-helpers.js';

// Issue 35: projects shaped like the real ones that use remote schemas (our own files, in their shapes). remote-v2
// is TheGame's and sos-app's: config v2, one tables.yaml, remotes by `url_from_env`, the older remote relationship
// form (`hasura_fields`, `remote_field`, two join columns), an action output related to a table that has a remote
// relationship, and a sidecar reading the client's headers. remote-v3 is dailykit's and bolt-api's: config v3, a
// `{{ENV}}` URL template with a comment, a key header with forwarded client headers, and the newer relationship form.
// Every remote is a real graphql-js server on 127.0.0.1; each of them has a root type named `Query`.

const FIXTURES = new URL('../fixtures/projects/', import.meta.url).pathname;
const e = useTestEngine();

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Sets environment variables for the test (the engine reads the remotes' URLs from them), restored afterwards. */
function setEnv(vars: Record<string, string>): void {
  for (const [k, v] of Object.entries(vars)) {
    const saved = process.env[k];
    process.env[k] = v;
    cleanups.push(() => {
      if (saved === undefined) delete process.env[k];
      else process.env[k] = saved;
    });
  }
}

async function remote(sdl: string, rootOf: (current: () => Received | undefined) => Root): Promise<RemoteServer> {
  const r = await startRemote(sdl, 0, rootOf);
  cleanups.push(() => r.close());
  return r;
}

async function project(name: string): Promise<(...args: string[]) => ReturnType<typeof cli>> {
  const dir = join(await tempDir('engine-remote-'), 'project');
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  return (...args: string[]) => cli(args, { cwd: dir, env: { ENGINE_GRAPHQL_ENDPOINT: e.url } });
}

/** validate → migrate apply → metadata apply, then the engine is consistent. */
async function load(run: (...args: string[]) => ReturnType<typeof cli>): Promise<void> {
  const validate = await run('metadata', 'validate');
  expect(validate.code, show(validate)).toBe(0);
  const migrate = await run('migrate', 'apply');
  expect(migrate.code, show(migrate)).toBe(0);
  const apply = await run('metadata', 'apply');
  expect(apply.code, show(apply)).toBe(0);
  expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
}

const gql = async (query: string, headers: Record<string, string> = {}) => (await post(`${e.url}/v1/graphql`, { query }, headers)).body;

const BACKEND_SDL = `
  type Query {
    guildRoles(guildDiscordId: String!): [DiscordRole!]!
    memberRoles(guildId: Int!, playerId: ID!): [DiscordRole!]!
    uniqueness(contextId: ID!): BrightIdStatus
    tokenBalances(address: String!): TokenBalances
  }
  type DiscordRole { id: ID! name: String! }
  type BrightIdStatus { unique: Boolean! contextId: ID! }
  type TokenBalances { address: String! seedBalance: String! }
`;
const backendRoot = (): Root => ({
  guildRoles: ({ guildDiscordId }: { guildDiscordId: string }) => [{ id: `${guildDiscordId}-1`, name: `${guildDiscordId} member` }],
  memberRoles: ({ guildId, playerId }: { guildId: number; playerId: string }) => [{ id: `${guildId}:${playerId.slice(-1)}`, name: 'raider' }],
  uniqueness: ({ contextId }: { contextId: string }) => ({ unique: contextId.endsWith('1'), contextId }),
  tokenBalances: ({ address }: { address: string }) => ({ address, seedBalance: `${address.length}0` }),
});

const SIDECAR_SDL = `
  type Query { me: SessionUser }
  type Mutation { login(email: String!, password: String!): LoginResult! }
  type SessionUser { id: ID! email: String! }
  type LoginResult { token: String! }
`;
const sidecarRoot = (current: () => Received | undefined): Root => ({
  me: () => (current()?.headers['authorization'] === 'Bearer t-ann' ? { id: '1', email: 'ann@example.org' } : null),
  login: ({ email }: { email: string }) => ({ token: `t-${email.split('@')[0] ?? ''}` }),
});

const ANN = '00000000-0000-4000-8000-000000000001';
const BOB = '00000000-0000-4000-8000-000000000002';
const player = { 'x-hasura-role': 'player' };

describe('real-project shapes with remote schemas (issue 35)', () => {
  it('TheGame / sos-app (v2): remote relationships at every level answered by one call, client headers forwarded, an action output reaching a remote field', async () => {
    const backend = await remote(BACKEND_SDL, backendRoot);
    const sidecar = await remote(SIDECAR_SDL, sidecarRoot);
    const handler = await startWebhook((_req, res) => void res.end(JSON.stringify({ success: true, quest_id: 1, error: null })));
    cleanups.push(() => handler.close());
    setEnv({ GAME_BACKEND_GRAPHQL: `${backend.url}/graphql`, SIDECAR_GRAPHQL_URL: `${sidecar.url}/graphql`, QUEST_ACTION_BASE: handler.url });
    const run = await project('remote-v2');
    await load(run);
    await e.sql(`INSERT INTO player (id, username, ethereum_address) VALUES ('${ANN}', 'ann', '0xa1'), ('${BOB}', 'bob', NULL);
      INSERT INTO guild (name, discord_id) VALUES ('raiders', 'd-1'), ('builders', NULL);
      INSERT INTO guild_player VALUES (1, '${ANN}'), (1, '${BOB}'), (2, '${ANN}');
      INSERT INTO quest (guild_id, title) VALUES (1, 'First quest');`);
    backend.received.length = 0;

    const guilds = await gql(`{ guild(order_by: {id: asc}) { name discordRoles { name }
      members(order_by: {player_id: asc}) { memberRoles { id } player { username brightid_status { unique } token_balances { seedBalance } } } } }`, player);
    const ann = { username: 'ann', brightid_status: { unique: true }, token_balances: { seedBalance: '40' } };
    expect(guilds).toEqual({ data: { guild: [
      { name: 'raiders', discordRoles: [{ name: 'd-1 member' }], members: [
        { memberRoles: [{ id: '1:1' }], player: ann },
        { memberRoles: [{ id: '1:2' }], player: { username: 'bob', brightid_status: { unique: false }, token_balances: null } },
      ] },
      { name: 'builders', discordRoles: null, members: [{ memberRoles: [{ id: '2:1' }], player: ann }] },
    ] } });
    // Four relationships over three levels and two guilds: one call to the backend; ann's fields asked once.
    expect(backend.calls()).toHaveLength(1);
    expect(String(backend.calls()[0]!.body.query).match(/uniqueness\(/g)).toHaveLength(2);

    // The sidecar (forward_client_headers) reads the client's Authorization header; both remotes' `Query` coexist.
    expect(await gql('{ me { email } }', { authorization: 'Bearer t-ann' })).toEqual({ data: { me: { email: 'ann@example.org' } } });
    expect(sidecar.calls()[0]!.headers['authorization']).toBe('Bearer t-ann');
    expect(await gql('mutation { login(email: "ann@example.org", password: "p") { token } }')).toEqual({ data: { login: { token: 't-ann' } } });

    // An action's output → its table relationship → that table's remote relationship, in one operation.
    backend.received.length = 0;
    const created = await gql('mutation { createQuest(quest: {guild_id: 1, title: "x"}) { success quest { title guild { name discordRoles { name } } } } }', player);
    expect(created).toEqual({ data: { createQuest: { success: true, quest: { title: 'First quest', guild: { name: 'raiders', discordRoles: [{ name: 'd-1 member' }] } } } } });
    expect(handler.received.map((r) => r.body.action.name)).toEqual(['createQuest']);
    expect(backend.calls()).toHaveLength(1);

    const diff = await run('metadata', 'diff', '--exit-code');
    expect(diff.code, show(diff)).toBe(0);
  });

  it('dailykit / bolt-api (v3): a {{ENV}} URL template, a key header, forwarded client headers, three remotes each with a `Query`', async () => {
    const templates = await remote(`
      type Query { folderWithFiles(path: String!): Folder }
      type Folder { name: String! files: [String!]! }`, () => ({ folderWithFiles: ({ path }: { path: string }) => ({ name: path, files: [`${path}/a.json`] }) }));
    const partner = await remote(`
      type Query { partnerUsers: [PartnerUser!]! }
      type PartnerUser { id: ID! name: String! }`, (current) => ({
      partnerUsers: () => {
        if (current()?.headers['partner_api_key'] !== 'partner-key-1') throw new Error('bad partner key');
        return [{ id: '7', name: 'partner user' }];
      },
    }));
    const loadtest = await remote(`
      type Query { testrun_status(conf_id: ID!): TestrunStatus }
      type Mutation { testrun_start(conf_id: ID!): TestrunStart }
      type TestrunStatus { status: String! }
      type TestrunStart { execution_id: ID! }`, () => ({
      testrun_status: ({ conf_id }: { conf_id: string }) => ({ status: `finished ${conf_id.slice(-1)}` }),
      testrun_start: ({ conf_id }: { conf_id: string }) => ({ execution_id: `run-${conf_id.slice(-1)}` }),
    }));
    setEnv({ ORGANIZATION_URL: templates.url, PARTNER_GRAPHQL_URL: `${partner.url}/graphql`, LOADTEST_API_GRAPHQL: `${loadtest.url}/graphql` });
    const run = await project('remote-v3');
    await load(run);
    await e.sql(`INSERT INTO configuration (id, name) VALUES ('${ANN}', 'smoke'), ('${BOB}', 'soak')`);

    const r = await gql(`{ folderWithFiles(path: "/menus") { name files } partnerUsers { name }
      configuration(order_by: {name: asc}) { name last_run { status } } }`, { authorization: 'Bearer k' });
    expect(r).toEqual({ data: {
      folderWithFiles: { name: '/menus', files: ['/menus/a.json'] }, partnerUsers: [{ name: 'partner user' }],
      configuration: [{ name: 'smoke', last_run: { status: 'finished 1' } }, { name: 'soak', last_run: { status: 'finished 2' } }],
    } });
    expect([templates.calls().length, partner.calls().length, loadtest.calls().length]).toEqual([1, 1, 1]);
    expect(templates.calls()[0]!.url).toBe('/template/graphql');
    // Client headers go only where forward_client_headers says so; the configured key header always.
    expect(templates.calls()[0]!.headers['authorization']).toBeUndefined();
    expect(partner.calls()[0]!.headers).toMatchObject({ authorization: 'Bearer k', partner_api_key: 'partner-key-1' });
    expect(loadtest.calls()[0]!.headers['authorization']).toBe('Bearer k');
    expect(await gql(`mutation { testrun_start(conf_id: "${ANN}") { execution_id } }`)).toEqual({ data: { testrun_start: { execution_id: 'run-1' } } });
    expect(await gql('{ configuration(order_by: {name: asc}) { name last_run { status } } }', { 'x-hasura-role': 'tenant-admin' }))
      .toEqual({ data: { configuration: [{ name: 'smoke', last_run: { status: 'finished 1' } }, { name: 'soak', last_run: { status: 'finished 2' } }] } });

    const diff = await run('metadata', 'diff', '--exit-code');
    expect(diff.code, show(diff)).toBe(0);
  });
});
