/**
 * The cache of a role's SDL of `engine metadata schema` (src/project/test/sdl-cache.ts): a first run builds it on an
 * ephemeral engine and saves it, a second prints the saved copy without starting any engine; a change of the metadata,
 * of a migration or of the role is a new key; a damaged file is built again; a metadata with remote schemas (read from
 * their service at run time) and a run without a cache directory (--no-cache) save nothing.
 */
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Logger } from '../../src/logger.js';
import { buildMetadata } from '../../src/project/metadata-dir/build.js';
import { roleSchemas } from '../../src/project/test/index.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/quickstart', import.meta.url));
let root: string;
let project: string;
let sdlDir: string;
let migratedDir: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'engine-sdl-cache-test-'));
  project = join(root, 'project');
  sdlDir = join(root, 'sdl');
  migratedDir = join(root, 'migrated');
  cpSync(EXAMPLE, project, { recursive: true, filter: (src) => !src.includes('.engine') });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The SDL of `roles`, and whether an engine was started (it always migrates or loads the migrated database). */
async function run(roles: string[], cache: string | null = sdlDir): Promise<{ sdl: Map<string, string>; engine: boolean }> {
  const built = buildMetadata(join(project, 'metadata'), project, 2);
  if (!built.document) throw new Error(JSON.stringify(built.problems.errors));
  const lines: string[] = [];
  const logger: Logger = { debug: (m) => lines.push(m), info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
  const sdl = await roleSchemas({
    projectDir: project, migrationsDirectory: join(project, 'migrations'), built: { ...built, document: built.document }, logger, cacheDir: migratedDir,
  }, roles, cache);
  return { sdl, engine: !lines.some((l) => l.includes('loaded from the cache') && l.includes('SDL')) };
}

const files = () => readdirSync(sdlDir).filter((f) => f.endsWith('.graphql'));

it('builds and saves the SDL, then prints the saved copy without an engine', async () => {
  const first = await run(['user']);
  expect(first.engine).toBe(true);
  expect(first.sdl.get('user')).toContain('type author {');
  expect(files()).toHaveLength(1);
  const second = await run(['user']);
  expect(second.engine).toBe(false);
  expect(second.sdl).toEqual(first.sdl);
}, 240_000);

it('a new role, a changed metadata or a changed migration is a new key', async () => {
  const before = (await run(['user'])).sdl.get('user') as string;
  // Another role: only its SDL is built; both come back in the order asked.
  const two = await run(['anonymous', 'user']);
  expect(two.engine).toBe(true);
  expect([...two.sdl.keys()]).toEqual(['anonymous', 'user']);
  expect(two.sdl.get('user')).toBe(before);
  expect(files()).toHaveLength(2);
  expect((await run(['anonymous', 'user'])).engine).toBe(false);

  const tables = join(project, 'metadata', 'tables.yaml');
  const original = readFileSync(tables, 'utf8');
  // The article's `published_at` no longer readable by user.
  writeFileSync(tables, original.replace('          - published\n          - published_at\n', '          - published\n'));
  try {
    const edited = await run(['user']);
    expect(edited.engine).toBe(true);
    expect(before).toMatch(/type article \{[^}]*published_at/);
    expect(edited.sdl.get('user')).not.toMatch(/type article \{[^}]*published_at/);
  } finally {
    writeFileSync(tables, original);
  }
  expect((await run(['user'])).sdl.get('user')).toBe(before);

  appendFileSync(join(project, 'migrations', '1700000000001_article_stats', 'up.sql'), '\nCREATE TABLE sdl_probe (id int PRIMARY KEY);\n');
  const migrated = await run(['user']);
  expect(migrated.engine).toBe(true);
  expect(migrated.sdl.get('user')).toBe(before);
}, 240_000);

it('a damaged file is built again and replaced', async () => {
  for (const f of files()) {
    const bytes = readFileSync(join(sdlDir, f));
    bytes[bytes.length - 10] = (bytes[bytes.length - 10] ?? 0) ^ 0xff;
    writeFileSync(join(sdlDir, f), bytes);
  }
  const damaged = await run(['user']);
  expect(damaged.engine).toBe(true);
  expect(damaged.sdl.get('user')).toContain('type author {');
  expect((await run(['user'])).engine).toBe(false);
}, 240_000);

it('nothing is saved without a cache directory, nor for a metadata with remote schemas', async () => {
  rmSync(sdlDir, { recursive: true, force: true });
  expect((await run(['user'], null)).engine).toBe(true);
  expect((await run(['user'], null)).engine).toBe(true);
  const remotes = join(project, 'metadata', 'remote_schemas.yaml');
  writeFileSync(remotes, '- name: other\n  definition:\n    url: http://127.0.0.1:9/graphql\n    timeout_seconds: 1\n');
  try {
    await run(['user']).catch(() => undefined);
    expect(() => files()).toThrow();
  } finally {
    writeFileSync(remotes, '[]\n');
  }
}, 240_000);
