import { qnQuoted } from '../../metadata/names.js';
import { configurationColumns } from '../../metadata/kinds/table-configuration.js';
import type { TableEntry } from '../../metadata/types.js';
import type { DbTable } from '../db-catalog.js';

/**
 * A table whose `configuration` names columns it does not have is inconsistent as a whole: its GraphQL names would
 * be wrong. (Enum tables, `is_enum`, are checked where their GraphQL enum is built.)
 */
const ENUM_TEXT = new Set(['text', 'character varying', 'citext']);

/**
 * An enum table (`is_enum`, issue 12) has a single-column primary key of a text type and at most one other column, a
 * text comment; anything else makes the table inconsistent (the incumbent's shape rules).
 */
export function enumShapeReason(entry: TableEntry, db: DbTable): string | null {
  if (entry.extras?.is_enum !== true) return null;
  const why = (r: string) => `the table ${qnQuoted(entry.table)} cannot be used as an enum: ${r}`;
  const pk = db.uniques.find((u) => u.primary);
  if (!pk || pk.columns.length !== 1) return why('it needs a primary key of exactly one column');
  const key = db.columns.get(pk.columns[0] as string);
  if (!key || !ENUM_TEXT.has(key.baseTypeName ?? key.typeName)) return why('its primary key must be of type text');
  const others = [...db.columns.values()].filter((c) => c !== key);
  if (others.length > 1) return why('it may have only one column besides its primary key (a comment)');
  const comment = others[0];
  if (comment && !ENUM_TEXT.has(comment.baseTypeName ?? comment.typeName)) return why(`its comment column "${comment.name}" must be of type text`);
  return null;
}

export function configurationReason(entry: TableEntry, db: DbTable): string | null {
  const missing = configurationColumns(entry.extras?.configuration).filter((c) => !db.columns.has(c));
  if (missing.length === 0) return null;
  return `the configuration of table ${qnQuoted(entry.table)} names columns that do not exist: ${missing.map((c) => `"${c}"`).join(', ')}`;
}
