import { permissionJson } from '../../metadata/kinds/permissions.js';
import { qnQuoted } from '../../metadata/names.js';
import type { Json } from '../../metadata/json.js';
import type { PermKind, Permission, QualifiedName } from '../../metadata/types.js';
import { isSessionRef, valueFits } from '../bool-exp/operators.js';
import type { BoolExpRefs, BoolExpSchema, BoolExpTable } from '../bool-exp/schema.js';
import { validateBoolExp } from '../bool-exp/validate.js';
import { objectId, tablePrefix, withTable, type InconsistentObject } from '../inconsistency.js';
import type { ResolvedPermission, ResolvedTable } from './resolved.js';

export type { ResolvedPermission } from './resolved.js';

export const permType = (kind: PermKind): string => `${kind}_permission`;
export const permId = (kind: PermKind, t: QualifiedName, role: string): string => objectId(permType(kind), t, role);
export const permPrefix = (t: QualifiedName, role: string): string => `${tablePrefix(t)}in permission for role "${role}": `;

export function permRecord(kind: PermKind, t: QualifiedName, p: Permission, reason: string): InconsistentObject {
  return { id: permId(kind, t, p.role), type: permType(kind), definition: withTable(t, permissionJson(kind, p)), reason: permPrefix(t, p.role) + reason };
}

const TIME_TYPES = new Set(['date', 'time without time zone', 'time with time zone', 'timestamp without time zone', 'timestamp with time zone']);

/** `"NOW()"` (any case) on a date or time column: the transaction timestamp (§4.3.2). */
export const isNowPreset = (v: Json, typeName: string): boolean => typeof v === 'string' && v.toUpperCase() === 'NOW()' && TIME_TYPES.has(typeName);

/** A preset value (§4.3.2): a session-variable reference, "NOW()" on a time column, or a value of the column's type. */
export function presetFits(v: Json, typeName: string): boolean {
  if (isSessionRef(v)) return true;
  if (isNowPreset(v, typeName)) return true;
  if (v === null) return true;
  return valueFits(v, typeName);
}

const WRITE_BIT: Record<Exclude<PermKind, 'select'>, [number, string]> = {
  insert: [8, 'insertable'],
  update: [4, 'updatable'],
  delete: [16, 'deletable'],
};

/** Resolves one permission; returns the reason it fails (first failure wins, §4.3.3 order) or its dependencies. */
export function resolvePermission(kind: PermKind, p: Permission, rt: ResolvedTable, schema: BoolExpSchema): ResolvedPermission | string {
  if (p.role === 'admin') return 'cannot define permission for admin role';
  const t = rt.entry.table;
  const def = p.permission;
  if (kind !== 'select' && rt.db.kind !== 'r' && rt.db.kind !== 'p') {
    const [bit, word] = WRITE_BIT[kind];
    if ((rt.db.updatable & bit) === 0) return `view ${qnQuoted(t)} is not ${word}`;
  }
  const refs: BoolExpRefs = { columns: [], relationships: [], tables: [], computedFields: [] };
  const missing = (c: string) => `column "${c}" does not exist in table ${qnQuoted(t)}`;
  if (Array.isArray(def.columns)) {
    for (const c of def.columns) {
      if (!rt.db.columns.has(c)) return missing(c);
      refs.columns.push({ table: t, column: c });
    }
  }
  const computedFields = def.computed_fields ?? [];
  for (const name of computedFields) {
    const cf = rt.computedFields.get(name);
    if (!cf) return `computed field "${name}" does not exist in table ${qnQuoted(t)}`;
    if (cf.returnsTable) {
      return `select permissions on computed field "${name}" are auto-derived from the permissions on its returning table ${qnQuoted(cf.returnsTable)} and cannot be specified manually`;
    }
  }
  for (const [c, v] of Object.entries(def.set ?? {})) {
    const col = rt.db.columns.get(c);
    if (!col) return missing(c);
    if (!presetFits(v, col.typeName)) return `invalid value for column "${c}" of type "${col.typeName}": ${JSON.stringify(v)}`;
    refs.columns.push({ table: t, column: c });
  }
  const expressions: Json[] = [];
  if (kind !== 'insert') expressions.push(def.filter ?? {});
  if (def.check !== undefined && def.check !== null) expressions.push(def.check);
  for (const exp of expressions) {
    const r = validateBoolExp(exp, boolExpTable(rt), schema);
    if ('reason' in r) return r.reason;
    refs.columns.push(...r.refs.columns);
    refs.relationships.push(...r.refs.relationships);
    refs.computedFields.push(...r.refs.computedFields);
    refs.tables.push(...r.refs.tables);
  }
  return { kind, role: p.role, refs, computedFields };
}

/** The BoolExp view of a resolved table: its columns, consistent relationships and computed fields. */
export function boolExpTable(rt: ResolvedTable): BoolExpTable {
  const computedFields: NonNullable<BoolExpTable['computedFields']> = new Map();
  for (const [name, cf] of rt.computedFields) {
    const def = rt.entry.computed_fields.find((c) => c.name === name)?.definition;
    const sa = def?.session_argument;
    const session = sa === undefined ? undefined : cf.fn.inputs.find((a) => a.name === sa);
    // The row and the session are all a permission can give (issue 29 point 3, as the incumbent).
    if (cf.fn.inputs.length - 1 - (sa === undefined ? 0 : 1) > 0) {
      computedFields.set(name, { unusable: `computed field "${name}" takes arguments besides the row${sa === undefined ? '' : ' and the session'}; it cannot be used in a boolean expression` });
      continue;
    }
    const tableArg = def?.table_argument ?? cf.fn.inputs[0]?.name ?? '';
    computedFields.set(name, {
      fn: { schema: cf.fn.schema, name: cf.fn.name }, typeName: cf.fn.returnTypeName, tableArg,
      ...(cf.returnsTable ? { rows: cf.returnsTable } : {}),
      ...(sa !== undefined ? { sessionArg: { name: sa, typeName: session?.castType ?? 'json' } } : {}),
    });
  }
  return { name: rt.entry.table, columns: rt.db.columns, relationships: rt.relationships, computedFields };
}
