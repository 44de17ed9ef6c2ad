import { buildSchema, graphql, type GraphQLSchema } from 'graphql';
import { startWebhook, type Received, type Webhook } from './webhook.js';

/**
 * A real remote GraphQL server (graphql-js over node:http on 127.0.0.1, port 0) for remote-schema tests: it records
 * every request (headers, body) and answers with graphql-js against `sdl` and `root`. `port` reuses a port (a remote
 * that comes back after being down).
 */
export interface RemoteServer {
  url: string;
  received: Received[];
  /** How requests other than introspection are answered: by graphql-js, with text that is not JSON, or never. */
  mode: 'graphql' | 'bad-json' | 'hang';
  /** Requests other than the introspection query. */
  calls(): Received[];
  close(): Promise<void>;
}

export const REMOTE_SDL = `
  type Query {
    hello(arg: String): String
    user(id: Int!): User
    users(ids: [Int!]!): [User!]!
    whoami: String
    fail: String
    search(term: String!): [SearchResult!]!
  }
  type Mutation { setGreeting(text: String!): String }
  type User { id: Int! name: String! friend: User }
  union SearchResult = User | Post
  type Post { title: String! }
`;

export type Root = Record<string, unknown>;

export function remoteRoot(headersOf: () => Received | undefined): Root {
  const user = (id: number): Root => ({ id, name: `user ${id}`, friend: () => user(id + 1) });
  return {
    hello: ({ arg }: { arg?: string }) => `Hello ${arg ?? 'world'}`,
    user: ({ id }: { id: number }) => user(id),
    users: ({ ids }: { ids: number[] }) => ids.map(user),
    whoami: () => String(headersOf()?.headers['x-hasura-user-id'] ?? headersOf()?.headers['x-engine-user-id'] ?? 'nobody'),
    fail: () => {
      throw new Error('the remote failed on purpose');
    },
    search: () => [{ __typename: 'User', ...user(1) }, { __typename: 'Post', title: 'a post' }],
    setGreeting: ({ text }: { text: string }) => `set ${text}`,
  };
}

/** `rootOf`: the resolvers, given the request being answered (the default: remoteRoot's, for REMOTE_SDL). */
export async function startRemote(sdl = REMOTE_SDL, port = 0, rootOf: (current: () => Received | undefined) => Root = remoteRoot): Promise<RemoteServer> {
  const schema: GraphQLSchema = buildSchema(sdl);
  let current: Received | undefined;
  const root = rootOf(() => current);
  const out = { mode: 'graphql' } as RemoteServer;
  const hook: Webhook = await startWebhook(async (req, res) => {
    current = req;
    const body = req.body as { query?: string; variables?: Record<string, unknown> };
    if (out.mode !== 'graphql' && !String(body.query ?? '').includes('__schema')) {
      if (out.mode === 'bad-json') res.end('<html>not json</html>');
      return;
    }
    const result = await graphql({ schema, source: body.query ?? '', rootValue: root, variableValues: body.variables ?? {} });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(result));
  }, port);
  return Object.assign(out, {
    url: hook.url,
    received: hook.received,
    calls: () => hook.received.filter((r) => !String((r.body as { query?: string }).query ?? '').includes('__schema')),
    close: () => hook.close(),
  });
}

/** A port that nothing listens on (taken, then released): the remote is down until a server starts on it. */
export async function freePort(): Promise<number> {
  const h = await startWebhook();
  const port = Number(new URL(h.url).port);
  await h.close();
  return port;
}
