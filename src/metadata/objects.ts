/**
 * The objects of a metadata document (cli.md §4.12): what `metadata diff` and `metadata apply` compare, one by one.
 * Each object's value is normalised for comparison: canonical form (engine-api.md §6.1–§6.2, §6.5) with absent keys and
 * their defaults made alike, and `columns`, `payload` and permission `computed_fields` sorted as sets.
 */
import { compareCodePoints, isObject, setOwn } from './json.js';

/** A metadata document in engine-api.md §6 form, as parsed JSON. */
export type CanonicalDocument = Record<string, unknown>;

export interface MetadataObject {
  kind: string;
  name: string;
  /** The compared value, normalised. */
  value: unknown;
}

/** The kinds in the order of the cli.md §4.12 table; changes and objects are listed in this order, then by name. */
export const KIND_ORDER = [
  'table', 'object_relationship', 'array_relationship', 'remote_relationship', 'computed_field', 'event_trigger',
  'insert_permission', 'select_permission', 'update_permission', 'delete_permission', 'function', 'remote_schema',
  'query_collection', 'cron_trigger', 'allowlist_entry', 'rest_endpoint', 'custom_type', 'action', 'action_permission', 'inherited_role',
  'api_limits',
] as const;
export type ObjectKind = (typeof KIND_ORDER)[number];

const kindRank = (kind: string): number => {
  const i = (KIND_ORDER as readonly string[]).indexOf(kind);
  return i < 0 ? KIND_ORDER.length : i;
};

/** Kind order, then name by code point. */
export function compareObjects(a: { kind: string; name: string }, b: { kind: string; name: string }): number {
  return kindRank(a.kind) - kindRank(b.kind) || compareCodePoints(a.name, b.name);
}

/** One string per (kind, name), for maps. */
export const objectKey = (kind: string, name: string): string => `${kind}\u0000${name}`;

type Obj = Record<string, unknown>;
type Fn = (v: unknown) => unknown;

const asObj = (v: unknown): Obj => (isObject(v) ? (v as Obj) : {});
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

/**
 * Builds a mapping in the key order of `spec`, each value through its transformer (undefined = key omitted); keys the
 * spec does not know are kept after them, in their order, so that a difference there still shows.
 */
function shape(src: unknown, spec: Record<string, Fn>): Obj {
  const o = asObj(src);
  const out: Obj = {};
  for (const [k, f] of Object.entries(spec)) {
    const v = f(o[k]);
    if (v !== undefined) out[k] = v;
  }
  for (const [k, v] of Object.entries(o)) if (!Object.hasOwn(spec, k) && v !== undefined) setOwn(out, k, v);
  return out;
}

// Transformers.
const keep: Fn = (v) => v;
const drop: Fn = () => undefined;
/** Optional, default null/absent. */
const opt: Fn = (v) => (v === null ? undefined : v);
/** Optional, omitted at its default: null, false, [] or {} (engine-api.md §6.2). */
const nz: Fn = (v) =>
  v === null || v === false || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0) ? undefined : v;
/** Always written, with `d` filled in when absent. */
const def = (d: unknown): Fn => (v) => (v === undefined || v === null ? d : v);
/** Applies the functions in turn; once a value is omitted (undefined) it stays omitted. */
const pipe = (...fs: Fn[]): Fn => (v) => fs.reduce<unknown>((x, f, i) => (x === undefined && i > 0 ? x : f(x)), v);
const each = (f: Fn): Fn => (v) => (Array.isArray(v) ? v.map(f) : v);
const sub = (spec: Record<string, Fn>): Fn => (v) => (isObject(v) ? shape(v, spec) : v);
/** A list compared as a set: sorted by code point, without repeats; `"*"` and other non-lists stay as they are. */
const asSet: Fn = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? [...new Set(v as string[])].sort(compareCodePoints) : v;
const byName: Fn = (v) =>
  Array.isArray(v) ? [...v].sort((a, b) => compareCodePoints(text(asObj(a)['name']), text(asObj(b)['name']))) : v;

/** A table or function name: strings name the `public` schema (engine-api.md §6.2). */
const qt: Fn = (v) => {
  if (typeof v === 'string') return { schema: 'public', name: v };
  if (!isObject(v)) return v;
  return shape(v, { schema: def('public'), name: keep });
};
const qtText = (v: unknown): string => {
  const q = asObj(qt(v));
  return `${text(q['schema'])}.${text(q['name'])}`;
};

const headers = pipe(nz, each(sub({ name: keep, value: opt, value_from_env: opt })));
const commentSpec = { comment: nz };

const usingSpec: Record<string, Fn> = {
  foreign_key_constraint_on: (v) => (isObject(v) ? shape(v, { table: qt, column: keep, columns: keep }) : v),
  manual_configuration: sub({ remote_table: qt, column_mapping: keep, insertion_order: opt }),
};
const relSpec = { name: keep, using: sub(usingSpec), ...commentSpec };
const computedFieldSpec = {
  name: keep,
  definition: sub({ function: qt, table_argument: opt, session_argument: opt }),
  ...commentSpec,
};
const remoteRelSpec = { name: keep, definition: keep };

const permissionSpecs: Record<string, Record<string, Fn>> = {
  insert: { check: keep, set: nz, columns: pipe(opt, asSet), backend_only: nz },
  select: { columns: asSet, computed_fields: pipe(nz, asSet), filter: keep, limit: opt, allow_aggregations: nz, query_root_fields: pipe(opt, asSet), subscription_root_fields: pipe(opt, asSet) },
  update: { columns: asSet, filter: keep, check: def(null), set: nz },
  delete: { filter: keep },
};
const permSpec = (kind: string) => ({ role: keep, permission: sub(permissionSpecs[kind] ?? {}), ...commentSpec });

const opSpec: Fn = pipe(opt, sub({ columns: asSet, payload: pipe(opt, asSet) }));
const eventTriggerSpec = {
  name: keep,
  definition: pipe(def({}), sub({ enable_manual: def(true), insert: opSpec, update: opSpec, delete: opSpec })),
  retry_conf: pipe(def({}), sub({ num_retries: def(0), interval_sec: def(10), timeout_sec: def(60) })),
  webhook: opt,
  webhook_from_env: opt,
  headers,
};

const functionSpec = { function: qt, configuration: pipe(opt, sub({ session_argument: opt, exposed_as: (v) => (v === 'query' || v === null ? undefined : v) }), nz), permissions: nz };

const remoteSchemaSpec = {
  name: keep,
  definition: sub({ url: opt, url_from_env: opt, timeout_seconds: opt, forward_client_headers: nz, headers }),
  ...commentSpec,
};
const queryCollectionSpec = { name: keep, definition: sub({ queries: keep }), ...commentSpec };
const cronTriggerSpec = {
  name: keep,
  webhook: keep,
  schedule: keep,
  include_in_metadata: keep,
  payload: opt,
  retry_conf: opt,
  headers,
  ...commentSpec,
};
const restEndpointSpec = { name: keep, url: keep, methods: asSet, definition: keep, ...commentSpec };

const fieldSpec = { name: keep, type: keep, description: opt, arguments: drop };
const customTypeSpecs: Record<string, Record<string, Fn>> = {
  scalars: { name: keep, description: opt },
  enums: { name: keep, description: opt, values: each(sub({ value: keep, description: opt, is_deprecated: nz })) },
  input_objects: { name: keep, description: opt, fields: each(sub(fieldSpec)) },
  objects: {
    name: keep,
    description: opt,
    fields: each(sub(fieldSpec)),
    relationships: pipe(nz, byName, each(sub({ name: keep, type: keep, remote_table: qt, field_mapping: keep }))),
  },
};
/** The custom-type groups, in the order objects of one name are looked for. */
export const CUSTOM_TYPE_GROUPS = ['scalars', 'enums', 'input_objects', 'objects'] as const;

const actionSpec = {
  name: keep,
  definition: sub({
    handler: keep,
    output_type: keep,
    arguments: pipe(nz, each(sub({ name: keep, type: keep, description: opt }))),
    kind: def('synchronous'),
    forward_client_headers: nz,
    headers,
    timeout: (v) => (v === null || v === 30 ? undefined : v),
    type: drop,
  }),
  ...commentSpec,
  permissions: drop,
};
const actionPermissionSpec = { role: keep, ...commentSpec };

/** The nine child lists of a table entry, with the kind of their items. */
const TABLE_CHILDREN: [string, ObjectKind, (item: Obj) => string, Record<string, Fn>][] = [
  ['object_relationships', 'object_relationship', (i) => text(i['name']), relSpec],
  ['array_relationships', 'array_relationship', (i) => text(i['name']), relSpec],
  ['remote_relationships', 'remote_relationship', (i) => text(i['name']), remoteRelSpec],
  ['computed_fields', 'computed_field', (i) => text(i['name']), computedFieldSpec],
  ['event_triggers', 'event_trigger', (i) => text(i['name']), eventTriggerSpec],
  ['insert_permissions', 'insert_permission', (i) => text(i['role']), permSpec('insert')],
  ['select_permissions', 'select_permission', (i) => text(i['role']), permSpec('select')],
  ['update_permissions', 'update_permission', (i) => text(i['role']), permSpec('update')],
  ['delete_permissions', 'delete_permission', (i) => text(i['role']), permSpec('delete')],
];

const tableSpec: Record<string, Fn> = {
  table: qt,
  is_enum: nz,
  configuration: nz,
  ...Object.fromEntries(TABLE_CHILDREN.map(([key]) => [key, drop])),
};

/** Normalises one item of the given kind (exported for callers that compare single objects). */
export function normaliseObject(kind: string, item: unknown, group?: string): unknown {
  switch (kind) {
    case 'table':
      return shape(item, tableSpec);
    case 'function':
      return shape(item, functionSpec);
    case 'remote_schema':
      return shape(item, remoteSchemaSpec);
    case 'query_collection':
      return shape(item, queryCollectionSpec);
    case 'cron_trigger':
      return shape(item, cronTriggerSpec);
    case 'allowlist_entry':
      return shape(item, { collection: keep });
    case 'rest_endpoint':
      return shape(item, restEndpointSpec);
    case 'custom_type':
      return { group, ...shape(item, customTypeSpecs[group ?? ''] ?? { name: keep }) };
    case 'action':
      return shape(item, actionSpec);
    case 'action_permission':
      return shape(item, actionPermissionSpec);
    case 'inherited_role':
      return shape(item, { role_name: keep, role_set: asSet });
    default: {
      const child = TABLE_CHILDREN.find(([, k]) => k === kind);
      return child ? shape(item, child[3]) : item;
    }
  }
}

/**
 * Splits a metadata document into its cli.md §4.12 objects, ordered by kind (the §4.12 table) and then name.
 * Lenient: missing lists count as empty and non-mapping items are skipped; validation reports such documents elsewhere.
 */
export function metadataObjects(doc: CanonicalDocument): MetadataObject[] {
  const out: MetadataObject[] = [];
  const add = (kind: string, name: string, item: unknown, group?: string): void => {
    out.push({ kind, name, value: normaliseObject(kind, item, group) });
  };
  const items = (v: unknown): Obj[] => asList(v).filter(isObject) as Obj[];

  for (const t of items(doc['tables'])) {
    const table = qtText(t['table']);
    add('table', table, t);
    for (const [key, kind, nameOf] of TABLE_CHILDREN) {
      for (const item of items(t[key])) add(kind, `${table}.${nameOf(item)}`, item);
    }
  }
  for (const f of items(doc['functions'])) add('function', qtText(f['function']), f);
  for (const r of items(doc['remote_schemas'])) add('remote_schema', text(r['name']), r);
  for (const q of items(doc['query_collections'])) add('query_collection', text(q['name']), q);
  for (const c of items(doc['cron_triggers'])) add('cron_trigger', text(c['name']), c);
  for (const a of items(doc['allowlist'])) add('allowlist_entry', text(a['collection']), a);
  for (const r of items(doc['rest_endpoints'])) add('rest_endpoint', text(r['name']), r);
  const ct = asObj(doc['custom_types']);
  for (const group of CUSTOM_TYPE_GROUPS) {
    for (const t of items(ct[group])) add('custom_type', text(t['name']), t, group);
  }
  for (const a of items(doc['actions'])) {
    const action = text(a['name']);
    add('action', action, a);
    for (const p of items(a['permissions'])) add('action_permission', `${action}.${text(p['role'])}`, p);
  }
  for (const r of items(doc['inherited_roles'])) add('inherited_role', text(r['role_name']), r);
  if (isObject(doc['api_limits'])) add('api_limits', 'api_limits', doc['api_limits']);
  // Stable: objects of equal (kind, name), which only invalid documents have, keep their document order.
  return out.sort(compareObjects);
}
