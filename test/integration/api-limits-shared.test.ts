import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { createTestDatabase, EXTERNAL_URL, post, startOn } from '../helpers/engine.js';

// Issue 31 item 6: a rate limit holds across several engines on one database (PostgreSQL is the only shared part).

const closeServer = (server: Server): Promise<void> => new Promise((resolve) => {
  server.close(() => resolve());
  server.closeAllConnections();
});

describe.skipIf(!EXTERNAL_URL)('a rate limit shared by two engines', () => {
  let drop: () => Promise<void> = async () => {};
  const dbs: Database[] = [];
  const servers: Server[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    dbs.push(created.db, await PostgresDatabase.connect(created.url as string));
    for (const db of dbs) {
      const s = await startOn(db);
      servers.push(s.server);
      urls.push(s.url);
    }
  }, 60_000);

  afterAll(async () => {
    for (const s of servers) await closeServer(s);
    for (const db of dbs) await db.close();
    await drop();
  });

  it('requests to either engine count against one limit per role and session variable', async () => {
    const set = await post(`${urls[0]}/v1/query`, { type: 'set_api_limits', args: {
      rate_limit: { global: { max_reqs_per_min: 1000 }, per_role: { reader: { max_reqs_per_min: 4, unique_params: ['x-hasura-org-id'] } } },
    } });
    expect(set.status, set.text).toBe(200);
    const org = (id: string) => ({ 'x-hasura-role': 'reader', 'x-hasura-org-id': id });
    const ask = (i: number, id: string) => post(`${urls[i % 2] as string}/v1/graphql`, { query: '{ __typename }' }, org(id));
    // The second engine learns of the new metadata on its own: poll until it applies the limit to a throwaway org.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await post(`${urls[1] as string}/v1/graphql`, [{ query: '{ __typename }' }, { query: '{ __typename }' }, { query: '{ __typename }' }, { query: '{ __typename }' }, { query: '{ __typename }' }], org('probe'));
      if (!Array.isArray(r.body)) break;
      if (Date.now() > deadline) throw new Error('the second engine never applied the rate limit');
    }
    for (let i = 0; i < 4; i++) expect((await ask(i, 'acme')).body, `request ${i}`).toEqual({ data: { __typename: 'query_root' } });
    const refused = { errors: [{ message: 'too many requests: the rate limit is 4 requests per minute', extensions: { path: '$', code: 'rate-limit-exceeded' } }] };
    expect((await ask(0, 'acme')).body).toEqual(refused);
    expect((await ask(1, 'acme')).body).toEqual(refused);
    expect((await ask(1, 'other')).body).toEqual({ data: { __typename: 'query_root' } });
  });
});
