import { isSessionRef } from '../../bool-exp/operators.js';
import { isNowPreset } from '../../kinds/permissions.js';
import type { Json } from '../../../metadata/json.js';
import type { MutationTable } from '../schema/index.js';
import type { StatementBuilder } from './sql-builder.js';

/**
 * A permission's preset columns with their SQL expressions (engine-api.md §4.3.2): `now()`, a session variable
 * bound per request, or the value as a parameter; none for admin. Columns in `given` are left out.
 */
export function presetExprs(b: StatementBuilder, admin: boolean, mt: MutationTable, set: Record<string, Json> | undefined, given?: Set<string>): [string, string][] {
  if (!set || admin) return [];
  const out: [string, string][] = [];
  for (const [name, v] of Object.entries(set)) {
    const c = mt.allColumns.find((x) => x.name === name);
    if (!c || given?.has(name)) continue;
    if (isNowPreset(v, c.typeName)) out.push([name, 'now()']);
    else if (isSessionRef(v)) out.push([name, b.session(String(v).toLowerCase(), c.castType)]);
    else out.push([name, b.value(v === null ? null : typeof v === 'string' ? v : JSON.stringify(v), c.castType)]);
  }
  return out;
}
