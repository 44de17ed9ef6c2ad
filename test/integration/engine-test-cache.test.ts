/**
 * The cache of the migrated database of `engine test` and `engine metadata schema` (src/project/test/migrated-cache.ts):
 * a first run migrates and saves, a second loads the saved copy (fromCache, no migration run), a changed migration
 * is a new key (migrated again, its change there), a damaged file is never loaded (migrated again, the file replaced),
 * and without a cache directory nothing is read or written.
 */
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildMetadata } from '../../src/project/metadata-dir/build.js';
import { startEphemeralEngine } from '../../src/project/test/index.js';
import { silentLogger } from '../../src/logger.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/quickstart', import.meta.url));
let root: string;
let project: string;
let cache: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'engine-cache-test-'));
  project = join(root, 'project');
  cache = join(root, 'cache');
  cpSync(EXAMPLE, project, { recursive: true, filter: (src) => !src.includes('.engine') });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Starts the project's engine, returns whether it loaded the cache and the tables of schema public; closes it. */
async function run(cacheDir: string | null): Promise<{ fromCache: boolean; tables: string[]; sdl: string }> {
  const built = buildMetadata(join(project, 'metadata'), project, 2);
  if (!built.document) throw new Error(JSON.stringify(built.problems.errors));
  const engine = await startEphemeralEngine({
    projectDir: project, migrationsDirectory: join(project, 'migrations'), built: { ...built, document: built.document }, seeds: false,
    logger: silentLogger, cacheDir,
  });
  try {
    const rows = await engine.rows<{ t: string }>("SELECT table_name::text AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
    const { printSchema } = await import('graphql');
    return { fromCache: engine.fromCache, tables: rows.map((r) => r.t), sdl: printSchema(await engine.schemaFor('user')) };
  } finally {
    await engine.close();
  }
}

const dumps = () => readdirSync(cache).filter((f) => f.endsWith('.dump'));

it('migrates and saves, then loads the saved copy; the same database and schema either way', async () => {
  const first = await run(cache);
  expect(first.fromCache).toBe(false);
  expect(dumps()).toHaveLength(1);
  expect(first.tables).toContain('article');
  const second = await run(cache);
  expect(second.fromCache).toBe(true);
  expect(second.tables).toEqual(first.tables);
  expect(second.sdl).toBe(first.sdl);
}, 240_000);

it('a changed migration is migrated again (and saved under its own key)', async () => {
  const up = join(project, 'migrations', '1700000000001_article_stats', 'up.sql');
  appendFileSync(up, '\nCREATE TABLE cache_probe (id int PRIMARY KEY);\n');
  const changed = await run(cache);
  expect(changed.fromCache).toBe(false);
  expect(changed.tables).toContain('cache_probe');
  expect(dumps()).toHaveLength(2);
  const again = await run(cache);
  expect(again.fromCache).toBe(true);
  expect(again.tables).toContain('cache_probe');
}, 240_000);

it('a damaged cache file is not loaded: the migrations run and the file is written again', async () => {
  for (const f of dumps()) {
    const bytes = readFileSync(join(cache, f));
    bytes[bytes.length - 100] = (bytes[bytes.length - 100] ?? 0) ^ 0xff;
    writeFileSync(join(cache, f), bytes);
  }
  const damaged = await run(cache);
  expect(damaged.fromCache).toBe(false);
  expect(damaged.tables).toContain('cache_probe');
  const repaired = await run(cache);
  expect(repaired.fromCache).toBe(true);
  // A truncated file too.
  for (const f of dumps()) writeFileSync(join(cache, f), readFileSync(join(cache, f)).subarray(0, 10));
  expect((await run(cache)).fromCache).toBe(false);
}, 240_000);

it('without a cache directory (--no-cache) nothing is read or written', async () => {
  const before = dumps().map((f) => readFileSync(join(cache, f)).length);
  // The dumps are the truncated ones of the test above: a run with the cache would rewrite them.
  expect((await run(null)).fromCache).toBe(false);
  expect(dumps().map((f) => readFileSync(join(cache, f)).length)).toEqual(before);
}, 240_000);
