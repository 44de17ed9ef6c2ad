import { restEndpointJson } from '../metadata/kinds/rest-endpoints.js';
import { compareCodePoints } from '../metadata/json.js';
import type { Metadata } from '../metadata/types.js';
import type { DbCatalog } from './db-catalog.js';
import { adminSchemaProblem } from './graphql/request/index.js';
import { buildRoleSchema } from './graphql/schema/index.js';
import type { InconsistentObject } from './inconsistency.js';
import { resolve as resolveObjects, type SchemaCache } from './schema-cache.js';
import { resolveRemoteRels, resolveRemotes, resolveToTables } from './remote-schemas/index.js';
import { inheritedRecords } from './remote-schemas/inherited.js';

/**
 * The schema cache with every consistency check: schema-cache.ts resolves the objects against the database, and a
 * REST endpoint (issue 20) is then checked against the admin GraphQL schema that those objects make. The schema is
 * built only when there are endpoints.
 */
export function resolve(metadata: Metadata, catalog: DbCatalog, prev?: SchemaCache): SchemaCache {
  const cache = withRemotes(resolveObjects(metadata, catalog, prev));
  if (metadata.rest_endpoints.size === 0) return cache;
  const schema = buildRoleSchema(cache, 'admin');
  const records: InconsistentObject[] = [];
  for (const r of [...metadata.rest_endpoints.values()].sort((a, b) => compareCodePoints(a.name, b.name))) {
    const q = metadata.query_collections.get(r.query.collection_name)?.queries.find((x) => x.name === r.query.query_name);
    const problem = q ? adminSchemaProblem(cache, q.query, schema) : `query "${r.query.query_name}" of collection "${r.query.collection_name}" does not exist`;
    if (problem === null) continue;
    const reason = q ? `in rest endpoint "${r.name}": query "${q.name}" of collection "${r.query.collection_name}" is not valid: ${problem}` : `in rest endpoint "${r.name}": ${problem}`;
    records.push({ id: restEndpointId(r.name), type: 'rest_endpoint', definition: restEndpointJson(r), reason });
  }
  if (records.length === 0) return cache;
  const inconsistent = [...cache.inconsistent, ...records];
  return { ...cache, inconsistent, inconsistentIds: new Set(inconsistent.map((o) => o.id)) };
}

/** Remote schemas merge with the database's schema (the admin one, built without them) only when nothing collides. */
function withRemotes(cache: SchemaCache): SchemaCache {
  const anyRels = [...cache.tables.values()].some((t) => (t.entry.extras?.remote_relationships?.length ?? 0) > 0);
  if (cache.metadata.remote_schemas.size === 0 && !anyRels) return cache;
  const { remotes, records } = cache.metadata.remote_schemas.size === 0
    ? { remotes: new Map(), records: [] }
    : resolveRemotes(cache.metadata, buildRoleSchema(cache, 'admin'));
  // Table → remote schema relationships need the remotes merged first (issue 35.3).
  const rels = anyRels ? resolveRemoteRels(cache.tables, remotes) : { rels: new Map(), records: [] };
  const toTable = resolveToTables([...cache.metadata.remote_schemas.values()].filter((r) => r.remote_relationships.length > 0), remotes, cache.tables);
  const inherited = cache.metadata.inherited_roles.size > 0 ? inheritedRecords(cache.metadata, remotes) : [];
  const inconsistent = [...cache.inconsistent, ...records, ...rels.records, ...toTable.records, ...inherited];
  return {
    ...cache, remotes, remoteRels: rels.rels, remoteToTable: toTable.rels, inconsistent, inconsistentIds: new Set(inconsistent.map((o) => o.id)),
  };
}

export const restEndpointId = (name: string): string => `rest_endpoint::${name}`;
