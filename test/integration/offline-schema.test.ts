/**
 * `engine metadata schema` builds a role's SDL in its own process (src/project/test/offline-schema.ts): on the migrated
 * database, or on the answers it gave before (recorded beside its dump). The SDL is byte for byte the ephemeral
 * engine's, enum tables included; the recorded answers follow the migrations (a changed migration is another key) and
 * a metadata asking what was not recorded (another enum table) is answered by the database again; a metadata the
 * engine would refuse is left to the engine.
 */
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Row } from '../../src/db/database.js';
import type { Logger } from '../../src/logger.js';
import type { JsonObject } from '../../src/metadata/json.js';
import { buildMetadata } from '../../src/project/metadata-dir/build.js';
import { metadataRoles, roleSdl, startEphemeralEngine } from '../../src/project/test/index.js';
import { openMigrated } from '../../src/project/test/ephemeral.js';
import { offlineMetadata, offlineRoleSchemas, recording, replaying, schemasOffline } from '../../src/project/test/offline-schema.js';
import { silentLogger } from '../../src/logger.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const PROJECTS = [here('../../examples/quickstart'), here('../fixtures/projects/incumbent-v2'), here('../fixtures/projects/real-features')];
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'engine-offline-schema-test-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function sources(project: string, logger: Logger = silentLogger, cacheDir: string | null = null) {
  const built = buildMetadata(join(project, 'metadata'), project, 2);
  if (!built.document) throw new Error(JSON.stringify(built.problems.errors));
  return { projectDir: project, migrationsDirectory: join(project, 'migrations'), built: { ...built, document: built.document as JsonObject }, logger, cacheDir };
}

it("is the ephemeral engine's SDL, byte for byte, on the database and on its recorded answers", async () => {
  for (const project of PROJECTS) {
    const src = sources(project);
    const roles = [...metadataRoles(src.built.document), 'admin', 'nobody'];
    const engine = await startEphemeralEngine({ ...src, seeds: false });
    const expected = new Map<string, string>();
    try {
      for (const role of roles) expected.set(role, await roleSdl(engine.schemaFor, role));
    } finally {
      await engine.close();
    }
    const md = offlineMetadata(src.built.document);
    if (md === null) throw new Error(`${project}: not built offline`);
    const recorded = new Map<string, Row[]>();
    const { db } = await openMigrated(src.migrationsDirectory, null, silentLogger);
    try {
      expect(await schemasOffline(md, recording(db, recorded), roles), project).toEqual(expected);
    } finally {
      await db.close();
    }
    expect(await schemasOffline(md, replaying(recorded), roles), project).toEqual(expected);
  }
}, 600_000);

it('records the answers by the migrated database, asks it again for what was not recorded, leaves refusals to the engine', async () => {
  const project = join(root, 'project');
  const cacheDir = join(root, 'migrated');
  cpSync(PROJECTS[1] as string, project, { recursive: true });
  const lines: string[] = [];
  const logger: Logger = { debug: (m) => lines.push(m), info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
  const run = async (roles = ['admin']) => {
    lines.length = 0;
    const sdl = await offlineRoleSchemas(sources(project, logger, cacheDir), roles, cacheDir);
    return { sdl: sdl?.get(roles[0] as string), replayed: lines.some((l) => l.includes('recorded catalog')) };
  };
  const first = await run();
  expect(first.replayed).toBe(false);
  expect(readdirSync(cacheDir).filter((f) => f.endsWith('.queries'))).toHaveLength(1);
  const second = await run();
  expect(second).toEqual({ sdl: first.sdl, replayed: true });

  // A changed migration: another migrated database, whose catalog is read again.
  const up = join(project, 'migrations', readdirSync(join(project, 'migrations')).sort()[0] as string, 'up.sql');
  appendFileSync(up, '\nALTER TABLE public.profiles ADD COLUMN offline_probe text;\n');
  const migrated = await run();
  expect(migrated.replayed).toBe(false);
  expect(first.sdl).not.toContain('offline_probe');
  expect(migrated.sdl).toContain('offline_probe');
  expect(migrated.sdl).toContain('task_status_enum');
  expect((await run()).replayed).toBe(true);

  // Enum rows are read for the enum tables of the metadata that asks for them: recorded without any, then asked again.
  const tables = join(project, 'metadata', 'tables.yaml');
  const original = readFileSync(tables, 'utf8');
  writeFileSync(tables, original.replace(/\n {2}is_enum: true/, ''));
  const plain = await run();
  expect(plain.replayed).toBe(true);
  expect(plain.sdl).not.toContain('task_status_enum');
  appendFileSync(up, '\n-- another migration, the same database\n');
  expect(await run()).toEqual({ sdl: plain.sdl, replayed: false });
  writeFileSync(tables, original);
  expect(await run()).toEqual({ sdl: migrated.sdl, replayed: false });
  expect(await run()).toEqual({ sdl: migrated.sdl, replayed: true });

  // A permission on a column that does not exist: inconsistent, the engine reports it.
  writeFileSync(tables, original.replace(/columns:\n(\s+)- /, 'columns:\n$1- no_such_column\n$1- '));
  try {
    expect((await run()).sdl).toBeUndefined();
  } finally {
    writeFileSync(tables, original);
  }
}, 600_000);
