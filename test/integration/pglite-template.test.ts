import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/database.js';
import { PgliteDatabase } from '../../src/db/pglite.js';
import { EXTERNAL_URL } from '../helpers/engine.js';

// Issue 18 item 2: a new embedded database is a copy of a template made once by initdb (cached per PGlite version);
// what it starts with must be exactly what a fresh initdb gives.

const cache = mkdtempSync(join(tmpdir(), 'engine-cache-'));
process.env['ENGINE_CACHE_DIR'] = cache;
const dirs: string[] = [cache];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const FACTS = `SELECT current_setting('server_version') AS version, pg_encoding_to_char(d.encoding) AS encoding, d.datcollate, d.datctype,
  d.datlocprovider::text AS provider, current_setting('lc_messages') AS lc_messages, current_setting('TimeZone') AS tz,
  current_setting('DateStyle') AS datestyle, current_setting('default_text_search_config') AS ts_config,
  (SELECT count(*)::int FROM pg_proc) AS procs, (SELECT count(*)::int FROM pg_type) AS types,
  (SELECT count(*)::int FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'pg_catalog') AS catalog_relations,
  (SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension) AS extensions,
  (SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace) AS schemas,
  (SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database) AS databases
  FROM pg_database d WHERE d.datname = current_database()`;

const facts = async (q: Pick<Queryable, 'query'>): Promise<unknown> => (await q.query(FACTS))[0];

describe.skipIf(EXTERNAL_URL)('the embedded database template (issue 18)', () => {
  it('starts every new database, in memory or on disk, with the catalog of a fresh initdb', async () => {
    const fresh = await PGlite.create();
    const expected = (await fresh.query(FACTS)).rows[0];
    await fresh.close();

    const memory = await PgliteDatabase.open(undefined);
    expect(await facts(memory)).toEqual(expected);
    await memory.close();
    const root = readdirSync(cache).filter((n) => n.startsWith('pglite-'));
    expect(root).toHaveLength(1);
    expect(existsSync(join(cache, root[0] as string, 'data', 'PG_VERSION'))).toBe(true);

    const dir = mkdtempSync(join(tmpdir(), 'engine-tpl-'));
    dirs.push(dir);
    const disk = await PgliteDatabase.open(join(dir, 'data'));
    expect(await facts(disk)).toEqual(expected);
    await disk.runScript('create table kept (id int); insert into kept values (1)');
    await disk.close();
    const again = await PgliteDatabase.open(join(dir, 'data'));
    expect(await again.query('SELECT id FROM kept')).toEqual([{ id: 1 }]);
    await again.close();
  });
});
