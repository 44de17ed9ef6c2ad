import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { PgliteDatabase } from '../../src/db/pglite.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { documentText, parseDocument } from '../../src/metadata/document.js';
import { Engine } from '../../src/server/engine.js';
import { silentLogger } from '../../src/logger.js';
import { createTestDatabase, EXTERNAL_URL, post, startOn, type Reply } from '../helpers/engine.js';

/**
 * Issue 18: the metadata moved from the single jsonb row of engine-api.md §3.2 to one row per table entry
 * (src/server/metadata-store.ts). Catalogs of the old layout are built here by the old DDL and row, as an earlier
 * version left them, and must open with the same export, byte for byte, and the same resource_version.
 */

/** The catalog's metadata table as earlier versions created it, with its one row. */
async function oldLayout(db: Database, doc: unknown, version: number): Promise<void> {
  await db.runScript(`CREATE SCHEMA IF NOT EXISTS engine_catalog;
    CREATE TABLE engine_catalog.metadata (
      id integer PRIMARY KEY CHECK (id = 1),
      metadata jsonb NOT NULL,
      resource_version integer NOT NULL)`);
  await db.query('INSERT INTO engine_catalog.metadata (id, metadata, resource_version) VALUES (1, $1::jsonb, $2)', [JSON.stringify(doc), version]);
}

const qt = (name: string, schema = 'public') => ({ schema, name });

/** Most kinds of the format; a version-1 table name (a string) and non-ASCII names too. */
const OLD_DOC = {
  version: 2,
  tables: [
    {
      table: qt('author'),
      array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } }, comment: 'ü' }],
      select_permissions: [
        { role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Engine-User-Id' } }, limit: 5, allow_aggregations: true } },
        { role: 'anon', permission: { columns: ['id'], filter: {} } },
      ],
    },
    {
      table: qt('article'),
      object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
      insert_permissions: [{ role: 'user', permission: { check: { author_id: { _eq: 'X-Engine-User-Id' } }, set: { author_id: 'x-engine-user-id' }, columns: ['title'] } }],
      update_permissions: [{ role: 'user', permission: { columns: ['title'], filter: { author: { id: { _eq: 'X-Engine-User-Id' } } }, check: null } }],
      delete_permissions: [{ role: 'user', permission: { filter: { author_id: { _eq: 'X-Engine-User-Id' } } } }],
      event_triggers: [{
        name: 'article_created', definition: { enable_manual: true, insert: { columns: '*' } },
        retry_conf: { num_retries: 1, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://127.0.0.1:9/hook',
      }],
    },
    { table: 'legacy' },
    { table: qt('ärger', 'straße') },
  ],
  functions: [{ function: qt('search_articles') }],
  actions: [{ name: 'login', definition: { handler: 'http://127.0.0.1:9/login', output_type: 'Token', arguments: [{ name: 'user', type: 'String!' }], kind: 'synchronous' }, permissions: [{ role: 'user' }] }],
  custom_types: { objects: [{ name: 'Token', fields: [{ name: 'token', type: 'String!' }] }] },
  inherited_roles: [{ role_name: 'both', role_set: ['user', 'anon'] }],
};

/** What an engine of the old layout exported for the stored document: its canonical text (engine-api.md §6). */
const EXPECTED = documentText(parseDocument(OLD_DOC, '$'));

async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function exported(db: Database): Promise<{ text: string; version: number; reply: Reply }> {
  const s = await startOn(db);
  try {
    const reply = await post(`${s.url}/v1/query`, { type: 'export_metadata', args: {} });
    expect(reply.status).toBe(200);
    return { text: reply.text, version: Number(reply.headers.get('x-engine-resource-version')), reply };
  } finally {
    await closeServer(s.server);
  }
}

const relkind = async (db: Database): Promise<string | undefined> =>
  (await db.query<{ k: string }>("SELECT relkind::text AS k FROM pg_class WHERE oid = to_regclass('engine_catalog.metadata')"))[0]?.k;

/** The checks of one database holding the old layout, opened and reopened through `open`. */
async function opensOldLayout(open: () => Promise<Database>): Promise<void> {
  let db = await open();
  await oldLayout(db, OLD_DOC, 7);
  expect(await relkind(db)).toBe('r');

  const first = await exported(db);
  expect(first.text).toBe(EXPECTED);
  expect(first.version).toBe(7);
  // The old table is now a view over the new rows, readable as §3.2 describes it.
  expect(await relkind(db)).toBe('v');
  // Entries are kept as stored (a version-1 name stays a string, permissions unsorted) until their entry is next
  // written, as in the old row; the view lists them in export order.
  const t = OLD_DOC.tables;
  const view = { ...OLD_DOC, tables: [t[1], t[0], t[2], t[3]] };
  const row = await db.query<{ metadata: unknown; resource_version: number }>('SELECT metadata, resource_version FROM engine_catalog.metadata');
  expect(row).toEqual([{ metadata: view, resource_version: 7 }]);

  // One change, then a restart: the rows written by the change are what the next start reads.
  const s = await startOn(db);
  const change = await post(`${s.url}/v1/query`, { type: 'drop_select_permission', args: { table: 'author', role: 'anon' } });
  expect(change.status).toBe(200);
  expect(change.headers.get('x-engine-resource-version')).toBe('8');
  const afterChange = await post(`${s.url}/v1/query`, { type: 'export_metadata', args: {} });
  await closeServer(s.server);
  await db.close();
  db = await open();
  const again = await exported(db);
  expect(again.text).toBe(afterChange.text);
  expect(again.version).toBe(8);
  expect(JSON.parse(again.text).tables[1].select_permissions.map((p: { role: string }) => p.role)).toEqual(['user']);
  await db.close();
}

describe('a catalog of the single-row layout (engine-api.md §3.2) opens with the same metadata', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const dataDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'engine-storage-'));
    dirs.push(d);
    return join(d, 'data');
  };

  it('on a PGlite data directory', async () => {
    const dir = dataDir();
    await opensOldLayout(() => PgliteDatabase.open(dir));
  });

  it.runIf(EXTERNAL_URL)('on the external PostgreSQL', async () => {
    const created = await createTestDatabase();
    await created.db.close();
    try {
      await opensOldLayout(() => PostgresDatabase.connect(created.url as string));
    } finally {
      await created.drop();
    }
  });

  it('an old row the new layout cannot hold (two entries for one table) fails start-up and is left as it was', async () => {
    const dir = dataDir();
    const db = await PgliteDatabase.open(dir);
    try {
      const doc = { version: 2, tables: [{ table: qt('t') }, { table: 't' }] };
      await oldLayout(db, doc, 3);
      await expect(Engine.start(db, silentLogger)).rejects.toThrow(/duplicate key value violates unique constraint "metadata_tables_pkey"/);
      expect(await relkind(db)).toBe('r');
      expect(await db.query('SELECT metadata, resource_version FROM engine_catalog.metadata')).toEqual([{ metadata: doc, resource_version: 3 }]);
      expect(await db.query("SELECT to_regclass('engine_catalog.metadata_tables') AS t")).toEqual([{ t: null }]);
    } finally {
      await db.close();
    }
  });
});

describe('engine_catalog.metadata, a view, is still written by UPDATE', () => {
  it('a document and version written into it are what the engine then serves', async () => {
    const created = await createTestDatabase();
    try {
      await Engine.start(created.db, silentLogger);
      await created.db.query('UPDATE engine_catalog.metadata SET metadata = $1::jsonb, resource_version = 41', [JSON.stringify(OLD_DOC)]);
      const e = await exported(created.db);
      expect(e.text).toBe(EXPECTED);
      expect(e.version).toBe(41);
      // The version alone, as the test helper's reset and an operator's UPDATE write it.
      await created.db.query('UPDATE engine_catalog.metadata SET resource_version = 1');
      expect((await exported(created.db)).version).toBe(1);
      expect(await created.db.query<{ n: number }>('SELECT count(*)::int AS n FROM engine_catalog.metadata_tables')).toEqual([{ n: 4 }]);
    } finally {
      await created.db.close();
      await created.drop();
    }
  });
});
