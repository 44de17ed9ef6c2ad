import type { Json, JsonObject } from '../../../metadata/json.js';
import type { TableEntry } from '../../../metadata/types.js';
import { memoByObject } from './memo.js';
import { gqlName } from './names.js';

/**
 * A table's GraphQL names (graphql-api.md §2.2, §2.6, §2.7) under its `configuration` (issue 12): `custom_name` renames
 * `T` (and so every generated type), `custom_root_fields` renames single root fields (a string, or `{name, comment}`).
 */
export interface TableNames {
  /** `T`: the object type and the stem of generated types. */
  type: string;
  select: string;
  select_by_pk: string;
  select_aggregate: string;
  insert: string;
  insert_one: string;
  update: string;
  update_by_pk: string;
  update_many: string;
  delete: string;
  delete_by_pk: string;
  /** Descriptions of renamed root fields that carry a comment, by root-field kind. */
  comments: Partial<Record<RootKind, string>>;
}

export type RootKind = Exclude<keyof TableNames, 'type' | 'comments'>;

const configuration = (entry: TableEntry): JsonObject | undefined => entry.extras?.configuration;

function build(entry: TableEntry): TableNames {
  const conf = configuration(entry);
  const custom = conf?.['custom_name'];
  const t = typeof custom === 'string' ? custom : gqlName(entry.table);
  const names: TableNames = {
    type: t, select: t, select_by_pk: `${t}_by_pk`, select_aggregate: `${t}_aggregate`, insert: `insert_${t}`, insert_one: `insert_${t}_one`,
    update: `update_${t}`, update_by_pk: `update_${t}_by_pk`, update_many: `update_${t}_many`, delete: `delete_${t}`, delete_by_pk: `delete_${t}_by_pk`, comments: {},
  };
  const roots = conf?.['custom_root_fields'];
  if (roots && typeof roots === 'object' && !Array.isArray(roots)) {
    for (const [kind, v] of Object.entries(roots as Record<string, Json>)) {
      const k = kind as RootKind;
      if (typeof v === 'string') names[k] = v;
      else if (v && typeof v === 'object' && !Array.isArray(v)) {
        if (typeof v['name'] === 'string') names[k] = v['name'];
        if (typeof v['comment'] === 'string') names.comments[k] = v['comment'];
      }
    }
  }
  return names;
}

/** Names depend on the entry only (immutable): computed once each, for every role and schema. */
export const tableNames = memoByObject(build);

export const rootFieldNames = (n: TableNames): string[] =>
  [n.select, n.select_aggregate, n.select_by_pk, n.insert, n.insert_one, n.update, n.update_by_pk, n.update_many, n.delete, n.delete_by_pk];
