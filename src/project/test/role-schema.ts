import { printSchema, type GraphQLSchema } from 'graphql';
import { silentLogger } from '../../logger.js';
import { isObject, type JsonObject } from '../../metadata/json.js';
import type { Step } from '../migrations/migrations.js';
import { migrationSteps, startEphemeralEngine, type ProjectSources } from './ephemeral.js';
import { cacheDirectory } from './migrated-cache.js';
import { readSdl, sdlCacheable, sdlCacheDirectory, sdlKeys, writeSdl } from './sdl-cache.js';

/**
 * `engine metadata schema` (issue 33 point 4): a role's GraphQL schema as SDL, from the ephemeral engine in this
 * process — the schema object its requests of that role are checked and introspected against, so exactly what a
 * client of that role can see. Printed as it is rather than read back from an introspection request: at 1,000 tables
 * the introspection's execution, its JSON and buildClientSchema were two thirds of the command's JavaScript (2 s).
 */
export async function roleSdl(schemaFor: (role: string) => Promise<GraphQLSchema>, role: string): Promise<string> {
  return `${printSchema(await schemaFor(role))}\n`;
}

/** Every role the metadata names: permissions of tables, functions, computed fields and actions, inherited roles. */
export function metadataRoles(metadata: JsonObject): string[] {
  const roles = new Set<string>();
  const fromList = (list: unknown) => {
    if (Array.isArray(list)) for (const p of list) if (isObject(p) && typeof p['role'] === 'string') roles.add(p['role']);
  };
  for (const t of Array.isArray(metadata['tables']) ? metadata['tables'] : []) {
    if (!isObject(t)) continue;
    for (const k of ['select_permissions', 'insert_permissions', 'update_permissions', 'delete_permissions']) fromList(t[k]);
  }
  for (const f of Array.isArray(metadata['functions']) ? metadata['functions'] : []) if (isObject(f)) fromList(f['permissions']);
  for (const a of Array.isArray(metadata['actions']) ? metadata['actions'] : []) if (isObject(a)) fromList(a['permissions']);
  for (const r of Array.isArray(metadata['inherited_roles']) ? metadata['inherited_roles'] : []) {
    if (isObject(r) && typeof r['role_name'] === 'string') roles.add(r['role_name']);
  }
  roles.delete('admin');
  return [...roles].sort();
}

/** A role name as a file name: `<role>.graphql`, characters outside [A-Za-z0-9_.-] written as `_`. */
export const roleFileName = (role: string): string => `${role.replace(/[^A-Za-z0-9_.-]/g, '_')}.graphql`;

/**
 * The SDL of each role, in the order given: from the cache (sdl-cache.ts) when every one is there — no PostgreSQL
 * started —, else built in this process from the migrated database (offline-schema.ts: its recorded catalog, else the
 * database migrated or loaded), else — metadata the engine would refuse, remote schemas — from one ephemeral engine
 * (without seeds); each then saved. `cacheDir` null: no cache (`--no-cache`, as the sources' own cacheDir null).
 */
export async function roleSchemas(src: ProjectSources, roles: string[], cacheDir?: string | null): Promise<Map<string, string>> {
  const log = src.logger ?? silentLogger;
  const dir = cacheDir !== undefined ? cacheDir : src.cacheDir === null ? null : sdlCacheDirectory();
  const document = src.built.document;
  let keys: Map<string, string> | null = null;
  // The migration files are read once, for the SDL's key and for the migrated database's.
  let steps: Step[] | undefined;
  const read = (): Step[] => (steps ??= migrationSteps(src.migrationsDirectory));
  if (dir !== null && sdlCacheable(document)) {
    const { SETUP_KEY } = await import('../../server/catalog.js');
    keys = sdlKeys(SETUP_KEY, read(), document, roles);
  }
  const found = new Map<string, string>();
  for (const [role, key] of keys ?? []) {
    const sdl = readSdl(dir as string, key);
    if (sdl !== null) found.set(role, sdl);
  }
  const missing = roles.filter((r) => !found.has(r));
  if (missing.length > 0 && sdlCacheable(document)) {
    const { offlineRoleSchemas } = await import('./offline-schema.js');
    const migratedDir = src.cacheDir === undefined ? cacheDirectory() : src.cacheDir;
    for (const [role, sdl] of (await offlineRoleSchemas(src, missing, migratedDir, read())) ?? []) {
      found.set(role, sdl);
      const key = keys?.get(role);
      if (key !== undefined) writeSdl(dir as string, key, sdl);
    }
  }
  // No role at all: the engine still starts, so that migrations and metadata that fail are reported as before.
  if (found.size < roles.length || roles.length === 0) {
    const engine = await startEphemeralEngine({ ...src, seeds: false });
    try {
      for (const role of roles) {
        if (found.has(role)) continue;
        const sdl = await roleSdl(engine.schemaFor, role);
        found.set(role, sdl);
        const key = keys?.get(role);
        if (key !== undefined) writeSdl(dir as string, key, sdl);
      }
    } finally {
      await engine.close();
    }
  } else if (missing.length === 0) log.debug(`the SDL of ${roles.join(', ')} loaded from the cache (${dir})`);
  return new Map(roles.map((r) => [r, found.get(r) as string]));
}
