import { printSchema } from 'graphql';
import type { Queryable, Row, ScriptResult } from '../../db/database.js';
import { checkDocumentDuplicates, parseDocumentEntries, toMetadata } from '../../metadata/document.js';
import type { JsonObject } from '../../metadata/json.js';
import type { Metadata } from '../../metadata/types.js';
import { silentLogger } from '../../logger.js';
import { introspect } from '../../server/db-catalog.js';
import { enumTypes, SchemaStore } from '../../server/graphql/schema/index.js';
import { resolve } from '../../server/resolve.js';
import type { Step } from '../migrations/migrations.js';
import { migrationPlan, openMigrated, type ProjectSources } from './ephemeral.js';
import { readCached, writeCached } from './migrated-cache.js';

/**
 * The roles' SDL of `engine metadata schema` (issue 33) built in this process, without an engine: the schema cache is
 * a function of the metadata and of what the engine reads from the migrated database — its catalog introspection and
 * the rows of enum tables — and the role's schema a function of that cache. So the steps the ephemeral engine takes
 * (replace_metadata's parse, strict resolve, GraphqlService.schemaFor) run here on `q`: the migrated database itself,
 * or the answers it gave to the same statements before (recorded). offlineMetadata: the metadata as the engine parses
 * it, null when the engine would refuse it or could take another path (no tables): the caller then starts the engine,
 * whose error or schema is the reference.
 */
export function offlineMetadata(document: JsonObject): Metadata | null {
  let md: Metadata;
  try {
    // As the engine receives it: the document through JSON (replace_metadata's request body).
    const parsed = parseDocumentEntries(JSON.parse(JSON.stringify(document)) as unknown, '$.args.metadata');
    checkDocumentDuplicates(parsed);
    md = toMetadata(parsed);
  } catch {
    return null;
  }
  // Without tables the engine resolves incrementally over its start-up cache; remote schemas are read at run time.
  return md.tables.size === 0 || md.remote_schemas.size > 0 ? null : md;
}

/** The SDL of each role on the metadata of offlineMetadata; null when the engine would refuse it (inconsistent). */
export async function schemasOffline(md: Metadata, q: Queryable, roles: string[]): Promise<Map<string, string> | null> {
  const cache = resolve(md, await introspect(q));
  if (cache.inconsistent.length > 0) return null;
  const enums = await enumTypes(cache, q);
  const store = new SchemaStore();
  return new Map(roles.map((role) => [role, `${printSchema(store.get(cache, role, false, enums))}\n`]));
}

/** A statement whose answer was not recorded: the caller asks the database itself. */
export class Unrecorded extends Error {}

const keyOf = (sql: string, params: unknown[] | undefined): string => JSON.stringify([sql, params ?? []]);

/** The answers of the statements run through `db`, by statement and parameters, added to `into`. */
export function recording(db: Queryable, into: Map<string, Row[]>): Queryable {
  return {
    async query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]> {
      const rows = await db.query<T>(sql, params);
      // Only what JSON keeps as it is (text, numbers, booleans): anything else is asked of the database every time.
      if (plain(rows)) into.set(keyOf(sql, params), rows);
      return rows;
    },
    runScript: (): Promise<ScriptResult> => Promise.reject(new Unrecorded('scripts are not recorded')),
  };
}

function plain(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (Array.isArray(v)) return v.every(plain);
  return typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype && Object.values(v as object).every(plain);
}

/** The recorded answers; a statement not recorded throws Unrecorded. */
export function replaying(recorded: Map<string, Row[]>): Queryable {
  return {
    query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]> {
      const rows = recorded.get(keyOf(sql, params));
      return rows ? Promise.resolve(structuredClone(rows) as T[]) : Promise.reject(new Unrecorded(sql.slice(0, 60)));
    },
    runScript: (): Promise<ScriptResult> => Promise.reject(new Unrecorded('scripts are not recorded')),
  };
}

/** Recorded answers as saved (JSON: statements' results are JSON values as the engine's catalog reads ask for them). */
export const recordedBytes = (recorded: Map<string, Row[]>): Buffer => Buffer.from(JSON.stringify([...recorded]), 'utf8');

export function recordedFrom(bytes: Uint8Array): Map<string, Row[]> | null {
  try {
    const list = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as unknown;
    return Array.isArray(list) ? new Map(list as [string, Row[]][]) : null;
  } catch {
    return null;
  }
}

/**
 * The roles' SDL without an engine (schemasOffline): on the answers recorded for the migrated database (beside its
 * dump, `<key>.queries`: its key covers PGlite, the catalog's set-up and every migration; a statement of another
 * engine build or of another metadata's enum table is simply not found there), else on the migrated database itself
 * — loaded from its dump or migrated —, whose answers are then recorded. Null: the engine builds it (schemasOffline).
 */
export async function offlineRoleSchemas(src: ProjectSources, roles: string[], cacheDir: string | null, read?: Step[]): Promise<Map<string, string> | null> {
  const log = src.logger ?? silentLogger;
  const md = offlineMetadata(src.built.document);
  if (md === null) return null;
  const plan = await migrationPlan(src.migrationsDirectory, cacheDir, read);
  const bytes = plan.key !== null ? readCached(cacheDir as string, plan.key, 'queries') : null;
  const recorded = (bytes && recordedFrom(bytes)) ?? new Map<string, Row[]>();
  if (recorded.size > 0) {
    try {
      const sdl = await schemasOffline(md, replaying(recorded), roles);
      if (sdl !== null) log.debug(`the SDL of ${roles.join(', ')} built from the migrated database's recorded catalog (${cacheDir})`);
      return sdl;
    } catch (e) {
      if (!(e instanceof Unrecorded)) throw e;
    }
  }
  const { db, saved } = await openMigrated(src.migrationsDirectory, cacheDir, log, plan);
  try {
    const size = recorded.size;
    // Parsed again after a replay that fell short: nothing of that attempt is reused.
    const sdl = await schemasOffline(recorded.size > 0 ? offlineMetadata(src.built.document) as Metadata : md, recording(db, recorded), roles);
    if (plan.key !== null && recorded.size > size) writeCached(cacheDir as string, plan.key, recordedBytes(recorded), 'queries');
    return sdl;
  } finally {
    await db.close();
    await saved;
  }
}
