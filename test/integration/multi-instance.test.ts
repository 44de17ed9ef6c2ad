import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { Engine } from '../../src/server/engine.js';
import { silentLogger } from '../../src/logger.js';
import { createTestDatabase, EXTERNAL_URL, post, startOn, type Reply } from '../helpers/engine.js';

/** Several engines sharing one external database (engine-api.md §3.1, §3.3, §4.8.2). */

interface Instance {
  url: string;
  server: Server;
}

const q = (i: Instance, body: unknown): Promise<Reply> => post(`${i.url}/v1/query`, body);

async function ok(i: Instance, body: unknown): Promise<Reply> {
  const r = await q(i, body);
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${r.text}`);
  return r;
}

const exportMd = (i: Instance) => ok(i, { type: 'export_metadata', args: {} });
const version = (r: Reply): number => Number(r.headers.get('x-engine-resource-version'));
const sql = (i: Instance, s: string) => ok(i, { type: 'run_sql', args: { sql: s } });

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

describe.skipIf(!EXTERNAL_URL)('several engines on one database', () => {
  let drop: () => Promise<void> = async () => {};
  let dbA: Database | undefined;
  let dbB: Database | undefined;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    dbA = created.db;
    dbB = await PostgresDatabase.connect(created.url as string);
    const sa = await startOn(dbA);
    const sb = await startOn(dbB);
    a = { url: sa.url, server: sa.server };
    b = { url: sb.url, server: sb.server };
  });

  afterAll(async () => {
    if (a) await closeServer(a.server);
    if (b) await closeServer(b.server);
    await dbA?.close();
    await dbB?.close();
    await drop();
  });

  it('a write through A is seen by B: same export bytes, same resource version', async () => {
    const start = version(await exportMd(b));
    await sql(a, 'create table author (id int primary key, name text)');
    const tracked = await ok(a, { type: 'track_table', args: { table: 'author' } });
    expect(version(tracked)).toBe(start + 1);
    const fromA = await exportMd(a);
    const fromB = await exportMd(b);
    expect(fromB.text).toBe(fromA.text);
    expect(fromB.headers.get('x-engine-resource-version')).toBe(String(start + 1));
    expect(fromA.headers.get('x-engine-resource-version')).toBe(String(start + 1));
    expect(fromB.body.tables).toContainEqual({ table: { schema: 'public', name: 'author' } });
    // B's schema cache knows the table too: tracking it again through B is already-tracked.
    const again = await q(b, { type: 'track_table', args: { table: 'author' } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ path: '$.args', error: 'view/table already tracked : "author"', code: 'already-tracked' });
  });

  it('a write through B is reflected by A: get_inconsistent_metadata and export', async () => {
    const before = await exportMd(b);
    const doc = before.body as { version: number; tables: unknown[] };
    const ghost = { table: { schema: 'public', name: 'ghost' } };
    const replaced = await ok(b, {
      type: 'replace_metadata',
      args: { metadata: { ...doc, tables: [...doc.tables, ghost] }, resource_version: version(before), allow_inconsistent_metadata: true },
    });
    expect(version(replaced)).toBe(version(before) + 1);
    const incA = await ok(a, { type: 'get_inconsistent_metadata', args: {} });
    expect(incA.body).toEqual({
      is_consistent: false,
      inconsistent_objects: [{ definition: { schema: 'public', name: 'ghost' }, reason: 'no such table/view exists in postgres : "ghost"', type: 'table' }],
    });
    expect(version(incA)).toBe(version(before) + 1);
    const fromA = await exportMd(a);
    expect(fromA.text).toBe((await exportMd(b)).text);
    expect(fromA.body.tables).toContainEqual(ghost);

    // Back to consistent through B (strict replace); A sees that as well.
    await ok(b, { type: 'replace_metadata', args: { metadata: doc } });
    expect((await ok(a, { type: 'get_inconsistent_metadata', args: {} })).body).toEqual({ is_consistent: true, inconsistent_objects: [] });
    expect((await exportMd(a)).text).toBe(before.text);
  });

  it('concurrent replace_metadata with the same resource_version: one 200, one 409 conflict', async () => {
    await sql(a, 'create table if not exists left_t (id int primary key); create table if not exists right_t (id int primary key)');
    for (let round = 0; round < 5; round++) {
      const read = await exportMd(a);
      const v = version(read);
      expect(version(await exportMd(b))).toBe(v);
      const docA = { version: 2, tables: [{ table: { schema: 'public', name: 'left_t' } }] };
      const docB = { version: 2, tables: [{ table: { schema: 'public', name: 'right_t' } }] };
      const [ra, rb] = await Promise.all([
        q(a, { type: 'replace_metadata', args: { metadata: docA, resource_version: v } }),
        q(b, { type: 'replace_metadata', args: { metadata: docB, resource_version: v } }),
      ]);
      expect([ra.status, rb.status].sort()).toEqual([200, 409]);
      const [winner, loser, winningDoc] = ra.status === 200 ? [ra, rb, docA] : [rb, ra, docB];
      expect(winner.body).toEqual({ message: 'success' });
      expect(version(winner)).toBe(v + 1);
      expect(loser.text).toBe(
        JSON.stringify({ path: '$.args.resource_version', error: 'resource version mismatch', code: 'conflict', internal: { requested: v, current: v + 1 } }),
      );
      const fromA = await exportMd(a);
      const fromB = await exportMd(b);
      expect(fromA.body).toEqual(winningDoc);
      expect(fromB.text).toBe(fromA.text);
      expect([version(fromA), version(fromB)]).toEqual([v + 1, v + 1]);
    }
  });

  it('concurrent track_table of different tables through A and B: both succeed, version grows by exactly 2', async () => {
    await sql(b, 'create table par_a (id int primary key); create table par_b (id int primary key)');
    for (let round = 0; round < 3; round++) {
      await ok(a, { type: 'replace_metadata', args: { version: 2, tables: [] } });
      const start = version(await exportMd(b));
      const [ra, rb] = await Promise.all([
        q(a, { type: 'track_table', args: { table: 'par_a' } }),
        q(b, { type: 'track_table', args: { table: 'par_b' } }),
      ]);
      expect([ra.status, rb.status], `${ra.text} ${rb.text}`).toEqual([200, 200]);
      expect([version(ra), version(rb)].sort((x, y) => x - y)).toEqual([start + 1, start + 2]);
      const fromA = await exportMd(a);
      const fromB = await exportMd(b);
      expect(fromA.text).toBe(fromB.text);
      expect([version(fromA), version(fromB)]).toEqual([start + 2, start + 2]);
      expect(fromA.body).toEqual({
        version: 2,
        tables: [{ table: { schema: 'public', name: 'par_a' } }, { table: { schema: 'public', name: 'par_b' } }],
      });
    }
  });
});

describe.skipIf(!EXTERNAL_URL)('engines starting together', () => {
  it('two engines starting at the same time on a fresh database both come up', async () => {
    const created = await createTestDatabase();
    const second = await PostgresDatabase.connect(created.url as string);
    const servers: Server[] = [];
    try {
      const [e1, e2] = await Promise.all([Engine.start(created.db, silentLogger), Engine.start(second, silentLogger)]);
      expect([e1.resourceVersion, e2.resourceVersion]).toEqual([1, 1]);
      const rows = await created.db.query<{ metadata: unknown; resource_version: number }>(
        'SELECT metadata, resource_version FROM engine_catalog.metadata',
      );
      expect(rows).toEqual([{ metadata: { version: 2, tables: [] }, resource_version: 1 }]);
      // Both serve, and a write through one is visible through the other.
      const s1 = await startOn(created.db);
      const s2 = await startOn(second);
      servers.push(s1.server, s2.server);
      await ok(s1, { type: 'run_sql', args: { sql: 'create table t (id int)' } });
      await ok(s2, { type: 'track_table', args: 't' });
      const [x1, x2] = [await exportMd(s1), await exportMd(s2)];
      expect(x1.text).toBe('{"version":2,"tables":[{"table":{"schema":"public","name":"t"}}]}');
      expect(x2.text).toBe(x1.text);
      expect([version(x1), version(x2)]).toEqual([2, 2]);
    } finally {
      for (const s of servers) await closeServer(s);
      await second.close();
      await created.db.close();
      await created.drop();
    }
  });
});
