import type { Server } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { createTestDatabase, EXTERNAL_URL, post, startOn, type Reply } from '../helpers/engine.js';
import { STALE_PLAN_STATE } from '../../src/server/catalog.js';
import { EXAMPLE_METADATA, EXAMPLE_SQL, gqlErr } from './graphql-fixture.js';

// Issue 28 point 4: engines sharing one PostgreSQL while the metadata changes under running mutations. A request
// planned on a schema that is no longer current is planned again on the new one, for as long as the metadata keeps
// changing within its time window, and then answers the retryable `metadata-changed` error: never a 500.

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

let titles = 0;
const mutation = (): string => `mutation { insert_article_one(object: {title: "T${++titles}", author_id: 1}) { id } }`;

describe.skipIf(!EXTERNAL_URL)('metadata changing while mutations run on another instance', () => {
  let drop: () => Promise<void> = async () => {};
  let dbA: Database | undefined;
  let dbB: Database | undefined;
  let bumper: pg.Client;
  let a: { url: string; server: Server };
  let b: { url: string; server: Server };

  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    dbA = created.db;
    dbB = await PostgresDatabase.connect(created.url as string);
    a = await startOn(dbA);
    b = await startOn(dbB);
    bumper = new pg.Client({ connectionString: created.url });
    await bumper.connect();
    expect((await post(`${a.url}/v1/query`, { type: 'run_sql', args: { sql: EXAMPLE_SQL } })).status).toBe(200);
    expect((await post(`${a.url}/v1/query`, { type: 'bulk', args: EXAMPLE_METADATA })).status).toBe(200);
  });

  afterAll(async () => {
    await bumper?.end();
    if (a) await closeServer(a.server);
    if (b) await closeServer(b.server);
    await dbA?.close();
    await dbB?.close();
    await drop();
  });

  const gql = (url: string, query: string): Promise<Reply> => post(`${url}/v1/graphql`, { query });
  const articles = async (): Promise<number> => Number((await bumper.query('SELECT count(*) AS n FROM article')).rows[0].n);

  /**
   * The next `n` inserts into article fail as a statement whose plan is stale (SQLSTATE EN002, what the guard of a
   * mutation raises when the stored resource_version moved): as if another instance changed the metadata before each.
   */
  async function staleFor(n: number): Promise<void> {
    await bumper.query(`DROP TRIGGER IF EXISTS stale ON article; DROP SEQUENCE IF EXISTS stale_seq; CREATE SEQUENCE stale_seq;
      CREATE OR REPLACE FUNCTION stale() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF nextval('stale_seq') <= ${n} THEN RAISE EXCEPTION 'stale' USING ERRCODE = '${STALE_PLAN_STATE}'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER stale BEFORE INSERT ON article FOR EACH ROW EXECUTE FUNCTION stale();`);
  }
  const attempts = async (): Promise<number> => Number((await bumper.query('SELECT last_value AS n FROM stale_seq')).rows[0].n);

  it('a mutation planned again and again while the metadata moves is answered once it settles', async () => {
    const before = await articles();
    await staleFor(20);
    const r = await gql(a.url, mutation());
    expect(r.status).toBe(200);
    expect(await attempts()).toBe(21);
    expect(r.status).toBe(200);
    expect(r.body.data.insert_article_one.id).toEqual(expect.any(Number));
    expect(await articles()).toBe(before + 1);
    await bumper.query('DROP TRIGGER stale ON article');
  });

  it('metadata that never settles: the retryable metadata-changed error after the window, nothing written', async () => {
    const before = await articles();
    await staleFor(1_000_000);
    const r = await gql(a.url, mutation());
    expect(await attempts()).toBeGreaterThan(6);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(gqlErr('the metadata kept changing while the request was planned; send it again', '$', 'metadata-changed'));
    expect(await articles()).toBe(before);
    await bumper.query('DROP TRIGGER stale ON article');
  }, 60_000);

  it('real metadata changes through B while A runs mutations: never a 500', async () => {
    const perm = (kind: string) => ({ type: kind, args: { table: 'author', role: 'reader', ...(kind === 'create_select_permission' ? { permission: { columns: ['id'], filter: {} } } : {}) } });
    // Each mutation races one metadata change (an unbroken stream of changes would keep every mutation re-planning for
    // the whole window, which the test above covers): the change lands before, during or after the mutation's plan.
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const [r, w] = await Promise.all([gql(a.url, mutation()), post(`${b.url}/v1/query`, perm(i % 2 === 0 ? 'create_select_permission' : 'drop_select_permission'))]);
      expect(w.status).toBe(200);
      statuses.push(r.status);
      if (!r.body.data) expect(r.body.errors[0].extensions.code).toBe('metadata-changed');
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
  });
});
