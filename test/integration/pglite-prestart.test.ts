import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PgliteDatabase } from '../../src/db/pglite.js';
import { PgliteWorkerDatabase } from '../../src/db/pglite-remote.js';
import { discardPrestartedWorker, prestartPgliteWorker, takePrestartedWorker } from '../../src/db/pglite-prestart.js';

// Issue 28 (start-up): `engine serve` starts the embedded database's worker thread before the engine's modules load.
// The worker must serve only the directory it was started for, and touch no directory before open() (the data
// directory's lock is taken between the two). Needs `npm run build` (the worker is dist/db/pglite-worker.js).

/** Opens `dir` as the engine does, writes and reads two rows there, closes it: the rows read. */
async function used(dir: string): Promise<unknown> {
  const db = await PgliteWorkerDatabase.open(dir);
  try {
    await db.runScript('CREATE TABLE pre (id int); INSERT INTO pre VALUES (1), (2)');
    return await db.query('SELECT count(*)::int AS n FROM pre');
  } finally {
    await db.close();
  }
}

describe('a prestarted embedded-database worker', () => {
  it('is the one opened for its directory, and another directory gets a worker of its own', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engine-prestart-'));
    prestartPgliteWorker(join(root, 'a'));
    expect(await used(join(root, 'b'))).toEqual([{ n: 2 }]);
    expect(existsSync(join(root, 'b', 'PG_VERSION'))).toBe(true);
    // The worker started for `a` was never opened: it wrote nothing there.
    expect(existsSync(join(root, 'a'))).toBe(false);

    prestartPgliteWorker(join(root, 'c'));
    expect(await used(join(root, 'c'))).toEqual([{ n: 2 }]);
    expect(existsSync(join(root, 'c', 'PG_VERSION'))).toBe(true);
  }, 120_000);

  it('waits for open(): the directory it was started for stays untouched until then', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engine-prestart-'));
    const dir = join(root, 'data');
    prestartPgliteWorker(dir);
    // A whole database started and used in this thread meanwhile takes far longer than the worker's start.
    const other = await PgliteDatabase.open(join(root, 'other'));
    await other.query('SELECT 1');
    await other.close();
    expect(existsSync(dir)).toBe(false);
    expect(await used(dir)).toEqual([{ n: 2 }]);
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
  }, 120_000);

  it('is stopped when discarded (the engine runs on an external PostgreSQL after all), the directory untouched', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engine-prestart-'));
    const dir = join(root, 'data');
    prestartPgliteWorker(dir);
    await discardPrestartedWorker();
    // Nothing is left to adopt: open() would start a worker of its own.
    expect(takePrestartedWorker(dir)).toBeNull();
    expect(existsSync(dir)).toBe(false);
    await discardPrestartedWorker();
  });
});
