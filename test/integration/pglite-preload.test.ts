import { describe, expect, it } from 'vitest';
import { PgliteDatabase } from '../../src/db/pglite.js';
import { preloadPglite } from '../../src/db/pglite-preload.js';

// `engine serve` reads and compiles PGlite's files while the CLI loads (issue 18). Should a PGlite version move them,
// PGlite would silently read them itself again: this test says so instead.
describe('PGlite files read ahead', () => {
  it('finds this PGlite version\'s WebAssembly and file bundle, and a database opens with them', async () => {
    const files = await preloadPglite();
    expect(files).not.toBeNull();
    expect(files?.fsBundle.size).toBeGreaterThan(1_000_000);
    expect(await preloadPglite()).toBe(files);
    const db = await PgliteDatabase.open(undefined);
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await db.close();
  });
});
