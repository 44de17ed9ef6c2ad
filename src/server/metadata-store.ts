import type { Queryable } from '../db/database.js';
import { globalsText, tableEntryText } from '../metadata/document.js';
import type { Metadata } from '../metadata/types.js';
import { VersionedMap } from '../metadata/versioned-map.js';

/*
 * Where the metadata document lives (docs/decisions.md, "metadata storage"): one row per table entry in
 * engine_catalog.metadata_tables, and one row, engine_catalog.metadata_globals, for everything after `tables` and
 * for resource_version. A change of one table writes one small row whatever the number of tables; the single jsonb
 * row of engine-api.md §3.2 grew with the document, and every change rewrote (and WAL-logged) all of it.
 * engine_catalog.metadata stays readable, and writable by UPDATE, as §3.2 describes it: it is now a view assembling
 * the document from these rows. The texts are the canonical §6 texts the engine wrote, so their bytes (and the key
 * order of opaque values) survive a restart; the view's jsonb is for readers only.
 */
export const METADATA_DDL = `
CREATE TABLE IF NOT EXISTS engine_catalog.metadata_globals (
  id integer PRIMARY KEY CHECK (id = 1),
  globals text NOT NULL,
  resource_version integer NOT NULL);
CREATE TABLE IF NOT EXISTS engine_catalog.metadata_tables (
  schema_name text NOT NULL,
  table_name text NOT NULL,
  entry text NOT NULL,
  PRIMARY KEY (schema_name, table_name));
-- Replaces the whole stored document: what an UPDATE of the view and the migration from the single row do.
-- A table named by a string (version 1) is in schema public, as replace_metadata reads it (engine-api.md §4.0).
CREATE OR REPLACE FUNCTION engine_catalog.store_metadata(doc jsonb, version integer) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM engine_catalog.metadata_tables;
  INSERT INTO engine_catalog.metadata_tables (schema_name, table_name, entry)
  SELECT CASE WHEN jsonb_typeof(e->'table') = 'object' THEN coalesce(e->'table'->>'schema', 'public') ELSE 'public' END,
         CASE WHEN jsonb_typeof(e->'table') = 'object' THEN e->'table'->>'name' ELSE e->>'table' END,
         e::text
    FROM jsonb_array_elements(coalesce(doc->'tables', '[]'::jsonb)) AS e;
  INSERT INTO engine_catalog.metadata_globals (id, globals, resource_version)
  VALUES (1, (doc - 'version' - 'tables')::text, version)
  ON CONFLICT (id) DO UPDATE SET globals = EXCLUDED.globals, resource_version = EXCLUDED.resource_version;
END
$fn$;
-- Migration from the single row of engine-api.md §3.2 (data directories and databases of earlier versions).
DO $do$
DECLARE doc jsonb; version integer;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_class WHERE oid = to_regclass('engine_catalog.metadata') AND relkind = 'r') THEN
    SELECT metadata, resource_version INTO doc, version FROM engine_catalog.metadata WHERE id = 1;
    DROP TABLE engine_catalog.metadata;
    IF doc IS NOT NULL THEN PERFORM engine_catalog.store_metadata(doc, version); END IF;
  END IF;
END $do$;
INSERT INTO engine_catalog.metadata_globals (id, globals, resource_version) VALUES (1, '{}', 1) ON CONFLICT (id) DO NOTHING;
CREATE OR REPLACE FUNCTION engine_catalog.write_metadata_view() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.metadata IS DISTINCT FROM OLD.metadata THEN
    PERFORM engine_catalog.store_metadata(NEW.metadata, NEW.resource_version);
  ELSE
    UPDATE engine_catalog.metadata_globals SET resource_version = NEW.resource_version WHERE id = 1;
  END IF;
  RETURN NEW;
END
$fn$;
DO $do$ BEGIN
  IF to_regclass('engine_catalog.metadata') IS NULL THEN
    CREATE VIEW engine_catalog.metadata AS
    SELECT g.id,
           ('{"version":2,"tables":[' ||
            coalesce((SELECT string_agg(t.entry, ',' ORDER BY t.schema_name COLLATE "C", t.table_name COLLATE "C")
                        FROM engine_catalog.metadata_tables t), '') || ']' ||
            CASE WHEN g.globals = '{}' THEN '' ELSE ',' || substr(g.globals, 2, length(g.globals) - 2) END || '}')::jsonb AS metadata,
           g.resource_version
      FROM engine_catalog.metadata_globals g;
    CREATE TRIGGER write_metadata INSTEAD OF UPDATE ON engine_catalog.metadata
      FOR EACH ROW EXECUTE FUNCTION engine_catalog.write_metadata_view();
  END IF;
END $do$;
`;

export interface StoredMetadata {
  version: number;
  /** The stored document, parsed (its table entries in export order). */
  doc: unknown;
}

/** The stored document and resource_version, in one statement. */
export async function readStored(tx: Queryable): Promise<StoredMetadata> {
  const rows = await tx.query<{ v: number; g: string; t: string | null }>(
    `SELECT g.resource_version AS v, g.globals AS g,
            (SELECT string_agg(t.entry, ',' ORDER BY t.schema_name COLLATE "C", t.table_name COLLATE "C")
               FROM engine_catalog.metadata_tables t) AS t
       FROM engine_catalog.metadata_globals g WHERE g.id = 1`,
  );
  const row = rows[0];
  if (!row) throw new Error('engine_catalog.metadata_globals has no row');
  const globals = JSON.parse(row.g) as Record<string, unknown>;
  return { version: Number(row.v), doc: { ...globals, version: 2, tables: JSON.parse(`[${row.t ?? ''}]`) as unknown } };
}

/* One statement: the removed entries go, the new and changed ones are upserted, the rest of the document is replaced
   when it changed ($6 null when not), and resource_version goes up by one. The CTEs touch disjoint keys. */
const WRITE_SQL = `
WITH gone AS (
  DELETE FROM engine_catalog.metadata_tables t USING unnest($1::text[], $2::text[]) AS d(s, n)
   WHERE t.schema_name = d.s AND t.table_name = d.n),
put AS (
  INSERT INTO engine_catalog.metadata_tables (schema_name, table_name, entry)
  SELECT s, n, e FROM unnest($3::text[], $4::text[], $5::text[]) AS u(s, n, e)
  ON CONFLICT (schema_name, table_name) DO UPDATE SET entry = EXCLUDED.entry)
UPDATE engine_catalog.metadata_globals SET globals = coalesce($6::text, globals), resource_version = resource_version + 1
 WHERE id = 1 RETURNING resource_version AS v`;

/**
 * Stores `after` over `before` (what the rows hold) and bumps resource_version. Only the entries that differ are
 * written: entries are immutable and shared between versions, so an unchanged one is the same object, and one
 * rebuilt with the same content (replace_metadata of the same document) has the same canonical text.
 */
export async function writeMetadata(tx: Queryable, before: Metadata, after: Metadata): Promise<number> {
  const gone: [string[], string[]] = [[], []];
  const put: [string[], string[], string[]] = [[], [], []];
  // A copy of the tables knows which keys it wrote; unrelated versions (replace_metadata, a reload) compare whole.
  const keys = VersionedMap.changedKeys(before.tables, after.tables) ?? new Set([...before.tables.keys(), ...after.tables.keys()]);
  for (const key of keys) {
    const old = before.tables.get(key);
    const entry = after.tables.get(key);
    if (entry === undefined) {
      if (old) {
        gone[0].push(old.table.schema);
        gone[1].push(old.table.name);
      }
    } else if (old !== entry && (!old || tableEntryText(old) !== tableEntryText(entry))) {
      put[0].push(entry.table.schema);
      put[1].push(entry.table.name);
      put[2].push(tableEntryText(entry));
    }
  }
  const globals = globalsText(after);
  const rows = await tx.query<{ v: number }>(WRITE_SQL, [...gone, ...put, globals === globalsText(before) ? null : globals]);
  return Number(rows[0]?.v ?? 0);
}
