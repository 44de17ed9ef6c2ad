import { badRequest, parseFailed } from '../errors.js';
import { compareCodePoints, type Json, type JsonObject } from './json.js';
import { at, arr, idx, obj, opt, qualifiedName, req } from './reader.js';
import { qnJson, qnKey, qnText } from './names.js';
import { parseRelationship, relationshipJson } from './kinds/relationships.js';
import { functionEntryJson, parseFunctionEntry } from './kinds/functions.js';
import { computedFieldJson, parseComputedField } from './kinds/computed-fields.js';
import { parsePermission, permField, permissionJson } from './kinds/permissions.js';
import { eventTriggerJson, parseEventTrigger } from './kinds/event-triggers.js';
import { actionJson, customTypesJson, emptyCustomTypes, parseAction, parseCustomTypes } from './kinds/actions.js';
import { checkInheritance, inheritedRoleJson, parseInheritedRole } from './kinds/inherited-roles.js';
import { cronTriggerJson, parseCronTrigger, type CronTrigger } from './kinds/cron-triggers.js';
import { parseAllowlistEntry, parseQueryCollection, queryCollectionJson, type QueryCollection } from './kinds/query-collections.js';
import { checkRestCollisions, parseRestEndpoint, restEndpointJson, type RestEndpoint } from './kinds/rest-endpoints.js';
import { parseTableExtras } from './kinds/unsupported.js';
import { parseRemoteSchema, remoteSchemaJson, type RemoteSchema } from './kinds/remote-schemas.js';
import { parseRemoteRelDefinition } from './kinds/remote-relationships.js';
import { apiLimitsJson, parseApiLimits, type ApiLimits } from './kinds/api-limits.js';
import { VersionedMap } from './versioned-map.js';
import { PERM_KINDS, type Action, type CustomTypes, type FunctionEntry, type InheritedRole, type Metadata, type QualifiedName, type TableEntry } from './types.js';

export const emptyMetadata = (): Metadata => ({
  tables: new Map(), functions: new Map(), actions: new Map(), custom_types: emptyCustomTypes(), inherited_roles: new Map(),
  cron_triggers: new Map(), query_collections: new Map(), allowlist: [], rest_endpoints: new Map(), remote_schemas: new Map(),
});

export const newTableEntry = (table: QualifiedName): TableEntry => ({
  table,
  object_relationships: [],
  array_relationships: [],
  computed_fields: [],
  insert_permissions: [],
  select_permissions: [],
  update_permissions: [],
  delete_permissions: [],
  event_triggers: [],
});

const TOP_KEYS = ['version', 'tables', 'functions', 'remote_schemas', 'query_collections', 'allowlist', 'actions', 'custom_types', 'cron_triggers', 'rest_endpoints', 'inherited_roles', 'api_limits', 'query_templates'];
const TABLE_KEYS = [
  'table', 'is_enum', 'configuration', 'object_relationships', 'array_relationships', 'computed_fields',
  'remote_relationships', 'insert_permissions', 'select_permissions', 'update_permissions', 'delete_permissions',
  'event_triggers',
];

/** Optional list key: absent, null and [] are all "empty". */
function list(o: JsonObject, key: string, path: string): Json[] {
  const v = opt(o, key);
  return v === undefined ? [] : arr(v, at(path, key));
}

/** Names declared more than once, each once, in order of first repetition. */
export function duplicates(names: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const n of names) {
    if (seen.has(n) && !out.includes(n)) out.push(n);
    seen.add(n);
  }
  return out;
}

function checkDuplicates(names: string[], kind: string, path: string): void {
  const dups = duplicates(names);
  if (dups.length > 0) {
    throw badRequest('already-exists', path, `multiple declarations exist for the following ${kind} : ${dups.map((d) => `"${d}"`).join(', ')}`);
  }
}

/** `engine` rejects the §6.5 keys unless empty; `project` (the CLI) keeps them. */
export type DocumentMode = 'engine' | 'project';

function parseTable(v: Json, path: string, mode: DocumentMode): TableEntry {
  const o = obj(v, path);
  const unknown = Object.keys(o).filter((k) => !TABLE_KEYS.includes(k));
  if (unknown.length > 0) throw parseFailed(path, `unexpected keys in table metadata: ${unknown.map((k) => `"${k}"`).join(', ')}`);
  const entry = newTableEntry(qualifiedName(req(o, 'table', path), at(path, 'table')));
  const extras = parseTableExtras(o, path);
  // The engine reads each remote relationship's definition now (issue 35.3); the project tool keeps it as written.
  if (mode === 'engine') extras.remote_relationships?.forEach((r, i) => parseRemoteRelDefinition(r['definition'], at(idx(at(path, 'remote_relationships'), i), 'definition')));
  if (Object.keys(extras).length > 0) entry.extras = extras;
  entry.object_relationships = list(o, 'object_relationships', path).map((r, i) =>
    parseRelationship('object', r, idx(at(path, 'object_relationships'), i)));
  entry.array_relationships = list(o, 'array_relationships', path).map((r, i) =>
    parseRelationship('array', r, idx(at(path, 'array_relationships'), i)));
  entry.computed_fields = list(o, 'computed_fields', path).map((c, i) => parseComputedField(c, idx(at(path, 'computed_fields'), i)));
  for (const kind of PERM_KINDS) {
    const f = permField(kind);
    entry[f] = list(o, f, path).map((p, i) => parsePermission(kind, p, idx(at(path, f), i)));
  }
  entry.event_triggers = list(o, 'event_triggers', path).map((e, i) => parseEventTrigger(e, idx(at(path, 'event_triggers'), i)));
  return entry;
}

/** A document parsed entry by entry, before duplicates are looked for (§4.8.2 steps 1 and 3 are apart). */
export interface ParsedDocument {
  path: string;
  tables: TableEntry[];
  functions: FunctionEntry[];
  actions: Action[];
  customTypes: CustomTypes;
  inheritedRoles: InheritedRole[];
  cronTriggers: CronTrigger[];
  queryCollections: QueryCollection[];
  allowlist: string[];
  restEndpoints: RestEndpoint[];
  remoteSchemas: RemoteSchema[];
  apiLimits?: ApiLimits;
}

/** Step 1 of §4.8.2: strict parsing; unknown keys and unsupported sections fail at their path. */
export function parseDocumentEntries(v: unknown, path: string, mode: DocumentMode = 'engine'): ParsedDocument {
  const o = obj(v, path);
  const unknown = Object.keys(o).filter((k) => !TOP_KEYS.includes(k));
  if (unknown.length > 0) throw parseFailed(path, `unexpected keys in metadata: ${unknown.map((k) => `"${k}"`).join(', ')}`);
  const version = opt(o, 'version');
  if (version !== undefined && version !== 2) {
    throw parseFailed(at(path, 'version'), `expected one of 2, encountered ${JSON.stringify(version)}`);
  }
  // The incumbent's version 1 metadata writes `query_templates: []`; templates themselves have no equivalent.
  const templates = opt(o, 'query_templates');
  if (templates !== undefined && templates !== null && arr(templates, at(path, 'query_templates')).length > 0) {
    throw badRequest('not-supported', at(path, 'query_templates'), '"query_templates" is not supported (the incumbent\'s version 1 query templates); only an empty list is accepted');
  }
  const tablesPath = at(path, 'tables');
  const functionsPath = at(path, 'functions');
  const actionsPath = at(path, 'actions');
  const ctV = opt(o, 'custom_types');
  const limits = opt(o, 'api_limits');
  return {
    path,
    tables: list(o, 'tables', path).map((t, i) => parseTable(t, idx(tablesPath, i), mode)),
    functions: list(o, 'functions', path).map((f, i) => parseFunctionEntry(f, idx(functionsPath, i))),
    actions: list(o, 'actions', path).map((a, i) => parseAction(a, idx(actionsPath, i))),
    customTypes: ctV === undefined ? emptyCustomTypes() : parseCustomTypes(ctV, at(path, 'custom_types')),
    inheritedRoles: list(o, 'inherited_roles', path).map((r, i) => parseInheritedRole(r, idx(at(path, 'inherited_roles'), i))),
    cronTriggers: list(o, 'cron_triggers', path).map((c, i) => parseCronTrigger(c, idx(at(path, 'cron_triggers'), i))),
    queryCollections: list(o, 'query_collections', path).map((c, i) => parseQueryCollection(c, idx(at(path, 'query_collections'), i))),
    allowlist: list(o, 'allowlist', path).map((c, i) => parseAllowlistEntry(c, idx(at(path, 'allowlist'), i))),
    restEndpoints: list(o, 'rest_endpoints', path).map((r, i) => parseRestEndpoint(r, idx(at(path, 'rest_endpoints'), i))),
    remoteSchemas: list(o, 'remote_schemas', path).map((r, i) => parseRemoteSchema(r, idx(at(path, 'remote_schemas'), i))),
    ...(limits === undefined ? {} : { apiLimits: parseApiLimits(limits, at(path, 'api_limits')) }),
  };
}

/** Step 3 of §4.8.2: duplicate declarations, in the specified order. */
export function checkDocumentDuplicates(d: ParsedDocument): void {
  const tablesPath = at(d.path, 'tables');
  const actionsPath = at(d.path, 'actions');
  checkDuplicates(d.tables.map((t) => qnText(t.table)), 'tables', tablesPath);
  d.tables.forEach((t, i) => {
    const here = idx(tablesPath, i);
    checkDuplicates([...t.object_relationships, ...t.array_relationships].map((r) => r.name), 'relationships', here);
    checkDuplicates(t.computed_fields.map((c) => c.name), 'computed fields', here);
    for (const kind of PERM_KINDS) checkDuplicates(t[permField(kind)].map((p) => p.role), `${kind} permissions`, here);
  });
  checkDuplicates(d.tables.flatMap((t) => t.event_triggers.map((e) => e.name)), 'event triggers', tablesPath);
  checkDuplicates(d.functions.map((f) => qnText(f.function)), 'functions', at(d.path, 'functions'));
  checkDuplicates(d.actions.map((a) => a.name), 'actions', actionsPath);
  d.actions.forEach((a, i) => checkDuplicates(a.permissions.map((p) => p.role), 'action permissions', idx(actionsPath, i)));
  checkDuplicates(d.inheritedRoles.map((r) => r.role_name), 'inherited roles', at(d.path, 'inherited_roles'));
  checkInheritance(d.inheritedRoles, at(d.path, 'inherited_roles'));
  checkDuplicates(d.cronTriggers.map((c) => c.name), 'cron triggers', at(d.path, 'cron_triggers'));
  checkDuplicates(d.queryCollections.map((c) => c.name), 'query collections', at(d.path, 'query_collections'));
  checkDuplicates(d.allowlist, 'allowlist entries', at(d.path, 'allowlist'));
  checkDuplicates(d.restEndpoints.map((r) => r.name), 'rest endpoints', at(d.path, 'rest_endpoints'));
  checkDuplicates(d.remoteSchemas.map((r) => r.name), 'remote schemas', at(d.path, 'remote_schemas'));
  d.remoteSchemas.forEach((r, i) => checkDuplicates(r.permissions.map((p) => p.role), 'remote schema permissions', idx(at(d.path, 'remote_schemas'), i)));
  checkReferences(d);
}

/** Allow-list entries and REST endpoints name collections (and queries) of the same document. */
function checkReferences(d: ParsedDocument): void {
  const collections = new Map(d.queryCollections.map((c) => [c.name, c]));
  d.allowlist.forEach((name, i) => {
    if (!collections.has(name)) throw badRequest('not-exists', at(idx(at(d.path, 'allowlist'), i), 'collection'), `query collection "${name}" does not exist`);
  });
  d.restEndpoints.forEach((r, i) => {
    const p = at(at(idx(at(d.path, 'rest_endpoints'), i), 'definition'), 'query');
    const c = collections.get(r.query.collection_name);
    if (!c) throw badRequest('not-exists', at(p, 'collection_name'), `query collection "${r.query.collection_name}" does not exist`);
    if (!c.queries.some((q) => q.name === r.query.query_name)) {
      throw badRequest('not-exists', at(p, 'query_name'), `query "${r.query.query_name}" does not exist in collection "${c.name}"`);
    }
  });
  checkRestCollisions(d.restEndpoints, at(d.path, 'rest_endpoints'));
}

export function toMetadata(d: ParsedDocument): Metadata {
  const md = emptyMetadata();
  for (const t of d.tables) md.tables.set(qnKey(t.table), t);
  for (const f of d.functions) md.functions.set(qnKey(f.function), f);
  for (const a of d.actions) md.actions.set(a.name, a);
  md.custom_types = d.customTypes;
  for (const r of d.inheritedRoles) md.inherited_roles.set(r.role_name, r);
  for (const c of d.cronTriggers) md.cron_triggers.set(c.name, c);
  for (const c of d.queryCollections) md.query_collections.set(c.name, c);
  md.allowlist = [...new Set(d.allowlist)];
  for (const r of d.restEndpoints) md.rest_endpoints.set(r.name, r);
  for (const r of d.remoteSchemas) md.remote_schemas.set(r.name, r);
  if (d.apiLimits) md.api_limits = d.apiLimits;
  return md;
}

/** Parses a whole document strictly: parse errors and duplicate declarations fail at their path. */
export function parseDocument(v: unknown, path: string): Metadata {
  const d = parseDocumentEntries(v, path);
  checkDocumentDuplicates(d);
  return toMetadata(d);
}

const byName = <T extends { name: string }>(a: T, b: T): number => compareCodePoints(a.name, b.name);
const byQn = (a: QualifiedName, b: QualifiedName): number =>
  compareCodePoints(a.schema, b.schema) || compareCodePoints(a.name, b.name);

export function tableEntryJson(t: TableEntry): JsonObject {
  const out: JsonObject = { table: qnJson(t.table) };
  if (t.extras?.is_enum) out['is_enum'] = true;
  if (t.extras?.configuration) out['configuration'] = t.extras.configuration;
  if (t.object_relationships.length > 0) out['object_relationships'] = [...t.object_relationships].sort(byName).map(relationshipJson);
  if (t.array_relationships.length > 0) out['array_relationships'] = [...t.array_relationships].sort(byName).map(relationshipJson);
  if (t.computed_fields.length > 0) out['computed_fields'] = [...t.computed_fields].sort(byName).map(computedFieldJson);
  if (t.extras?.remote_relationships) out['remote_relationships'] = t.extras.remote_relationships;
  for (const kind of PERM_KINDS) {
    const list = t[permField(kind)];
    if (list.length > 0) out[permField(kind)] = [...list].sort((a, b) => compareCodePoints(a.role, b.role)).map((p) => permissionJson(kind, p));
  }
  if (t.event_triggers.length > 0) out['event_triggers'] = [...t.event_triggers].sort(byName).map(eventTriggerJson);
  return out;
}

export const sortedTables = (md: Metadata): TableEntry[] => [...md.tables.values()].sort((a, b) => byQn(a.table, b.table));
export const sortedFunctions = (md: Metadata): FunctionEntry[] =>
  [...md.functions.values()].sort((a, b) => byQn(a.function, b.function));

/** Everything after `tables` in the canonical document. */
function globalsJson(md: Metadata): JsonObject {
  const out: JsonObject = {};
  const functions = sortedFunctions(md);
  if (functions.length > 0) out['functions'] = functions.map(functionEntryJson);
  const remotes = [...md.remote_schemas.values()].sort(byName);
  if (remotes.length > 0) out['remote_schemas'] = remotes.map(remoteSchemaJson);
  const collections = [...md.query_collections.values()].sort(byName);
  if (collections.length > 0) out['query_collections'] = collections.map(queryCollectionJson);
  if (md.allowlist.length > 0) out['allowlist'] = [...md.allowlist].sort(compareCodePoints).map((c) => ({ collection: c }));
  const actions = [...md.actions.values()].sort(byName);
  if (actions.length > 0) out['actions'] = actions.map(actionJson);
  const ct = customTypesJson(md.custom_types);
  if (ct) out['custom_types'] = ct;
  const crons = [...md.cron_triggers.values()].sort(byName);
  if (crons.length > 0) out['cron_triggers'] = crons.map(cronTriggerJson);
  const rest = [...md.rest_endpoints.values()].sort(byName);
  if (rest.length > 0) out['rest_endpoints'] = rest.map(restEndpointJson);
  const inherited = [...md.inherited_roles.values()].sort((a, b) => compareCodePoints(a.role_name, b.role_name));
  if (inherited.length > 0) out['inherited_roles'] = inherited.map(inheritedRoleJson);
  if (md.api_limits) out['api_limits'] = apiLimitsJson(md.api_limits);
  return out;
}

/** The canonical §6 document: key order, omission rules and sorting applied; same metadata, same bytes. */
export function documentJson(md: Metadata): JsonObject {
  return { version: 2, tables: sortedTables(md).map(tableEntryJson), ...globalsJson(md) };
}

/** Entries are immutable values, so each one's canonical text is computed once and reused by every document. */
const entryText = new WeakMap<TableEntry, string>();
export function tableEntryText(t: TableEntry): string {
  let s = entryText.get(t);
  if (s === undefined) {
    s = JSON.stringify(tableEntryJson(t));
    entryText.set(t, s);
  }
  return s;
}

/** JSON.stringify(documentJson(md)), assembled from cached entry texts: the cost of one change stays small. */
export function documentText(md: Metadata, ordered: TableEntry[] = sortedTables(md)): string {
  const rest = JSON.stringify(globalsJson(md));
  return `{"version":2,"tables":[${ordered.map(tableEntryText).join(',')}]${rest === '{}' ? '' : `,${rest.slice(1, -1)}`}}`;
}

/** The part of the document after `tables`, as text: equal texts mean the non-table objects did not change. */
export const globalsText = (md: Metadata): string => JSON.stringify(globalsJson(md));

/**
 * Copy-on-write clone: maps are copied, entries shared until replaced. The tables are a VersionedMap: copying them
 * costs O(1), and the copy knows which entries it replaced (one change costs the same at any number of tables).
 */
export const cloneMetadata = (md: Metadata): Metadata => ({
  tables: VersionedMap.of(md.tables), functions: new Map(md.functions), actions: new Map(md.actions), custom_types: md.custom_types,
  inherited_roles: new Map(md.inherited_roles), cron_triggers: new Map(md.cron_triggers),
  query_collections: new Map(md.query_collections), allowlist: [...md.allowlist], rest_endpoints: new Map(md.rest_endpoints),
  remote_schemas: new Map(md.remote_schemas),
  ...(md.api_limits ? { api_limits: md.api_limits } : {}),
});

/** The canonical form of any document of the format, § 6.5 keys included (the project tool's view). */
export function canonicalDocument(v: unknown): JsonObject {
  return documentJson(toMetadata(parseDocumentEntries(v, '$', 'project')));
}
