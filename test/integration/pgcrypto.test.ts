/**
 * Issue 29 point 4: the engine's database set-up creates pgcrypto in schema public, as the incumbent's does, so that
 * migrations calling public.gen_random_uuid() work; an external database that refuses it is said once at start.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../src/db/postgres.js';
import type { Database } from '../../src/db/database.js';
import { Engine } from '../../src/server/engine.js';
import type { Logger } from '../../src/logger.js';
import { createTestDatabase, EXTERNAL_URL } from '../helpers/engine.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A logger that keeps what it was told. */
function recording(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, error() {}, warn: (m) => void warnings.push(m) };
}

async function fresh(): Promise<{ db: Database; url?: string }> {
  const t = await createTestDatabase();
  cleanups.push(async () => {
    await t.db.close();
    await t.drop();
  });
  return t;
}

const pgcryptoSchema = async (db: Database) =>
  (await db.query<{ s: string }>("SELECT extnamespace::regnamespace::text AS s FROM pg_extension WHERE extname = 'pgcrypto'"))[0]?.s;

describe('pgcrypto in public', () => {
  it('a database the engine starts on gets pgcrypto in public: a migration may call public.gen_random_uuid()', async () => {
    const { db } = await fresh();
    const log = recording();
    await Engine.start(db, log);
    expect(await pgcryptoSchema(db)).toBe('public');
    await db.runScript('CREATE TABLE t (id uuid PRIMARY KEY DEFAULT public.gen_random_uuid(), h text DEFAULT public.crypt(\'x\', public.gen_salt(\'bf\', 4)))');
    await db.runScript('INSERT INTO t DEFAULT VALUES');
    expect(await db.query('SELECT count(*)::int AS n FROM t WHERE h = public.crypt(\'x\', h)')).toEqual([{ n: 1 }]);
    expect(log.warnings).toEqual([]);
    // A restart finds it there.
    await Engine.start(db, log);
    expect(log.warnings).toEqual([]);
  });

  it('pgcrypto already in another schema is left there', async () => {
    const { db } = await fresh();
    await db.runScript('CREATE SCHEMA extensions; CREATE EXTENSION pgcrypto SCHEMA extensions');
    await Engine.start(db, recording());
    expect(await pgcryptoSchema(db)).toBe('extensions');
  });

  it.runIf(EXTERNAL_URL)('an external database that refuses it: one warning at start, and the engine goes on', async () => {
    const { url } = await fresh();
    // pgcrypto is a trusted extension: CREATE on the database is the right it takes. The role set up the engine's
    // catalog (owning it) while it had that right; the extension is gone and the right taken away since.
    const role = `engine_norights_${randomBytes(4).toString('hex')}`;
    const dbName = new URL(url as string).pathname.slice(1);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE ROLE "${role}" LOGIN; GRANT CREATE ON DATABASE "${dbName}" TO "${role}"`);
    cleanups.push(async () => {
      await admin.query(`DROP OWNED BY "${role}"; DROP ROLE "${role}"`).catch(() => {});
      await admin.end();
    });
    const u = new URL(url as string);
    u.username = role;
    const limited = await PostgresDatabase.connect(u.toString());
    try {
      const log = recording();
      await Engine.start(limited, log);
      expect([log.warnings, await pgcryptoSchema(limited)]).toEqual([[], 'public']);
      await admin.query(`DROP EXTENSION pgcrypto; REVOKE CREATE ON DATABASE "${dbName}" FROM "${role}"`);
      await Engine.start(limited, log);
      expect(log.warnings).toHaveLength(1);
      expect(log.warnings[0]).toBe('could not create extension pgcrypto in schema public (permission denied to create extension "pgcrypto"); ' +
        'migrations that call public.gen_random_uuid() or other pgcrypto functions will fail. Have the database owner run: ' +
        'CREATE EXTENSION pgcrypto SCHEMA public');
      // The engine started: its catalog is there and it answers.
      expect(await limited.query('SELECT resource_version AS v FROM engine_catalog.metadata_globals')).toEqual([{ v: 1 }]);
      expect(await pgcryptoSchema(limited)).toBeUndefined();
      // Said again at the next start (once each), until someone creates it.
      await Engine.start(limited, log);
      expect(log.warnings).toHaveLength(2);
      await admin.query('CREATE EXTENSION pgcrypto SCHEMA public');
      await Engine.start(limited, log);
      expect(log.warnings).toHaveLength(2);
    } finally {
      await limited.close();
    }
  });
});

describe("the embedded engine's pgcrypto files", () => {
  it("are unpacked from PGlite's bundle once per machine; a damaged cache file is unpacked again", { timeout: 300_000 }, async () => {
    const { PGlite } = await import('@electric-sql/pglite');
    const { ExtensionLoader } = await import('../../src/db/pglite-extensions.js');
    const { mkdtempSync, readdirSync, rmSync, truncateSync, statSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const saved = process.env['ENGINE_CACHE_DIR'];
    const cache = mkdtempSync(join(tmpdir(), 'engine-ext-cache-'));
    process.env['ENGINE_CACHE_DIR'] = cache;
    cleanups.push(async () => {
      if (saved === undefined) delete process.env['ENGINE_CACHE_DIR'];
      else process.env['ENGINE_CACHE_DIR'] = saved;
      rmSync(cache, { recursive: true, force: true });
    });
    const digest = async (): Promise<unknown> => {
      const db = await PGlite.create();
      try {
        await new ExtensionLoader(db).loadInstalled(['pgcrypto']);
        await db.exec('CREATE EXTENSION pgcrypto');
        return (await db.query("SELECT encode(public.digest('x', 'sha1'), 'hex') AS h")).rows;
      } finally {
        await db.close();
      }
    };
    const expected = [{ h: '11f6ad8ec52a2984abaafd7c3b516503785c2072' }];
    expect(await digest()).toEqual(expected);
    const [dir] = readdirSync(cache);
    const file = join(cache, dir as string, 'pgcrypto.bin');
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(100_000);
    expect(await digest()).toEqual(expected);
    truncateSync(file, 1000);
    expect(await digest()).toEqual(expected);
    expect(statSync(file).size).toBe(size);
  });
});
