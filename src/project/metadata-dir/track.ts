import { CliError } from '../../errors.js';
import { isObject, type Json, type JsonObject } from '../../metadata/json.js';
import type { Catalog, CatalogForeignKey } from './track-catalog.js';

/**
 * `metadata track` (issue 19 item 4): adds tables, views and functions to a metadata document, with the object and
 * array relationships their foreign keys imply, named the way the incumbent's users expect:
 * - object relationship (on the referencing table): the foreign-key column without `_id` (`author_id` → `author`),
 *   else the referenced table's name made singular (`authors` → `author`);
 * - array relationship (on the referenced table): the referencing table's name (`article`).
 * A name already used on that table (a column, a relationship, a computed field), or proposed by several foreign keys
 * at once (two keys from `message` to `user`), becomes `<name>_by_<columns>` for each of them (`message_by_sender_id`),
 * then `_2`, `_3`…; every such rename is reported.
 */

export interface TrackOptions {
  /** Schemas to look in; default `public`. */
  schemas: string[];
  /** Every relation and trackable function of the schemas. */
  all: boolean;
  /** `schema.name` or `name` (schema public) of relations or functions to track. */
  names: string[];
}

export interface NewRelationship {
  table: string;
  name: string;
  type: 'object' | 'array';
  constraint: string;
  /** The name it would have had, when that was taken. */
  wanted?: string;
}

export interface TrackPlan {
  document: JsonObject;
  tables: string[];
  functions: string[];
  relationships: NewRelationship[];
  skipped: { name: string; reason: string }[];
}

const key = (schema: string, name: string) => `${schema}.${name}`;
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** A GraphQL name from any identifier: other characters become `_`, a leading digit gets a `_`. */
function graphqlName(s: string): string {
  const n = s.replace(/[^_0-9A-Za-z]/g, '_');
  return GRAPHQL_NAME.test(n) ? n : `_${n}`;
}

/** `categories` → `category`, `addresses` → `address`, `users` → `user`; `status`, `news`… as they are. */
export function singular(s: string): string {
  if (/ies$/.test(s) && s.length > 3) return `${s.slice(0, -3)}y`;
  if (/(ss|us|is|news)$/.test(s)) return s;
  if (/(sses|xes|ches|shes|zes)$/.test(s)) return s.slice(0, -2);
  if (/s$/.test(s) && s.length > 1) return s.slice(0, -1);
  return s;
}

function objectName(fk: CatalogForeignKey): string {
  const only = fk.columns.length === 1 ? (fk.columns[0] as string) : null;
  if (only && /.+_id$/i.test(only)) return graphqlName(only.slice(0, -3));
  return graphqlName(singular(fk.ref_table));
}

const qn = (schema: string, name: string): JsonObject => ({ schema, name });

function parseName(n: string): [string, string] {
  const dot = n.indexOf('.');
  return dot > 0 ? [n.slice(0, dot), n.slice(dot + 1)] : ['public', n];
}

const entryKey = (e: JsonObject): string => (isObject(e['table']) ? key(String(e['table']['schema']), String(e['table']['name'])) : '');

export function planTracking(input: JsonObject, catalog: Catalog, opts: TrackOptions): TrackPlan {
  const doc = structuredClone(input) as JsonObject;
  const schemas = new Set(opts.schemas.length > 0 ? opts.schemas : ['public']);
  const tables = (doc['tables'] ??= []) as JsonObject[];
  const functions = (doc['functions'] ??= []) as JsonObject[];
  const byKey = new Map(tables.map((e) => [entryKey(e), e]));
  const relations = new Map(catalog.relations.map((r) => [key(r.schema, r.name), r]));
  const fnKey = (f: JsonObject) => (isObject(f['function']) ? key(String(f['function']['schema']), String(f['function']['name'])) : '');
  const trackedFns = new Set(functions.map(fnKey));
  const plan: TrackPlan = { document: doc, tables: [], functions: [], relationships: [], skipped: [] };

  const wanted = new Set(opts.names.map((n) => key(...parseName(n))));
  const fnByKey = new Map(catalog.functions.map((f) => [key(f.schema, f.name), f]));
  for (const w of wanted) {
    if (!relations.has(w) && !fnByKey.has(w)) throw new CliError('object-not-found', `no table, view or function ${w} in the database`, 1);
  }
  const chosen = (schema: string, name: string) => (opts.all && schemas.has(schema)) || wanted.has(key(schema, name));

  for (const r of catalog.relations) {
    const k = key(r.schema, r.name);
    if (!chosen(r.schema, r.name) || byKey.has(k)) continue;
    const entry: JsonObject = { table: qn(r.schema, r.name) };
    tables.push(entry);
    byKey.set(k, entry);
    plan.tables.push(k);
  }
  for (const f of catalog.functions) {
    const k = key(f.schema, f.name);
    if (!chosen(f.schema, f.name) || trackedFns.has(k)) continue;
    const reason = f.overloads > 1 ? 'it is overloaded' : f.volatile === 'v' ? 'it is VOLATILE (only STABLE or IMMUTABLE functions can be tracked)'
      : !f.retset || f.ret_table === null || !byKey.has(key(f.ret_schema ?? '', f.ret_table)) ? 'it does not return SETOF a tracked table' : null;
    if (reason) {
      plan.skipped.push({ name: k, reason });
      continue;
    }
    functions.push({ function: qn(f.schema, f.name) });
    plan.functions.push(k);
  }
  addRelationships(plan, byKey, catalog);
  if (functions.length === 0) delete doc['functions'];
  return plan;
}

/** Names in use on each table: columns, relationships, computed fields. */
function takenNames(entry: JsonObject, columns: string[]): Set<string> {
  const names = new Set(columns);
  for (const list of ['object_relationships', 'array_relationships', 'computed_fields', 'remote_relationships']) {
    for (const item of (entry[list] as JsonObject[] | undefined) ?? []) names.add(String(item['name']));
  }
  return names;
}

/** Equal as JSON whatever the key order (the engine sorts column mappings; a foreign key lists them in its order). */
const sorted = (v: Json | undefined): unknown => (Array.isArray(v) ? v.map(sorted) : isObject(v)
  ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
const same = (a: Json | undefined, b: Json) => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));

function addRelationships(plan: TrackPlan, byKey: Map<string, JsonObject>, catalog: Catalog): void {
  const columns = new Map(catalog.relations.map((r) => [key(r.schema, r.name), r.columns]));
  const taken = new Map<string, Set<string>>();
  const takenOn = (k: string) => {
    let s = taken.get(k);
    if (!s) taken.set(k, (s = takenNames(byKey.get(k) as JsonObject, columns.get(k) ?? [])));
    return s;
  };
  interface Proposal { table: string; list: 'object_relationships' | 'array_relationships'; name: string; using: JsonObject; fk: CatalogForeignKey }
  const proposals: Proposal[] = [];
  for (const fk of catalog.fkeys) {
    const from = key(fk.schema, fk.table);
    const to = key(fk.ref_schema, fk.ref_table);
    if (!byKey.has(from) || !byKey.has(to)) continue;
    const single = fk.columns.length === 1;
    const objUsing: JsonObject = single ? { foreign_key_constraint_on: fk.columns[0] as string }
      : { manual_configuration: { remote_table: qn(fk.ref_schema, fk.ref_table), column_mapping: Object.fromEntries(fk.columns.map((c, i) => [c, fk.ref_columns[i] as string])) } };
    const arrUsing: JsonObject = single ? { foreign_key_constraint_on: { table: qn(fk.schema, fk.table), column: fk.columns[0] as string } }
      : { manual_configuration: { remote_table: qn(fk.schema, fk.table), column_mapping: Object.fromEntries(fk.ref_columns.map((c, i) => [c, fk.columns[i] as string])) } };
    const exists = (table: string, list: string, using: JsonObject) => ((byKey.get(table) as JsonObject)[list] as JsonObject[] | undefined)?.some((r) => same(r['using'], using));
    if (!exists(from, 'object_relationships', objUsing)) proposals.push({ table: from, list: 'object_relationships', name: objectName(fk), using: objUsing, fk });
    if (!exists(to, 'array_relationships', arrUsing)) {
      const prefix = fk.schema === fk.ref_schema || fk.schema === 'public' ? '' : `${fk.schema}_`;
      proposals.push({ table: to, list: 'array_relationships', name: graphqlName(`${prefix}${fk.table}`), using: arrUsing, fk });
    }
  }
  // A name several foreign keys propose on one table is ambiguous for all of them, not only for the later ones.
  const count = new Map<string, number>();
  for (const p of proposals) count.set(`${p.table}\0${p.name}`, (count.get(`${p.table}\0${p.name}`) ?? 0) + 1);
  for (const p of proposals) {
    const names = takenOn(p.table);
    let name = p.name;
    if ((count.get(`${p.table}\0${p.name}`) ?? 0) > 1 || names.has(name)) {
      name = graphqlName(`${p.name}_by_${p.fk.columns.join('_')}`);
      for (let i = 2; names.has(name); i++) name = graphqlName(`${p.name}_by_${p.fk.columns.join('_')}_${i}`);
    }
    names.add(name);
    const entry = byKey.get(p.table) as JsonObject;
    ((entry[p.list] ??= []) as JsonObject[]).push({ name, using: p.using });
    plan.relationships.push({
      table: p.table, name, type: p.list === 'object_relationships' ? 'object' : 'array', constraint: p.fk.name,
      ...(name !== p.name ? { wanted: p.name } : {}),
    });
  }
}
