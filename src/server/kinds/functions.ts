import { functionEntryJson } from '../../metadata/kinds/functions.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import type { FunctionEntry, QualifiedName } from '../../metadata/types.js';
import type { DbCatalog, DbFunction } from '../db-catalog.js';
import { objectId, type InconsistentObject } from '../inconsistency.js';
import type { ResolvedTable } from './resolved.js';

export const functionId = (f: QualifiedName): string => objectId('function', f, '');
export const functionPrefix = (f: QualifiedName): string => `in function ${qnQuoted(f)}: `;

const OVERLOADED = 'overloaded functions are not supported';
const VOLATILE = 'only STABLE or IMMUTABLE functions can be tracked';

/** A reason (of a tracked function or a computed field) that no metadata can mend: the function is not supported. */
export const unsupportedFunction = (reason: string): boolean => reason.endsWith(OVERLOADED) || reason.endsWith(VOLATILE);

/** The requirements of a tracked function (engine-api.md §4.1.4), first failure wins. */
export function functionReason(entry: FunctionEntry, overloads: DbFunction[] | undefined, tables: Map<string, ResolvedTable>): string | null {
  const f = entry.function;
  const q = qnQuoted(f);
  if (!overloads || overloads.length === 0) return `no such function exists in postgres : ${q}`;
  if (overloads.length > 1) return `the function ${q} is overloaded; ${OVERLOADED}`;
  const fn = overloads[0] as DbFunction;
  if (fn.volatility === 'v') return `the function ${q} is of type VOLATILE; ${VOLATILE}`;
  // The incumbent's rule (issue 29.6): SETOF a tracked table's row type, or one row of it; a scalar is refused.
  if (fn.returnTypType !== 'c') return `the function ${q} does not return a "COMPOSITE" type; only functions returning rows of a tracked table can be tracked`;
  if (![...tables.values()].some((t) => t.db.oid === fn.returnRelid)) return `the function ${q} does not return rows of a tracked table`;
  const s = entry.configuration.session_argument;
  if (s !== undefined) {
    const arg = fn.inputs.find((a) => a.name === s);
    if (!arg) return `"${s}" is not an input argument of the function ${q}`;
    if (arg.typeName !== 'json' && arg.typeName !== 'jsonb') return `"${s}" argument of the function ${q} is not of type JSON`;
  }
  return null;
}

export function resolveFunction(entry: FunctionEntry, catalog: DbCatalog, tables: Map<string, ResolvedTable>): InconsistentObject | null {
  const reason = functionReason(entry, catalog.functions.get(qnKey(entry.function)), tables);
  if (reason === null) return null;
  return { id: functionId(entry.function), type: 'function', definition: functionEntryJson(entry), reason: functionPrefix(entry.function) + reason };
}
