import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { silentLogger } from '../../src/logger.js';
import { openDatabase, startServer, type RunningServer } from '../../src/server/index.js';
import { EXTERNAL_URL } from '../helpers/engine.js';
import { clusterUnavailable, freePort, startCluster, type LocalCluster } from '../helpers/pg-cluster.js';

/**
 * Issue 31 point 7: GraphQL queries go to the read replicas in turn, mutations and metadata to the primary; sslmode
 * from the URL with libpq's meaning. A primary with two streaming replicas, started by the test (never the shared
 * cluster's settings), offering TLS with a self-signed certificate.
 */

const unavailable = clusterUnavailable();
if (unavailable) console.log(`read replica tests skipped: ${unavailable}`);

async function post(url: string, body: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return res.json();
}

async function primaryRows(url: string, sql: string): Promise<unknown[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

describe.skipIf(unavailable !== null)('read replicas and sslmode on a local primary with two streaming replicas', () => {
  let cluster: LocalCluster;
  let server: RunningServer;
  const gql = (query: string): Promise<any> => post(`${server.url}/v1/graphql`, { query }); // eslint-disable-line @typescript-eslint/no-explicit-any

  beforeAll(async () => {
    cluster = await startCluster(2, { ssl: true });
    server = await startServer({ databaseUrl: cluster.primaryUrl, readReplicaUrls: cluster.replicaUrls, port: 0, host: '127.0.0.1', logger: silentLogger });
    await post(`${server.url}/v1/query`, { type: 'bulk', args: [
      { type: 'run_sql', args: { sql: 'CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL); CREATE VIEW server_info AS SELECT pg_is_in_recovery() AS in_recovery, inet_server_port() AS port' } },
      { type: 'track_table', args: { table: 'note' } },
      { type: 'track_table', args: { table: 'server_info' } },
    ] });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await cluster?.stop();
  });

  it('answers queries from the replicas in turn', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await gql('{ server_info { in_recovery port } }');
      expect(r.errors).toBeUndefined();
      expect(r.data.server_info).toHaveLength(1);
      expect(r.data.server_info[0].in_recovery).toBe(true);
      ports.push(r.data.server_info[0].port);
    }
    const replicaPorts = cluster.replicaUrls.map((u) => Number(new URL(u).port));
    expect(new Set(ports)).toEqual(new Set(replicaPorts));
    // In turn: never the same replica twice in a row.
    for (let i = 1; i < ports.length; i++) expect(ports[i]).not.toBe(ports[i - 1]);
  });

  it('sends mutations to the primary; the replicas answer with the row once it has streamed to them', async () => {
    const m = await gql('mutation { insert_note_one(object: { body: "written" }) { id body } }');
    expect(m.errors).toBeUndefined();
    expect(m.data.insert_note_one.body).toBe('written');
    expect(await primaryRows(cluster.primaryUrl, 'SELECT body FROM note')).toEqual([{ body: 'written' }]);
    // Each replica in turn: both must have it within the deadline.
    const deadline = Date.now() + 20_000;
    let seen = 0;
    while (seen < 2) {
      const r = await gql('{ note { body } server_info { in_recovery } }');
      expect(r.errors).toBeUndefined();
      expect(r.data.server_info[0].in_recovery).toBe(true);
      seen = r.data.note.length === 1 ? seen + 1 : 0;
      if (Date.now() > deadline) throw new Error('the row never reached the replicas');
    }
  });

  it('keeps metadata on the primary: an admin change is served by the replicas once streamed', async () => {
    await post(`${server.url}/v1/query`, { type: 'run_sql', args: { sql: 'CREATE VIEW note_count AS SELECT count(*)::int AS n FROM note' } });
    await post(`${server.url}/v1/query`, { type: 'track_table', args: { table: 'note_count' } });
    const r = await gql('{ note_count { n } server_info { in_recovery } }');
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({ note_count: [{ n: 1 }], server_info: [{ in_recovery: true }] });
  });

  it('leaves a query to the primary while the replicas are behind the metadata', async () => {
    const replay = (fn: string) => Promise.all(cluster.replicaUrls.map((u) => primaryRows(u, `SELECT ${fn}()`)));
    await replay('pg_wal_replay_pause');
    try {
      await post(`${server.url}/v1/query`, { type: 'run_sql', args: { sql: 'CREATE VIEW lag_marker AS SELECT 1 AS one' } });
      await post(`${server.url}/v1/query`, { type: 'track_table', args: { table: 'lag_marker' } });
      // Both replicas lack the view and the new resource_version: the primary answers, at once.
      for (let i = 0; i < 2; i++) {
        expect(await gql('{ lag_marker { one } server_info { in_recovery } }')).toEqual({ data: { lag_marker: [{ one: 1 }], server_info: [{ in_recovery: false }] } });
      }
    } finally {
      await replay('pg_wal_replay_resume');
    }
    const deadline = Date.now() + 20_000;
    let seen = 0;
    while (seen < 2) {
      const r = await gql('{ lag_marker { one } server_info { in_recovery } }');
      expect(r.data.lag_marker).toEqual([{ one: 1 }]);
      seen = r.data.server_info[0].in_recovery === true ? seen + 1 : 0;
      if (Date.now() > deadline) throw new Error('the replicas never caught up');
    }
  });

  it('refuses replicas without an external primary, and a replica it cannot reach', async () => {
    await expect(startServer({ readReplicaUrls: cluster.replicaUrls, port: 0, host: '127.0.0.1', dataDir: `${cluster.dir}/never` })).rejects.toMatchObject({
      code: 'config-invalid', exitCode: 1,
      message: 'read replicas need an external primary: --read-replica-urls is given without --database-url',
    });
    const closed = `postgres://postgres:hunter2@127.0.0.1:${await freePort()}/postgres`;
    const before = await primaryRows(cluster.primaryUrl, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'");
    const e = await openDatabase({ databaseUrl: cluster.primaryUrl, readReplicaUrls: [cluster.replicaUrls[0] as string, closed] }, silentLogger).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'database-connect-failed', exitCode: 1 });
    expect((e as Error).message).toMatch(/^cannot connect to the read replica at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres: connect ECONNREFUSED/);
    // The pools it had opened are closed again.
    expect(await primaryRows(cluster.primaryUrl, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'")).toEqual(before);
  });

  it('reads sslmode from the URL with libpq\'s meaning', async () => {
    const ssl = async (query: string): Promise<boolean> => {
      const db = await PostgresDatabase.connect(`${cluster.primaryUrl}${query}`);
      try {
        const rows = await db.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
        return rows[0]?.ssl === true;
      } finally {
        await db.close();
      }
    };
    expect(await ssl('')).toBe(false);
    expect(await ssl('?sslmode=disable')).toBe(false);
    // require: encrypted, the self-signed certificate accepted (libpq verifies only from verify-ca on).
    expect(await ssl('?sslmode=require')).toBe(true);
    expect(await ssl('?sslmode=prefer')).toBe(true);
    expect(await ssl('?sslmode=allow')).toBe(true);
    const e = await openDatabase({ databaseUrl: `${cluster.primaryUrl}?sslmode=verify-full` }, silentLogger).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'database-connect-failed', exitCode: 1 });
    expect((e as Error).message).toMatch(/^cannot connect to the database at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?sslmode=verify-full: self[- ]signed certificate/);
  });

  it.skipIf(!EXTERNAL_URL)('falls back to no encryption with prefer when the server offers none, and refuses it with require', async () => {
    const url = new URL(EXTERNAL_URL as string);
    url.pathname = '/postgres';
    const offers = await primaryRows(url.toString(), 'SHOW ssl');
    if ((offers[0] as { ssl: string }).ssl === 'on') return console.log('the shared server offers TLS: the fallback is not shown here');
    url.searchParams.set('sslmode', 'prefer');
    const db = await PostgresDatabase.connect(url.toString());
    expect(await db.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).toEqual([{ ssl: false }]);
    await db.close();
    url.searchParams.set('sslmode', 'require');
    const e = await openDatabase({ databaseUrl: url.toString() }, silentLogger).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'database-connect-failed', message: `cannot connect to the database at ${url.toString()}: The server does not support SSL connections` });
  });
});
