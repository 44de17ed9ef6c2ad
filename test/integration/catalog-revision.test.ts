import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { pgErrorInfo } from '../../src/db/database.js';
import { silentLogger } from '../../src/logger.js';
import { Engine } from '../../src/server/engine.js';
import { countingDatabase } from '../helpers/counting-db.js';
import { createTestDatabase } from '../helpers/engine.js';

// Issue 18: the catalog DDL runs when the catalog is missing or older than this engine's (the comment of schema
// engine_catalog names the revision of the DDL that made it), and not at every start.

const drops: (() => Promise<void>)[] = [];
async function fresh(): Promise<Database> {
  const created = await createTestDatabase();
  drops.push(async () => {
    await created.db.close();
    await created.drop();
  });
  return created.db;
}
afterEach(async () => {
  for (const d of drops.splice(0)) await d();
});

const DDL = /CREATE TABLE IF NOT EXISTS engine_catalog\.metadata/;
const revision = async (db: Database): Promise<string | null> =>
  ((await db.query<{ c: string | null }>("SELECT obj_description('engine_catalog'::regnamespace, 'pg_namespace') AS c"))[0]?.c ?? null);
const indexes = async (db: Database): Promise<string[]> =>
  (await db.query<{ n: string }>("SELECT indexname AS n FROM pg_indexes WHERE schemaname = 'engine_catalog' ORDER BY 1")).map((r) => r.n);
const stored = async (db: Database): Promise<unknown> =>
  (await db.query('SELECT resource_version, metadata::text AS doc FROM engine_catalog.metadata'))[0];

describe('the catalog revision (issue 18)', () => {
  it('creates the catalog on a new database, then only checks its revision at each start', async () => {
    const db = await fresh();
    const first = countingDatabase(db);
    await Engine.start(first.db, silentLogger);
    expect(first.log.some((s) => DDL.test(s))).toBe(true);
    const mark = await revision(db);
    expect(mark).toMatch(/^engine catalog [0-9a-f]{16}$/);
    const before = { indexes: await indexes(db), stored: await stored(db) };

    const again = countingDatabase(db);
    await Engine.start(again.db, silentLogger);
    expect(again.log.some((s) => DDL.test(s))).toBe(false);
    expect(again.log.filter((s) => s.includes('engine.catalog_revision'))).toHaveLength(1);
    expect({ indexes: await indexes(db), stored: await stored(db) }).toEqual(before);
    expect(await revision(db)).toBe(mark);
  });

  it('runs the DDL again on a catalog of another revision, keeping the metadata', async () => {
    const db = await fresh();
    await Engine.start(db, silentLogger);
    const mark = await revision(db);
    const before = { indexes: await indexes(db), stored: await stored(db) };
    // An older engine's catalog: another revision, and an index that engine did not have.
    await db.runScript("COMMENT ON SCHEMA engine_catalog IS 'engine catalog 0000000000000000'; DROP INDEX engine_catalog.event_log_pending_idx");

    const again = countingDatabase(db);
    await Engine.start(again.db, silentLogger);
    expect(again.log.some((s) => DDL.test(s))).toBe(true);
    expect({ indexes: await indexes(db), stored: await stored(db) }).toEqual(before);
    expect(await revision(db)).toBe(mark);
  });

  it('a DDL that fails stops the start with PostgreSQL\'s error and changes nothing: no revision, no catalog table', async () => {
    const db = await fresh();
    // A catalog table of a shape the DDL cannot index: CREATE TABLE IF NOT EXISTS keeps it, CREATE INDEX fails.
    await db.runScript('CREATE SCHEMA engine_catalog; CREATE TABLE engine_catalog.event_log (id integer)');
    const err = await Engine.start(db, silentLogger).then(() => null, (e: unknown) => e);
    const info = pgErrorInfo(err);
    expect(info?.code).toBe('42703');
    expect(info?.message).toBe('column "delivered" does not exist');
    expect(await revision(db)).toBeNull();
    expect(await db.query("SELECT to_regclass('engine_catalog.metadata') IS NULL AS missing")).toEqual([{ missing: true }]);
    expect(await db.query("SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'engine_catalog' AND table_name = 'event_log'")).toEqual([{ n: 1 }]);
  });
});
