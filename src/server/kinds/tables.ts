import { qnQuoted } from '../../metadata/names.js';
import { configurationColumns } from '../../metadata/kinds/table-configuration.js';
import type { TableEntry } from '../../metadata/types.js';
import type { DbTable } from '../db-catalog.js';

/**
 * A table whose `configuration` names columns it does not have is inconsistent as a whole: its GraphQL names would
 * be wrong. (Enum tables, `is_enum`, are checked where their GraphQL enum is built.)
 */
export function configurationReason(entry: TableEntry, db: DbTable): string | null {
  const missing = configurationColumns(entry.extras?.configuration).filter((c) => !db.columns.has(c));
  if (missing.length === 0) return null;
  return `the configuration of table ${qnQuoted(entry.table)} names columns that do not exist: ${missing.map((c) => `"${c}"`).join(', ')}`;
}
