import { compareCodePoints, type Json, type JsonObject } from '../json.js';
import { at, graphqlName, obj, opt, str } from '../reader.js';
import { parseFailed } from '../../errors.js';

/**
 * A table's `configuration` (the incumbent's table customisation): the GraphQL names of the table, of its root fields
 * and of its columns. Kept in one canonical form: keys in the order below, columns sorted, empty parts left out.
 */
export const ROOT_FIELDS = ['select', 'select_by_pk', 'select_aggregate', 'insert', 'insert_one', 'update', 'update_by_pk', 'update_many', 'delete', 'delete_by_pk'] as const;
const KEYS = ['custom_name', 'custom_root_fields', 'column_config', 'custom_column_names', 'comment'];

const sortedEntries = (o: Record<string, Json>): [string, Json][] => Object.entries(o).sort(([a], [b]) => compareCodePoints(a, b));

function rootField(v: unknown, path: string): Json | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return graphqlName(v, path);
  // The incumbent's newer form: {name, comment}.
  const o = obj(v, path);
  const out: JsonObject = {};
  const name = opt(o, 'name');
  if (name !== undefined && name !== null) out['name'] = graphqlName(name, at(path, 'name'));
  const comment = opt(o, 'comment');
  if (comment !== undefined && comment !== null) out['comment'] = str(comment, at(path, 'comment'));
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Parses and canonicalises `configuration`; undefined when it sets nothing. */
export function parseTableConfiguration(v: unknown, path: string): JsonObject | undefined {
  const o = obj(v, path);
  const unknown = Object.keys(o).filter((k) => !KEYS.includes(k));
  if (unknown.length > 0) throw parseFailed(path, `unexpected keys in table configuration: ${unknown.map((k) => `"${k}"`).join(', ')}`);
  const out: JsonObject = {};
  const name = opt(o, 'custom_name');
  if (name !== undefined && name !== null) out['custom_name'] = graphqlName(name, at(path, 'custom_name'));
  const rf = opt(o, 'custom_root_fields');
  if (rf !== undefined && rf !== null) {
    const rp = at(path, 'custom_root_fields');
    const ro = obj(rf, rp);
    const bad = Object.keys(ro).filter((k) => !(ROOT_FIELDS as readonly string[]).includes(k));
    if (bad.length > 0) throw parseFailed(rp, `unexpected keys in custom_root_fields: ${bad.map((k) => `"${k}"`).join(', ')}`);
    const fields: JsonObject = {};
    for (const k of ROOT_FIELDS) {
      const f = rootField(ro[k], at(rp, k));
      if (f !== undefined) fields[k] = f;
    }
    if (Object.keys(fields).length > 0) out['custom_root_fields'] = fields;
  }
  const cc = opt(o, 'column_config');
  if (cc !== undefined && cc !== null) {
    const cp = at(path, 'column_config');
    const cols: JsonObject = {};
    for (const [col, c] of sortedEntries(obj(cc, cp) as Record<string, Json>)) {
      const p = at(cp, col);
      const co = obj(c, p);
      const one: JsonObject = {};
      const cn = opt(co, 'custom_name');
      if (cn !== undefined && cn !== null) one['custom_name'] = graphqlName(cn, at(p, 'custom_name'));
      const cm = opt(co, 'comment');
      if (cm !== undefined && cm !== null) one['comment'] = str(cm, at(p, 'comment'));
      if (Object.keys(one).length > 0) cols[col] = one;
    }
    if (Object.keys(cols).length > 0) out['column_config'] = cols;
  }
  const ccn = opt(o, 'custom_column_names');
  if (ccn !== undefined && ccn !== null) {
    const np = at(path, 'custom_column_names');
    const names: JsonObject = {};
    for (const [col, n] of sortedEntries(obj(ccn, np) as Record<string, Json>)) names[col] = graphqlName(n, at(np, col));
    if (Object.keys(names).length > 0) out['custom_column_names'] = names;
  }
  const comment = opt(o, 'comment');
  if (comment !== undefined && comment !== null) out['comment'] = str(comment, at(path, 'comment'));
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The columns a configuration names (column_config and custom_column_names). */
export function configurationColumns(conf: JsonObject | undefined): string[] {
  if (!conf) return [];
  const cols = new Set<string>();
  for (const key of ['column_config', 'custom_column_names']) {
    const v = conf[key];
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const c of Object.keys(v)) cols.add(c);
  }
  return [...cols].sort(compareCodePoints);
}

/** The GraphQL name a configuration gives a column, if any (custom_column_names wins, as in the incumbent). */
export function customColumnName(conf: JsonObject | undefined, column: string): string | undefined {
  const names = conf?.['custom_column_names'] as Record<string, string> | undefined;
  if (names && Object.hasOwn(names, column)) return names[column];
  const cc = conf?.['column_config'] as Record<string, { custom_name?: string }> | undefined;
  return cc && Object.hasOwn(cc, column) ? cc[column]?.custom_name : undefined;
}
