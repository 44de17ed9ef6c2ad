/**
 * `engine dev`'s watch (issue 33 point 5), its error paths on a copy of the example project and a real engine: a
 * migration that fails is reported at its file:line:col and changes nothing, then applies once fixed; metadata the
 * database cannot hold is rejected at its position while the engine keeps the last good metadata, then applies once
 * the migration it needs arrives; a migration the applied metadata holds back passes once the metadata lets go of
 * what it drops — the watch recovers each time without a restart.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineClient } from '../../src/client/engine-client.js';
import { CliError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { buildMetadata } from '../../src/project/metadata-dir/build.js';
import { DevWatcher, type DevEvent } from '../../src/project/dev/watch.js';
import { shownPath } from '../../src/project/project-file.js';
import { VERSION } from '../../src/version.js';
import { post, startTestEngine, type TestEngine } from '../helpers/engine.js';
import { eventually } from '../helpers/webhook.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/quickstart', import.meta.url));
const SECRET = 'dev-watch';
const T = 180_000;

interface Dev {
  dir: string;
  e: TestEngine;
  events: DevEvent[];
  /** The first event from index `from` on that `pred` accepts (polled, with a deadline). */
  next<K extends DevEvent['kind']>(from: number, kind: K, pred?: (e: Extract<DevEvent, { kind: K }>) => boolean): Promise<Extract<DevEvent, { kind: K }>>;
  versions(): Promise<string[]>;
  write(rel: string, text: string): void;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function dev(): Promise<Dev> {
  const root = mkdtempSync(join(tmpdir(), 'engine-dev-watch-'));
  const dir = join(root, 'project');
  cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !src.includes('.engine') });
  const e = await startTestEngine({ adminSecret: SECRET });
  const client = new EngineClient({ endpoint: e.url, adminSecret: SECRET, timeoutSeconds: 60, logger: silentLogger, version: VERSION, retryDelaysMs: [] });
  const events: DevEvent[] = [];
  const watcher = new DevWatcher({
    projectDir: dir, migrationsDirectory: join(dir, 'migrations'), metadataDirectory: join(dir, 'metadata'),
    seedsDirectory: join(dir, 'seeds'), testsDirectory: join(dir, 'tests'),
    build: () => buildMetadata(join(dir, 'metadata'), dir, 2),
    client,
    sources: () => {
      throw new Error('no test runs here');
    },
    tests: false, freshDatabase: true, debounceMs: 20,
    onEvent: (ev) => void events.push(ev),
  });
  cleanups.push(async () => {
    await watcher.close();
    await client.close();
    await e.close();
    rmSync(root, { recursive: true, force: true });
  });
  function next<K extends DevEvent['kind']>(from: number, kind: K, pred: (e: Extract<DevEvent, { kind: K }>) => boolean = () => true) {
    type E = Extract<DevEvent, { kind: K }>;
    return eventually(() => events.slice(from).find((x): x is E => x.kind === kind && pred(x as E)), 60_000, kind);
  }
  await watcher.start();
  expect(events.map((x) => x.kind)).toEqual(['migrations-applied', 'metadata-applied', 'seeds-applied']);
  return {
    dir, e, events,
    next,
    versions: async () => (await e.db.query<{ v: string }>('SELECT version::text AS v FROM engine_catalog.schema_migrations ORDER BY version')).map((r) => r.v),
    write: (rel, text) => {
      mkdirSync(join(dir, rel, '..'), { recursive: true });
      writeFileSync(join(dir, rel), text);
    },
  };
}

const gql = async (d: Dev, query: string) => (await post(`${d.e.url}/v1/graphql`, { query }, { 'x-engine-admin-secret': SECRET })).body as { data?: unknown; errors?: { message: string }[] };

describe('engine dev: the watch recovers from errors', () => {
  it('a migration that fails: at its file:line:col, nothing applied; fixed, it applies and the watch goes on', async () => {
    const d = await dev();
    const before = await d.e.state();
    const from = d.events.length;
    const up = 'migrations/1700000000002_tag/up.sql';
    d.write(up, 'CREATE TABLE tag (id serial PRIMARY KEY);\nINSERT INTO tag (nosuch) VALUES (1);\n');
    const failed = await d.next(from, 'failed');
    expect(failed.step).toBe('migrations');
    const err = failed.error as CliError;
    expect(err).toBeInstanceOf(CliError);
    expect(err.code).toBe('migration-failed');
    expect(err.message).toBe('migration 1700000000002_tag failed: query execution failed: column "nosuch" of relation "tag" does not exist [postgres-error]');
    expect(err.location).toMatchObject({ file: shownPath(join(d.dir, up)), line: 2, column: 18 });
    // Nothing of it stays: no table, no state row, the same metadata.
    expect(await d.e.state()).toEqual(before);
    expect(await d.versions()).toEqual(['1700000000000', '1700000000001']);

    const again = d.events.length;
    d.write(up, 'CREATE TABLE tag (id serial PRIMARY KEY);\n');
    expect((await d.next(again, 'migrations-applied')).versions).toEqual(['1700000000002']);
    expect(await d.versions()).toEqual(['1700000000000', '1700000000001', '1700000000002']);
    // And the next change is brought over as usual.
    const later = d.events.length;
    const tables = readFileSync(join(d.dir, 'metadata/tables.yaml'), 'utf8');
    d.write('metadata/tables.yaml', `${tables}- table:\n    schema: public\n    name: tag\n`);
    await d.next(later, 'metadata-applied', (x) => x.changed);
    expect((await gql(d, '{ tag { id } }')).data).toEqual({ tag: [] });
  }, T);

  it('metadata the database cannot hold: rejected at its position, the last good metadata kept; the migration it needs makes it apply', async () => {
    const d = await dev();
    const before = await d.e.state();
    const tablesFile = join(d.dir, 'metadata/tables.yaml');
    const tables = readFileSync(tablesFile, 'utf8');
    const line = tables.split('\n').length;
    const from = d.events.length;
    d.write('metadata/tables.yaml', `${tables}- table:\n    schema: public\n    name: label\n`);
    const rejected = await d.next(from, 'metadata-rejected');
    const err = rejected.error as CliError;
    expect(err).toBeInstanceOf(CliError);
    expect(err.code).toBe('server-error');
    expect(err.message).toBe('the engine rejected replace_metadata: cannot continue due to inconsistent metadata: no such table/view exists in postgres : "label" [constraint-violation]');
    // At the table's name in the file.
    expect(err.location).toEqual({ file: 'metadata/tables.yaml', line: line + 2, column: 11, path: '$.args' });
    expect(await d.e.state()).toEqual(before);
    expect((await gql(d, '{ author(limit: 1) { id } }')).data).toEqual({ author: [{ id: 1 }] });

    const again = d.events.length;
    d.write('migrations/1700000000002_label/up.sql', 'CREATE TABLE label (id serial PRIMARY KEY, name text);\n');
    expect((await d.next(again, 'migrations-applied')).versions).toEqual(['1700000000002']);
    await d.next(again, 'metadata-applied', (x) => x.changed);
    expect((await gql(d, '{ label { id name } }')).data).toEqual({ label: [] });
  }, T);

  it('a migration the applied metadata holds back fails, changing nothing; once the metadata lets go, it is applied without touching it', async () => {
    const d = await dev();
    const before = await d.e.state();
    const from = d.events.length;
    d.write('migrations/1700000000002_drop_body/up.sql', 'ALTER TABLE article DROP COLUMN body;\n');
    const failed = await d.next(from, 'failed');
    expect(failed.step).toBe('migrations');
    const err = failed.error as CliError;
    expect(err.code).toBe('migration-failed');
    expect(err.message).toBe('migration 1700000000002_drop_body failed: cannot drop due to the following dependent objects : permission article.user.insert, permission article.user.select, permission article.user.update [dependency-error]');
    expect(await d.e.state()).toEqual(before);
    expect(await d.versions()).toEqual(['1700000000000', '1700000000001']);

    // The permissions stop using the column; the migrations directory is not touched again.
    const again = d.events.length;
    const tables = readFileSync(join(d.dir, 'metadata/tables.yaml'), 'utf8');
    d.write('metadata/tables.yaml', tables.replace(/^ {10}- body\n/gm, ''));
    expect((await d.next(again, 'migrations-applied')).versions).toEqual(['1700000000002']);
    expect(await d.versions()).toEqual(['1700000000000', '1700000000001', '1700000000002']);
    const columns = await d.e.db.query<{ c: string }>("SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'article' AND column_name = 'body'");
    expect(columns).toEqual([]);
    expect((await gql(d, '{ article(limit: 1) { id } }')).errors).toBeUndefined();
  }, T);
});
