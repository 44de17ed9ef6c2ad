import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/database.js';
import { PgliteDatabase } from '../../src/db/pglite.js';
import { seedDataDir, template } from '../../src/db/pglite-template.js';
import { openDatabase } from '../../src/server/index.js';
import { ensureCatalog, REVISION } from '../../src/server/catalog.js';
import { silentLogger } from '../../src/logger.js';
import { CliError } from '../../src/errors.js';
import { EXTERNAL_URL } from '../helpers/engine.js';

// Issue 18 item 2: a new embedded database is a copy of a template made once by initdb (cached per PGlite version);
// what it starts with must be exactly what a fresh initdb gives.

const cache = mkdtempSync(join(tmpdir(), 'engine-cache-'));
process.env['ENGINE_CACHE_DIR'] = cache;
const dirs: string[] = [cache];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'engine-tpl-'));
  dirs.push(dir);
  return dir;
};

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

/** Every file under `dir`, relative, with its size. */
function files(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out.set(relative(dir, join(e.parentPath, e.name)), statSync(join(e.parentPath, e.name)).size);
  }
  return out;
}

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

    const dir = scratch();
    const disk = await PgliteDatabase.open(join(dir, 'data'));
    expect(await facts(disk)).toEqual(expected);
    await disk.runScript('create table kept (id int); insert into kept values (1)');
    await disk.close();
    const again = await PgliteDatabase.open(join(dir, 'data'));
    expect(await again.query('SELECT id FROM kept')).toEqual([{ id: 1 }]);
    await again.close();
  });

  it('copies every file of the template into a new directory, and only into a new one', async () => {
    const t = await template();
    expect(t).not.toBeNull();
    const dir = join(scratch(), 'nested', 'data');
    expect(await seedDataDir(dir)).toBe(true);
    expect(files(dir)).toEqual(files((t as { dir: string }).dir));
    // A directory that has PG_VERSION is a database: never overwritten.
    writeFileSync(join(dir, 'PG_VERSION'), '18\n');
    expect(await seedDataDir(dir)).toBe(false);
  });

  it('copies again over a copy that was cut short (PG_VERSION comes last), and the database opens', async () => {
    const dir = join(scratch(), 'data');
    mkdirSync(join(dir, 'base', '1'), { recursive: true });
    writeFileSync(join(dir, 'base', '1', '1259'), 'half a file');
    const db = await PgliteDatabase.open(dir);
    try {
      expect(await db.query('SELECT count(*)::int AS n FROM pg_class WHERE relname = $1', ['pg_class'])).toEqual([{ n: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('runs PostgreSQL with 32 MB of shared buffers, in memory and on disk', async () => {
    const memory = await PgliteDatabase.open(undefined);
    const disk = await PgliteDatabase.open(join(scratch(), 'data'));
    try {
      expect(await memory.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '32MB' }]);
      expect(await disk.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '32MB' }]);
    } finally {
      await memory.close();
      await disk.close();
    }
  });

  it('a copy that fails is database-start-failed: the lock is released and the directory not marked initialised', async () => {
    const dir = join(scratch(), 'data');
    mkdirSync(dir, { recursive: true });
    // `base` is a file where the template has a directory: the copy cannot create base/1.
    writeFileSync(join(dir, 'base'), 'in the way');
    const err = await openDatabase({ dataDir: dir }, silentLogger).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).code).toBe('database-start-failed');
    expect((err as CliError).message).toBe(`cannot start the embedded database in ${dir}: EEXIST: file already exists, mkdir '${dir}/base'`);
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(false);
    expect(existsSync(join(dir, 'engine.pid'))).toBe(false);
    expect(statSync(join(dir, 'base')).isFile()).toBe(true);
  });
  it('with a setup: one template per key that has run it (others removed after a week), copied into new directories only', async () => {
    const setup = (key: string) => ({ key, run: async (q: Queryable) => {
      await q.runScript('CREATE TABLE made (key text)');
      await q.query('INSERT INTO made VALUES ($1)', [key]);
    } });
    const keyed = (): string[] => readdirSync(cache).filter((n) => /^pglite-.+-[0-9a-f]{12}$/.test(n));
    const one = join(scratch(), 'data');
    const a = await PgliteDatabase.open(one, setup('one'));
    expect(await a.query('SELECT key FROM made')).toEqual([{ key: 'one' }]);
    await a.close();
    const before = keyed();
    const b = await PgliteDatabase.open(join(scratch(), 'data'), setup('two'));
    expect(await b.query('SELECT key FROM made')).toEqual([{ key: 'two' }]);
    await b.close();
    expect(keyed()).toHaveLength(before.length + 1);
    // Templates of other keys go once they are a week old, when another is built.
    const week = Date.now() / 1000 - 8 * 24 * 3600;
    for (const n of keyed()) utimesSync(join(cache, n), week, week);
    const c = await PgliteDatabase.open(join(scratch(), 'data'), setup('three'));
    await c.close();
    expect(keyed()).toHaveLength(1);
    const memory = await PgliteDatabase.open(undefined, setup('three'));
    expect(await memory.query('SELECT key FROM made')).toEqual([{ key: 'three' }]);
    await memory.close();
    const again = await PgliteDatabase.open(one, setup('two'));
    expect(await again.query('SELECT key FROM made')).toEqual([{ key: 'one' }]);
    await again.close();
    // Without a setup: initdb's catalog alone, as before.
    const plain = await PgliteDatabase.open(join(scratch(), 'data'));
    expect(await plain.query("SELECT to_regclass('made') IS NULL AS absent")).toEqual([{ absent: true }]);
    await plain.close();
  });

  it("the engine's new data directory starts as a fresh initdb on which the catalog DDL ran: no DDL at its first start", async () => {
    const reference = await PgliteDatabase.open(undefined);
    await reference.transaction((tx) => ensureCatalog(tx));
    const expected = await facts(reference);
    await reference.close();
    const opened = await openDatabase({ dataDir: join(scratch(), 'data') }, silentLogger);
    try {
      const rows = await opened.db.query<{ d: string | null }>("SELECT obj_description('engine_catalog'::regnamespace, 'pg_namespace') AS d");
      expect(rows).toEqual([{ d: REVISION }]);
      expect(await facts(opened.db)).toEqual(expected);
    } finally {
      await opened.db.close();
      opened.release();
    }
  });
});
