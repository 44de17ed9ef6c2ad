import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PgliteDatabase } from '../../src/db/pglite.js';
import { EMBEDDED_EXTENSIONS } from '../../src/db/pglite-extensions.js';
import { EXTERNAL_URL, useTestEngine } from '../helpers/engine.js';
import { runSql } from '../helpers/assertions.js';

// Issue 12 item 1: every extension PGlite ships can be created on the embedded engine, lazily; the same migrations
// run on the external PostgreSQL (whose contrib package has them too).

const e = useTestEngine();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const USE = `create table tagged (id uuid primary key default uuid_generate_v4(), email citext, tags hstore, path ltree, secret bytea default gen_random_bytes(4));
insert into tagged (email, tags, path) values ('A@x.org', 'a=>1', 'top.mid');
select (select count(*) from tagged where email = 'a@X.ORG') as citext_eq, similarity('engine', 'engines') > 0.5 as trgm,
  (select tags -> 'a' from tagged) as hstore, (select nlevel(path) from tagged) as ltree, length((select secret from tagged)) as crypto,
  encode(digest('abc', 'sha256'), 'hex') = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' as digest`;

describe('extensions (issue 12 item 1)', () => {
  it('creates the extensions real projects use and runs their functions and types', async () => {
    expect(await e.sql('CREATE EXTENSION IF NOT EXISTS pgcrypto; create extension citext; CREATE EXTENSION pg_trgm;\ncreate extension "uuid-ossp"; create extension hstore; create extension ltree'))
      .toEqual({ result_type: 'CommandOk', result: null });
    expect(await e.sql(USE)).toEqual({ result_type: 'TuplesOk', result: [['citext_eq', 'trgm', 'hstore', 'ltree', 'crypto', 'digest'], ['1', 't', '1', '2', '4', 't']] });
  });

  it('creates an extension together with the one it requires (CASCADE)', async () => {
    expect(await e.sql('create extension earthdistance cascade; select round(earth_distance(ll_to_earth(0, 0), ll_to_earth(0, 1))) as m'))
      .toEqual({ result_type: 'TuplesOk', result: [['m'], ['111320']] });
  });

  it.skipIf(EXTERNAL_URL)('names the extension and the way out when the embedded engine lacks it', async () => {
    const r = await e.query(runSql('create extension postgis'));
    expect(r.status).toBe(400);
    expect(r.body.internal.error.message).toBe('extension "postgis" is not available');
    expect(r.body.internal.error.hint).toMatch(/^the embedded engine \(PGlite\) does not ship extension "postgis"; it has amcheck, .*pgcrypto.*uuid-ossp\. Run the engine on a PostgreSQL server that has it: engine serve --database-url /);
  });
});

describe.skipIf(EXTERNAL_URL)('extensions on an embedded data directory', () => {
  it('keeps created extensions working after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-ext-'));
    dirs.push(dir);
    const first = await PgliteDatabase.open(dir);
    await first.runScript('create extension pgcrypto; create extension citext; create extension "uuid-ossp"; create extension hstore; create extension ltree; create extension pg_trgm');
    await first.close();
    const again = await PgliteDatabase.open(dir);
    try {
      const r = await again.runScript(USE);
      expect(r.rows).toEqual([['1', 't', '1', '2', '4', 't']]);
    } finally {
      await again.close();
    }
  });

  it('offers every extension bundle the installed PGlite ships', () => {
    const contrib = join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'contrib');
    const modules = readdirSync(contrib).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3).replace('_ossp', '-ossp'));
    expect([...EMBEDDED_EXTENSIONS.keys()].sort()).toEqual(modules.sort());
  });
});
