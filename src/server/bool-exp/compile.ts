import { compareCodePoints, isObject, type Json } from '../../metadata/json.js';
import { qualifiedName } from '../../metadata/reader.js';
import { canonicalKey, columnRef, isSessionRef, operatorOf, spatialFromText, spatialType } from './operators.js';
import type { BoolExpComputedField, BoolExpSchema, BoolExpTable } from './schema.js';

/**
 * Compiles a validated BoolExp to a parameterised SQL condition (graphql-api.md §4.2): values are always
 * parameters with an explicit cast, identifiers always double-quoted, session variables bound per request.
 */

/** A parameter slot: a static value, or a session variable read when the statement is bound. */
export type Param =
  | { kind: 'value'; text: string | null }
  | { kind: 'session'; name: string; array: boolean }
  /** An array operand whose elements may themselves be session variables (`_in: ["X-Engine-User-Id", 5]`). */
  | { kind: 'array'; items: ({ text: string | null } | { session: string })[] }
  /** The whole session-variables object as JSON (a computed field's session argument, issue 29 point 3). */
  | { kind: 'session-json' };

export interface Compiled {
  sql: string;
  params: Param[];
}

export const quoteIdent = (s: string): string => `"${s.replace(/"/g, '""')}"`;
export const quoteTable = (t: { schema: string; name: string }): string => `${quoteIdent(t.schema)}.${quoteIdent(t.name)}`;

/** A type name from the catalog (format_type output) used as a cast target; never request data. */
const cast = (typeName: string): string => typeName;
const castTypeOf = (c: { typeName: string; castType?: string } | undefined): string => c?.castType ?? c?.typeName ?? 'text';

/** JSON scalar → the text PostgreSQL casts from. */
function scalarText(v: Json, typeName: string): string | null {
  if (v === null) return null;
  if (typeName === 'jsonb' || typeName === 'json') return JSON.stringify(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return typeof v === 'number' ? String(v) : JSON.stringify(v);
}

const QUOTED = /["\\]/;

/** A PostgreSQL array literal; every element quoted, so commas, braces and quotes in values stay inside. */
export function arrayLiteral(items: (string | null)[]): string {
  // Most texts hold neither a quote nor a backslash: one test instead of two replacements (thousands of values).
  return `{${items.map((s) => (s === null ? 'NULL' : QUOTED.test(s) ? `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${s}"`)).join(',')}}`;
}

class Builder {
  readonly params: Param[] = [];
  private aliases = 0;
  constructor(private readonly offset: number) {}

  value(text: string | null, typeName: string): string {
    this.params.push({ kind: 'value', text });
    return `$${this.offset + this.params.length}::${cast(typeName)}`;
  }

  operand(v: Json, typeName: string): string {
    if (isSessionRef(v)) {
      this.params.push({ kind: 'session', name: (v as string).toLowerCase(), array: false });
      return `$${this.offset + this.params.length}::${cast(typeName)}`;
    }
    if (isObject(v) && spatialType(typeName) !== null) {
      // A GeoJSON value of a PostGIS column (geography's input function does not read GeoJSON).
      this.params.push({ kind: 'value', text: JSON.stringify(v) });
      return spatialFromText(`$${this.offset + this.params.length}::text`, typeName) as string;
    }
    return this.value(scalarText(v, typeName), typeName);
  }

  arrayOperand(v: Json, typeName: string): string {
    if (isSessionRef(v)) {
      this.params.push({ kind: 'session', name: (v as string).toLowerCase(), array: true });
    } else {
      const values = v as Json[];
      if (values.some(isSessionRef)) {
        const items = values.map((x) => (isSessionRef(x) ? { session: (x as string).toLowerCase() } : { text: scalarText(x, typeName) }));
        this.params.push({ kind: 'array', items });
      } else {
        this.params.push({ kind: 'value', text: arrayLiteral(values.map((x) => scalarText(x, typeName))) });
      }
    }
    return `$${this.offset + this.params.length}::${cast(typeName)}[]`;
  }

  alias(): string {
    return quoteIdent(`_be${this.aliases++}`);
  }

  /** `"s"."f"(<row>, "session" => $n::json)`: the table argument by name when it has one (it may not be first). */
  call(cf: BoolExpComputedField, row: string): string {
    const args = [cf.tableArg ? `${quoteIdent(cf.tableArg)} => ${row}` : row];
    if (cf.sessionArg) {
      this.params.push({ kind: 'session-json' });
      args.push(`${quoteIdent(cf.sessionArg.name)} => $${this.offset + this.params.length}::${cast(cf.sessionArg.typeName)}`);
    }
    return `${quoteTable(cf.fn)}(${args.join(', ')})`;
  }
}

export function compileBoolExp(exp: Json, table: BoolExpTable, alias: string, schema: BoolExpSchema, paramOffset = 0): Compiled {
  const b = new Builder(paramOffset);
  const sql = expression(exp, table, quoteIdent(alias), schema, b, quoteIdent(alias));
  return { sql, params: b.params };
}

/** `rootAlias`: the row of the table the whole expression applies to (`["$", column]` operands, issue 29). */
function expression(exp: Json, table: BoolExpTable, alias: string, schema: BoolExpSchema, b: Builder, rootAlias: string): string {
  const o = (isObject(exp) ? exp : {}) as Record<string, Json>;
  const parts: string[] = [];
  for (const key of Object.keys(o).sort(compareCodePoints)) {
    const value = o[key] as Json;
    const k = canonicalKey(key);
    if (k === '_and' || k === '_or') {
      const subs = (value as Json[]).map((s) => expression(s, table, alias, schema, b, rootAlias));
      parts.push(subs.length === 0 ? (k === '_and' ? 'true' : 'false') : `(${subs.join(k === '_and' ? ' AND ' : ' OR ')})`);
    } else if (k === '_not') {
      parts.push(`(NOT ${expression(value, table, alias, schema, b, rootAlias)})`);
    } else if (k === '_exists') {
      const e = value as Record<string, Json>;
      const target = schema.table(qualifiedName(e['_table'], '$')) as BoolExpTable;
      const a = b.alias();
      parts.push(`EXISTS (SELECT 1 FROM ${quoteTable(target.name)} AS ${a} WHERE ${expression(e['_where'] as Json, target, a, schema, b, rootAlias)})`);
    } else if (table.columns.has(key)) {
      parts.push(column(`${alias}.${quoteIdent(key)}`, castTypeOf(table.columns.get(key)), value, alias, b, rootAlias));
    } else if (!table.relationships.has(key) && table.computedFields?.has(key)) {
      const cf = table.computedFields.get(key) as BoolExpComputedField;
      const remote = cf.rows && schema.table(cf.rows);
      if (remote) {
        const a = b.alias();
        parts.push(`EXISTS (SELECT 1 FROM ${b.call(cf, alias)} AS ${a} WHERE ${expression(value, remote, a, schema, b, rootAlias)})`);
        continue;
      }
      parts.push(column(b.call(cf, alias), cf.typeName, value, alias, b, rootAlias));
    } else {
      const rel = table.relationships.get(key);
      const remote = rel && schema.table(rel.remote);
      if (!rel || !remote) throw new Error(`BoolExp was not validated: unknown key ${key}`);
      const a = b.alias();
      const join = rel.mapping.map(([l, r]) => `${a}.${quoteIdent(r)} = ${alias}.${quoteIdent(l)}`).join(' AND ');
      parts.push(`EXISTS (SELECT 1 FROM ${quoteTable(remote.name)} AS ${a} WHERE ${join} AND ${expression(value, remote, a, schema, b, rootAlias)})`);
    }
  }
  return parts.length === 0 ? 'true' : parts.length === 1 ? (parts[0] as string) : `(${parts.join(' AND ')})`;
}

/** A GeoJSON operand (a static object or a session variable holding its text) as a value of the column's PostGIS type. */
function geoJson(b: Builder, v: Json, typeName: string): string {
  const g = `ST_GeomFromGeoJSON(${isSessionRef(v) ? b.operand(v, 'text') : b.value(JSON.stringify(v), 'text')})`;
  return spatialType(typeName) === 'geography' ? `${g}::geography` : g;
}

function column(col: string, typeName: string, value: Json, alias: string, b: Builder, rootAlias: string): string {
  if (!isObject(value)) return value === null ? `${col} IS NULL` : `${col} IS NOT DISTINCT FROM ${b.operand(value, typeName)}`;
  const parts: string[] = [];
  for (const opKey of Object.keys(value).sort(compareCodePoints)) {
    const op = operatorOf(opKey);
    const operand = value[opKey] as Json;
    if (!op) throw new Error(`BoolExp was not validated: unknown operator ${opKey}`);
    switch (op.cls) {
      case 'null-compare':
        parts.push(operand === null
          ? `${col} ${op.sql === 'IS DISTINCT FROM' ? 'IS NOT NULL' : 'IS NULL'}`
          : `${col} ${op.sql} ${b.operand(operand, typeName)}`);
        break;
      case 'compare':
      case 'text':
        parts.push(`${col} ${op.sql} ${b.operand(operand, typeName)}`);
        break;
      case 'in':
        parts.push(`${op.sql === 'IN' ? '' : 'NOT '}(${col} = ANY(${b.arrayOperand(operand, typeName)}))`);
        break;
      case 'is-null':
        parts.push(`${col} ${operand === true ? 'IS NULL' : 'IS NOT NULL'}`);
        break;
      case 'column': {
        const ref = columnRef(operand) as { column: string; root: boolean };
        parts.push(`${col} ${op.sql} ${ref.root ? rootAlias : alias}.${quoteIdent(ref.column)}`);
        break;
      }
      case 'jsonb-value':
        parts.push(`${col} ${op.sql} ${b.operand(operand, 'jsonb')}`);
        break;
      case 'jsonb-key':
        parts.push(`${col} ? ${b.operand(operand, 'text')}`);
        break;
      case 'jsonb-keys':
        parts.push(`${col} ${op.sql} ${b.arrayOperand(operand, 'text')}`);
        break;
      case 'spatial':
        parts.push(`${op.sql}(${col}, ${geoJson(b, operand, typeName)})`);
        break;
      case 'spatial-distance': {
        const o = operand as Record<string, Json>;
        const sph = spatialType(typeName) === 'geography' && typeof o['use_spheroid'] === 'boolean' ? `, ${String(o['use_spheroid'])}` : '';
        parts.push(`${op.sql}(${col}, ${geoJson(b, o['from'] as Json, typeName)}, ${b.operand(o['distance'] as Json, 'double precision')}${sph})`);
        break;
      }
    }
  }
  return parts.length === 0 ? 'true' : parts.length === 1 ? (parts[0] as string) : `(${parts.join(' AND ')})`;
}
