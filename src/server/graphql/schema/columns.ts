import type { JsonObject } from '../../../metadata/json.js';
import { customColumnName } from '../../../metadata/kinds/table-configuration.js';
import type { DbColumn, DbTable } from '../../db-catalog.js';
import type { ResolvedTable } from '../../schema-cache.js';
import { memoByObject } from './memo.js';
import { isGraphqlName } from './names.js';

/**
 * A table's columns as the GraphQL layer names them (issue 12): `field` is the column's GraphQL name (its custom
 * name, else its SQL name), `name` stays the SQL name every statement uses, `comment` is the configured comment,
 * else the database's. A domain is typed as its base type (graphql-api.md §2.3).
 */
export interface GqlColumn extends DbColumn {
  field: string;
}

export interface TableColumns {
  /** Every column in attnum order (presets may name any of them). */
  all: GqlColumn[];
  /** The columns with a GraphQL field: a valid name not taken by an earlier column (§2.2: the first wins). */
  exposed: GqlColumn[];
  /** The exposed columns' GraphQL names. */
  fields: Set<string>;
}

function build(db: DbTable, conf: JsonObject | undefined): TableColumns {
  const comments = conf?.['column_config'] as Record<string, { comment?: string }> | undefined;
  const all: GqlColumn[] = [];
  for (const c of [...db.columns.values()].sort((a, b) => a.num - b.num)) {
    const comment = comments && Object.hasOwn(comments, c.name) ? comments[c.name]?.comment : undefined;
    all.push({ ...c, typeName: c.baseTypeName ?? c.typeName, field: customColumnName(conf, c.name) ?? c.name, comment: comment ?? c.comment });
  }
  const fields = new Set<string>();
  const exposed = all.filter((c) => {
    if (!isGraphqlName(c.field) || fields.has(c.field)) return false;
    fields.add(c.field);
    return true;
  });
  return { all, exposed, fields };
}

/** Role-independent: computed once per resolved table, shared by every role's schema. */
export const tableColumns = memoByObject((rt: ResolvedTable): TableColumns => build(rt.db, rt.entry.extras?.configuration));

/**
 * Whether a field name of the table's type is taken by a column, relationship or computed field. Columns come
 * first (§2.2), so a relationship or computed field named like a column's custom name is absent.
 */
export function fieldTaken(rt: ResolvedTable, name: string): boolean {
  const kind = rt.fields.get(name);
  return tableColumns(rt).fields.has(name) || (kind !== undefined && kind !== 'column');
}
