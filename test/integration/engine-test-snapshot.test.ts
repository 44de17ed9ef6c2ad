/**
 * The data snapshot of `engine test` (src/project/test/snapshot.ts): after cases wrote, restore() puts every user
 * table and sequence back as the seeds left them — small tables emptied with DELETE, large ones (over 1,000 rows)
 * with TRUNCATE … CASCADE, which also empties a small table referencing a large one before all are refilled — and
 * no user trigger sees the restore.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/engine.js';
import { restoreSnapshot, takeSnapshot } from '../../src/project/test/snapshot.js';
import type { Database } from '../../src/db/database.js';

let db: Database;
let drop: () => Promise<void>;
const sql = async (script: string): Promise<void> => void (await db.transaction((tx) => tx.runScript(script)));

const SETUP = `
CREATE TABLE big (id int PRIMARY KEY, v text);
INSERT INTO big SELECT g, 'v' || g FROM generate_series(1, 1001) g;
CREATE TABLE small (id serial PRIMARY KEY, big_id int REFERENCES big (id), note text);
INSERT INTO small (big_id, note) VALUES (1, 'a'), (2, 'b');
-- Outside what the snapshot holds (it leaves the engine's schema alone): what the trigger wrote stays.
CREATE SCHEMA engine_catalog;
CREATE TABLE engine_catalog.fired (n int);
CREATE FUNCTION on_small() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO engine_catalog.fired VALUES (1); RETURN NULL; END $$;
CREATE TRIGGER on_small AFTER INSERT OR DELETE ON small FOR EACH ROW EXECUTE FUNCTION on_small();
`;

const STATE = `SELECT (SELECT count(*) FROM big)::int AS big, (SELECT string_agg(v, ',' ORDER BY id) FROM big WHERE id IN (1, 1001)) AS big_ends,
  (SELECT string_agg(id || ':' || big_id || ':' || note, ',' ORDER BY id) FROM small) AS small,
  (SELECT count(*) FROM engine_catalog.fired)::int AS fired`;

beforeAll(async () => {
  ({ db, drop } = await createTestDatabase());
  await sql(SETUP);
  await takeSnapshot(sql);
});
afterAll(async () => {
  await db.close();
  await drop();
});

it('restores small and large tables and the sequences after writes, without firing user triggers', async () => {
  const before = await db.query(STATE);
  expect(before).toEqual([{ big: 1001, big_ends: 'v1,v1001', small: '1:1:a,2:2:b', fired: 0 }]);
  await sql(`UPDATE big SET v = 'changed' WHERE id = 1; DELETE FROM big WHERE id = 1001 OR id > 500 AND id NOT IN (1, 2);
    INSERT INTO small (big_id, note) VALUES (2, 'c'); DELETE FROM small WHERE note = 'a'`);
  expect((await db.query(STATE))[0]).toMatchObject({ big: 500, small: '2:2:b,3:2:c', fired: 2 });
  await restoreSnapshot(sql);
  expect(await db.query(STATE)).toEqual([{ ...before[0], fired: 2 }]);
  // The serial is back where the seeds left it: the next row gets id 3 again.
  await sql("INSERT INTO small (big_id, note) VALUES (1, 'd')");
  expect((await db.query<{ id: number }>("SELECT id FROM small WHERE note = 'd'"))[0]?.id).toBe(3);
  await restoreSnapshot(sql);
  expect(await db.query(STATE)).toEqual([{ ...before[0], fired: 3 }]);
});
