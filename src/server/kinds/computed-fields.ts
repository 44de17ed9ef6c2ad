import { computedFieldJson } from '../../metadata/kinds/computed-fields.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import type { ComputedField, QualifiedName } from '../../metadata/types.js';
import type { DbCatalog, DbFunction } from '../db-catalog.js';
import { objectId, tablePrefix, withTable, type InconsistentObject } from '../inconsistency.js';
import type { ResolvedComputedField, ResolvedTable } from './resolved.js';

export type { ResolvedComputedField } from './resolved.js';

export const cfId = (t: QualifiedName, name: string): string => objectId('computed_field', t, name);
export const cfPrefix = (t: QualifiedName, name: string): string => `${tablePrefix(t)}in computed field "${name}": `;

export function cfRecord(t: QualifiedName, cf: ComputedField, reason: string): InconsistentObject {
  return { id: cfId(t, cf.name), type: 'computed_field', definition: withTable(t, computedFieldJson(cf)), reason: cfPrefix(t, cf.name) + reason };
}

/** The §1.7 layout: one reason inline, several as a bulleted list with a trailing newline. */
export function reasonList(head: string, reasons: string[]): string {
  if (reasons.length === 1) return `${head} because ${reasons[0] as string}`;
  return `${head} for the following reasons:\n${reasons.map((r) => `  • ${r}\n`).join('')}`;
}

const SCALAR_TYPTYPES = new Set(['b', 'e', 'd', 'r', 'm']);

/** Checks a computed field's function (engine-api.md §4.5.1); returns the reason or the resolution. */
export function resolveComputedField(
  cf: ComputedField, rt: ResolvedTable, catalog: DbCatalog, tables: Map<string, ResolvedTable>,
): ResolvedComputedField | string {
  const t = rt.entry.table;
  const f = cf.definition.function;
  const q = qnQuoted(f);
  const overloads = catalog.functions.get(qnKey(f));
  if (!overloads || overloads.length === 0) return `no such function exists in postgres : ${q}`;
  if (overloads.length > 1) return `the function ${q} is overloaded; overloaded functions are not supported`;
  const fn = overloads[0] as DbFunction;
  const reasons: string[] = [];
  if (fn.volatility === 'v') reasons.push(`the function ${q} is of type VOLATILE; cannot be added as a computed field`);
  const ta = cf.definition.table_argument;
  const which = ta === undefined ? 'first' : `"${ta}"`;
  if (fn.inputs.length === 0) {
    reasons.push(`the function ${q} has no input arguments`);
  } else {
    const arg = ta === undefined ? fn.inputs[0] : fn.inputs.find((a) => a.name === ta);
    if (!arg) {
      reasons.push(`"${ta as string}" is not an input argument of the function ${q}`);
    } else if (arg.typType !== 'c' || arg.typRelid !== rt.db.oid) {
      if (arg.typType !== 'c') reasons.push(`${which} argument of the function ${q} is not COMPOSITE type`);
      reasons.push(`${which} argument of the function ${q} of type "${arg.typeName}" is not the table to which the computed field is being added`);
    }
  }
  const sa = cf.definition.session_argument;
  if (sa !== undefined) {
    const arg = fn.inputs.find((a) => a.name === sa);
    if (!arg) reasons.push(`"${sa}" is not an input argument of the function ${q}`);
    else if (arg.typeName !== 'json' && arg.typeName !== 'jsonb') reasons.push(`"${sa}" argument of the function ${q} is not of type JSON`);
  }
  let returnsTable: QualifiedName | null = null;
  const returned = fn.returnTypType === 'c' ? catalog.tablesByOid.get(fn.returnRelid) : undefined;
  if (returned) {
    const tracked = tables.get(qnKey(returned));
    if (tracked) returnsTable = tracked.entry.table;
    else reasons.push(`the function ${q} returns rows of table ${qnQuoted(returned)}, which is not tracked`);
  } else if (!SCALAR_TYPTYPES.has(fn.returnTypType)) {
    reasons.push(`the function ${q} returning type "${fn.returnTypeName}" is not a BASE type`);
  } else if (fn.returnsSet) {
    reasons.push(`the function ${q} returning set of type "${fn.returnTypeName}" is not supported`);
  }
  if (reasons.length > 0) return reasonList(`the computed field "${cf.name}" cannot be added to table ${qnQuoted(t)}`, reasons);
  return { fn, returnsTable, returnsSet: fn.returnsSet };
}
