import { GraphQLEnumType } from 'graphql';
import type { Queryable } from '../../../db/database.js';
import { quoteIdent, quoteTable } from '../../bool-exp/compile.js';
import type { SchemaCache } from '../../schema-cache.js';
import { NO_EXTENSIONS } from './extensions.js';
import { isEnumValueName } from './names.js';
import { tableNames } from './table-names.js';

/**
 * Enum tables (`is_enum`, issue 12): their rows become a GraphQL enum `<T>_enum` used by every column that references
 * them by a one-column foreign key. The rows are read when a schema cache is first used by GraphQL (a change of rows
 * is seen after `reload_metadata`, as with the incumbent).
 */
/** Enum types by enum table key. */
export type EnumTypes = Map<string, GraphQLEnumType>;

const loaded = new WeakMap<SchemaCache, Promise<EnumTypes>>();

export function enumTypes(cache: SchemaCache, db: Queryable): Promise<EnumTypes> {
  let p = loaded.get(cache);
  if (!p) {
    p = load(cache, db);
    loaded.set(cache, p);
    p.catch(() => loaded.delete(cache));
  }
  return p;
}

async function load(cache: SchemaCache, db: Queryable): Promise<EnumTypes> {
  const out: EnumTypes = new Map();
  for (const [key, rt] of cache.tables) {
    if (rt.entry.extras?.is_enum !== true) continue;
    const pk = rt.db.uniques.find((u) => u.primary)?.columns[0];
    if (!pk) continue;
    const comment = [...rt.db.columns.keys()].find((c) => c !== pk);
    const rows = await db.query<{ v: string; c: string | null }>(
      `SELECT ${quoteIdent(pk)}::text AS "v", ${comment ? `${quoteIdent(comment)}::text` : 'NULL::text'} AS "c" FROM ${quoteTable(rt.entry.table)} ORDER BY 1`);
    const values: Record<string, { value: string; description?: string; extensions: typeof NO_EXTENSIONS }> = {};
    // A row whose value is not a GraphQL name cannot be an enum value: it is left out.
    for (const r of rows) if (isEnumValueName(r.v)) values[r.v] = { value: r.v, ...(r.c ? { description: r.c } : {}), extensions: NO_EXTENSIONS };
    if (Object.keys(values).length === 0) values['_PLACEHOLDER'] = { value: '_PLACEHOLDER', extensions: NO_EXTENSIONS };
    out.set(key, new GraphQLEnumType({ name: `${tableNames(rt.entry).type}_enum`, values, extensions: NO_EXTENSIONS }));
  }
  return out;
}
