import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { PgliteDatabase } from '../../src/db/pglite.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { createTestDatabase } from '../helpers/engine.js';

// GraphQL work runs in UTC, everything else in the database's own zone. On PostgreSQL a pooled connection keeps the
// zone it was last given (no SET per transaction), so this asserts that each kind of work still sees its own zone
// whatever ran on the connection before: one connection in the pool, so every call reuses it.

const OWN = 'Asia/Tokyo';
let db: Database;
let drop: () => Promise<void> = async () => {};

beforeAll(async () => {
  const t = await createTestDatabase();
  drop = t.drop;
  if (t.url) {
    await t.db.close();
    const u = new URL(t.url);
    // The database's own zone, as a server setting would give it: the value RESET returns to.
    u.searchParams.set('options', `-c TimeZone=${OWN}`);
    db = await PostgresDatabase.connect(u.toString(), { max: 1 });
  } else {
    db = t.db;
    await (db as PgliteDatabase).runScript(`SET TIME ZONE '${OWN}'`);
  }
});
afterAll(async () => {
  await db.close();
  await drop();
});

const ZONE = 'SELECT current_setting(\'TimeZone\') AS z';
const own = async () => (await db.query<{ z: string }>(ZONE))[0]?.z;
const utcBatch = async (commitWith: boolean, statements = 1) =>
  (await db.batch(Array.from({ length: statements }, () => ({ sql: ZONE, params: [] })), commitWith ? { utc: true, commitWith } : { utc: true, readOnlySnapshot: true }))
    .map((rows) => rows[0]?.z);

describe('time zone per kind of work', () => {
  it('GraphQL batches (one statement, several, read-only) see UTC; queries, scripts and transactions the own zone', async () => {
    expect(await own()).toBe(OWN);
    expect(await utcBatch(true)).toEqual(['UTC']);
    expect(await utcBatch(true)).toEqual(['UTC']); // the connection kept UTC: no SET sent this time
    expect(await own()).toBe(OWN);
    expect(await utcBatch(false, 2)).toEqual(['UTC', 'UTC']);
    expect((await db.runScript(ZONE)).rows).toEqual([[OWN]]);
    expect(await utcBatch(true, 3)).toEqual(['UTC', 'UTC', 'UTC']);
    expect(await db.transaction((tx) => tx.query<{ z: string }>(ZONE))).toEqual([{ z: OWN }]);
    expect(await db.transaction((tx) => tx.query<{ z: string }>(ZONE), { utc: true })).toEqual([{ z: 'UTC' }]);
    expect(await own()).toBe(OWN);
  });

  it('a failed batch or a script that sets the zone itself leaves no zone behind for the next work', async () => {
    await expect(db.batch([{ sql: 'SELECT 1/0', params: [] }], { utc: true, commitWith: true })).rejects.toThrow(/division by zero/);
    expect(await own()).toBe(OWN);
    await expect(db.batch([{ sql: ZONE, params: [] }, { sql: 'SELECT 1/0', params: [] }], { utc: true, commitWith: true })).rejects.toThrow(/division by zero/);
    expect(await own()).toBe(OWN);
    expect(await utcBatch(true)).toEqual(['UTC']);
    await db.transaction((tx) => tx.runScript("SET TIME ZONE 'Europe/Paris'"), { utc: true });
    // The script's session SET outlives its transaction on PostgreSQL; GraphQL still gets UTC after it.
    expect(await utcBatch(true)).toEqual(['UTC']);
    await db.runScript("SET TIME ZONE 'Europe/Paris'");
    expect(await utcBatch(true)).toEqual(['UTC']);
  });
});
