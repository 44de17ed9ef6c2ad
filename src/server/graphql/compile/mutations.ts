import { getNamedType, type FieldNode, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { arrayLiteral, quoteIdent, quoteTable } from '../../bool-exp/compile.js';
import { isSessionRef, spatialFromText } from '../../bool-exp/operators.js';
import { isNowPreset } from '../../kinds/permissions.js';
import { pathKey } from '../../../metadata/json.js';
import type { Json } from '../../../metadata/json.js';
import type { GqlColumn } from '../schema/index.js';
import { jsonObject, SelectionCompiler } from './select.js';
import { validationFailed } from '../errors.js';
import type { MutationTable } from '../schema/index.js';
import type { StatementBuilder } from './sql-builder.js';
import { asList, hasVarRef, isPlainObject, paramText, type GValue } from './values.js';
import { whereSql } from './where.js';
import { updateSets } from './update-ops.js';
import type { RoleView } from '../schema/index.js';
import type { SelectionContext } from './selection.js';
import { CHECK_FAILED_STATE } from '../../catalog.js';
import type { PlanParam } from './bind.js';
import { hasNestedInsert, NestedInsertCompiler, type NestedPaths } from './nested-insert.js';

/**
 * Mutation root fields → one statement each (graphql-api.md §4.5–§4.7, §7.3): a data-modifying CTE `m` returns the
 * written rows whole (`r`) with the permission checks evaluated on them, and the outer SELECT builds the response from
 * them and aborts the statement when a check failed (engine_catalog.raise_error with CHECK_FAILED_STATE, the message
 * naming the check), so the check costs no extra round trip and COMMIT can be sent with the statement.
 */

type Field = GraphQLField<unknown, unknown>;

/** Which check failed: the error's message; the executor answers the matching §6.1 row 31/32 error. */
export type CheckFailure = 'insert' | 'update';

export interface MutationStatement {
  sql: string;
  /** Whether the statement can fail a check. */
  checked: boolean;
  /** A nested insert's writes, run before `sql` in the same transaction, and where its failures point. */
  prelude?: { sql: string; params: PlanParam[] };
  nested?: NestedPaths;
}

const PLACEHOLDER = '_PLACEHOLDER';
/** Values per insert above which uniform objects are bound column by column (one array parameter per column). */
export const COLUMNWISE_ABOVE = 20_000;
const MAX_PARAMS = 65_535;

/**
 * Whether the objects can be bound as one array per column: every object gives every column (no DEFAULT to keep),
 * no column is itself an array (unnest would flatten it) or a PostGIS value (read from its text by a function) and no
 * value is a bound variable.
 */
function columnwise(objects: GValue[], cols: GqlColumn[]): boolean {
  return cols.every((c) => !c.typeName.endsWith('[]') && spatialFromText('', c.castType) === null)
    && objects.every((o) => isPlainObject(o) && cols.every((c) => c.field in o && !hasVarRef(o[c.field] as GValue)));
}
const ROW = '"r"';
const failed = (check: CheckFailure): string => `engine_catalog.raise_error('${CHECK_FAILED_STATE}', '${check}')`;

export class MutationCompiler {
  private readonly sc: SelectionCompiler;

  constructor(private readonly b: StatementBuilder, private readonly role: RoleView, private readonly sel: SelectionContext) {
    this.sc = new SelectionCompiler(b, role, sel);
  }

  insert(field: Field, mt: MutationTable, one: boolean, nodes: FieldNode[], path: string): MutationStatement {
    const args = this.sel.args(nodes[0] as FieldNode);
    const objects = one ? [args.get('object') ?? {}] : asList(args.get('objects') ?? []);
    if (hasNestedInsert(mt, objects)) {
      const n = new NestedInsertCompiler(this.b, this.role, this.sel).compile(field, mt, one, objects, args.get('on_conflict'), nodes, path);
      return { sql: n.sql, checked: false, prelude: n.prelude, nested: n.nested };
    }
    const a = this.b.alias();
    // Objects are keyed by GraphQL names; `given` holds the SQL names of the columns they give.
    const allowed = new Map(mt.insertColumns.map((c) => [c.field, c]));
    const given = new Set<string>();
    objects.forEach((o, i) => {
      if (!isPlainObject(o)) return;
      for (const k of Object.keys(o)) {
        // A relationship given as null inserts nothing (nested inserts, issue 30.1).
        if (k === PLACEHOLDER || (o[k] === null && mt.relInserts.has(k))) continue;
        const c = allowed.get(k);
        if (!c) throw validationFailed(pathKey(one ? `${path}.args.object` : `${path}.args.objects[${i}]`, k), `field "${k}" not found in type: '${mt.name}_insert_input'`);
        given.add(c.name);
      }
    });
    if (objects.length === 0) return this.finish(field, mt, nodes, path, `SELECT NULL::${quoteTable(mt.rt.entry.table)} AS ${ROW} WHERE false`, [], one);
    const presets = this.presets(mt, mt.insert?.set, given);
    const cols = mt.allColumns.filter((c) => given.has(c.name));
    const names = [...cols.map((c) => c.name), ...presets.map(([c]) => c)];
    let rows: string;
    if (names.length === 0) {
      // No column given and no preset: every row takes its defaults. A VALUES list needs a column, so name the first.
      const first = mt.allColumns[0] as GqlColumn;
      names.push(first.name);
      rows = `VALUES ${objects.map(() => '(DEFAULT)').join(', ')}`;
    } else if (objects.length * cols.length > COLUMNWISE_ABOVE && columnwise(objects, cols)) {
      // Beyond PostgreSQL's 65,535 parameters per statement: one array parameter per column, unnested in parallel.
      const u = this.b.alias();
      const arrays = cols.map((c) => this.b.value(arrayLiteral(objects.map((o) => paramText((o as Record<string, GValue>)[c.field] as GValue, c.castType))), `${c.castType}[]`));
      const item = cols.map((_, i) => `${u}.${quoteIdent(`c${i}`)}`);
      rows = `SELECT ${[...item, ...presets.map(([, e]) => e)].join(', ')} FROM unnest(${arrays.join(', ')}) AS ${u}(${cols.map((_, i) => quoteIdent(`c${i}`)).join(', ')})`;
    } else {
      rows = `VALUES ${objects.map((o) => {
        const obj = isPlainObject(o) ? o : {};
        const cells = cols.map((c) => (c.field in obj ? this.b.param(obj[c.field] as GValue, c.castType) : 'DEFAULT'));
        return `(${[...cells, ...presets.map(([, e]) => e)].join(', ')})`;
      }).join(', ')}`;
    }
    if (this.b.params.length > MAX_PARAMS) {
      throw validationFailed(`${path}.args.${one ? 'object' : 'objects'}`, `too many values for one statement: ${this.b.params.length} parameters, PostgreSQL allows ${MAX_PARAMS}; give every object the same keys (they are then bound column by column) or split the objects`);
    }
    let sql = `INSERT INTO ${quoteTable(mt.rt.entry.table)} AS ${a} (${names.map(quoteIdent).join(', ')}) ${rows}`;
    const returning = [`${a} AS ${ROW}`];
    const checks: string[] = [];
    const oc = args.get('on_conflict');
    let upsert = false;
    if (isPlainObject(oc)) {
      const given = asList(oc['update_columns'] ?? []).map(String);
    // A role without update columns has only the placeholder value, which names no column (the incumbent's error).
    if (given.includes(PLACEHOLDER)) throw validationFailed(`${path}.args.on_conflict`, 'erroneous column name');
    const updateColumns = given.flatMap((f) => mt.updateColumns.find((c) => c.field === f)?.name ?? []);
      const constraint = quoteIdent(String(oc['constraint']));
      if (updateColumns.length === 0) sql += ` ON CONFLICT ON CONSTRAINT ${constraint} DO NOTHING`;
      else {
        upsert = true;
        const sets = [...updateColumns.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`), ...this.presets(mt, mt.update?.set, new Set()).map(([c, e]) => `${quoteIdent(c)} = ${e}`)];
        const where = [this.filter(mt, mt.update?.filter, a)];
        if (isPlainObject(oc['where']) && mt.view) where.push(whereSql(this.b, this.role, oc['where'], mt.view, a, `${path}.args.on_conflict.where`));
        const cond = where.filter((w) => w !== 'true');
        sql += ` ON CONFLICT ON CONSTRAINT ${constraint} DO UPDATE SET ${sets.join(', ')}${cond.length > 0 ? ` WHERE ${cond.join(' AND ')}` : ''}`;
      }
    }
    if (!this.role.admin) {
      const ins = this.check(mt.insert?.check, mt, a);
      const upd = upsert ? this.check(mt.update?.check, mt, a) : null;
      if (upsert) returning.push(`(${a}.xmax = 0) AS "ins"`);
      if (ins) {
        returning.push(`${ins} AS "ic"`);
        checks.push(`WHEN bool_and(coalesce("ic", false))${upsert ? ' FILTER (WHERE "ins")' : ''} IS FALSE THEN ${failed('insert')}`);
      }
      if (upd) {
        returning.push(`${upd} AS "uc"`);
        checks.push(`WHEN bool_and(coalesce("uc", false)) FILTER (WHERE NOT "ins") IS FALSE THEN ${failed('update')}`);
      }
    }
    return this.finish(field, mt, nodes, path, `${sql} RETURNING ${returning.join(', ')}`, checks, one);
  }

  update(field: Field, mt: MutationTable, byPk: boolean, nodes: FieldNode[], path: string): MutationStatement {
    return this.updateWith(field, mt, byPk, this.sel.args(nodes[0] as FieldNode), nodes, path, `${path}.args`);
  }

  /** One update with its operators and target in `args` (at `argsPath`): a root field's, or an item of `update_<t>_many`. */
  updateWith(field: Field, mt: MutationTable, byPk: boolean, args: Map<string, GValue>, nodes: FieldNode[], path: string, argsPath: string): MutationStatement {
    const a = this.b.alias();
    const sets = updateSets(this.b, mt, args, a, argsPath);
    for (const [c, e] of this.presets(mt, mt.update?.set, new Set())) sets.push(`${quoteIdent(c)} = ${e}`);
    const where = [this.filter(mt, mt.update?.filter, a), ...this.target(mt, byPk, args, a, argsPath)];
    const cond = where.filter((w) => w !== 'true');
    // Nothing to set (no operator, no preset): no row is updated, as the incumbent answers.
    // The condition stays in the text so that its parameters are typed.
    if (sets.length === 0) return this.finish(field, mt, nodes, path, `SELECT ${a} AS ${ROW} FROM ${quoteTable(mt.rt.entry.table)} AS ${a} WHERE false${cond.map((c) => ` AND ${c}`).join('')}`, [], byPk);
    const returning = [`${a} AS ${ROW}`];
    const checks: string[] = [];
    const check = this.role.admin ? null : this.check(mt.update?.check, mt, a);
    if (check) {
      returning.push(`${check} AS "uc"`);
      checks.push(`WHEN bool_and(coalesce("uc", false)) IS FALSE THEN ${failed('update')}`);
    }
    const sql = `UPDATE ${quoteTable(mt.rt.entry.table)} AS ${a} SET ${sets.join(', ')}${cond.length > 0 ? ` WHERE ${cond.join(' AND ')}` : ''} RETURNING ${returning.join(', ')}`;
    return this.finish(field, mt, nodes, path, sql, checks, byPk);
  }

  delete(field: Field, mt: MutationTable, byPk: boolean, nodes: FieldNode[], path: string): MutationStatement {
    const args = this.sel.args(nodes[0] as FieldNode);
    const a = this.b.alias();
    const cond = [this.filter(mt, mt.delete?.filter, a), ...this.target(mt, byPk, args, a, `${path}.args`)].filter((w) => w !== 'true');
    const sql = `DELETE FROM ${quoteTable(mt.rt.entry.table)} AS ${a}${cond.length > 0 ? ` WHERE ${cond.join(' AND ')}` : ''} RETURNING ${a} AS ${ROW}`;
    return this.finish(field, mt, nodes, path, sql, [], byPk);
  }

  /** The rows a `where` or primary-key arguments select. */
  private target(mt: MutationTable, byPk: boolean, args: Map<string, GValue>, a: string, argsPath: string): string[] {
    if (byPk) {
      const keys = args.get('pk_columns');
      const values = isPlainObject(keys) ? keys : Object.fromEntries(args);
      return (mt.view?.pk ?? []).map((c) => `${a}.${quoteIdent(c.name)} = ${this.b.param(values[c.field] ?? null, c.castType)}`);
    }
    const w = args.get('where');
    return mt.view && isPlainObject(w) ? [whereSql(this.b, this.role, w, mt.view, a, `${argsPath}.where`)] : [];
  }

  /** A permission filter on the target alias; true for admin. */
  private filter(mt: MutationTable, exp: Json | undefined, a: string): string {
    if (this.role.admin || exp === undefined || exp === null) return 'true';
    return this.b.boolExpOn(exp, mt.rt, a);
  }

  private check(exp: Json | undefined | null, mt: MutationTable, a: string): string | null {
    if (exp === undefined || exp === null) return null;
    return `(${this.b.boolExpOn(exp, mt.rt, a)})`;
  }

  /** Preset columns with their SQL expressions (engine-api.md §4.3.2): bound values, session variables, now(). */
  private presets(mt: MutationTable, set: Record<string, Json> | undefined, given: Set<string>): [string, string][] {
    if (!set || this.role.admin) return [];
    const out: [string, string][] = [];
    for (const [name, v] of Object.entries(set)) {
      const c = mt.allColumns.find((x) => x.name === name);
      if (!c || given.has(name)) continue;
      if (isNowPreset(v, c.typeName)) out.push([name, 'now()']);
      else if (isSessionRef(v)) out.push([name, this.b.session(String(v).toLowerCase(), c.castType)]);
      else out.push([name, this.b.value(v === null ? null : typeof v === 'string' ? v : JSON.stringify(v), c.castType)]);
    }
    return out;
  }

  /** The written rows the role may see, as `FROM … AS <alias>` over the CTE's whole rows (their table's row type). */
  private visibleRows(mt: MutationTable, limit: string): { from: string; alias: string } {
    const t = this.b.alias();
    const perm = mt.view && !this.role.admin ? this.b.permission(mt.view, t) : 'true';
    return { from: `FROM unnest(ARRAY(SELECT ${ROW} FROM "m")) AS ${t}${perm !== 'true' ? ` WHERE ${perm}` : ''}${limit}`, alias: t };
  }

  /** `WITH "m" AS (<write>) SELECT <response> AS "root", <check> AS "fail" FROM <guard>` (StatementBuilder.guard). */
  private finish(field: Field, mt: MutationTable, nodes: FieldNode[], path: string, write: string, checks: string[], single: boolean): MutationStatement {
    const type = getNamedType(field.type) as GraphQLObjectType;
    let root: string;
    if (single) {
      const { from, alias } = this.visibleRows(mt, ' LIMIT 1');
      root = `(SELECT ${this.sc.objectJson(type, nodes, alias, path, mt.view)} ${from})`;
    } else {
      const pairs: [string, string][] = [];
      for (const [key, fns] of this.sel.subfields(nodes)) {
        const n = fns[0] as FieldNode;
        if (n.name.value === '__typename') pairs.push([key, `'${type.name}'::text`]);
        else if (n.name.value === 'affected_rows') pairs.push([key, '(SELECT count(*) FROM "m")::integer']);
        else {
          const item = getNamedType(type.getFields()['returning']?.type) as GraphQLObjectType;
          const { from, alias } = this.visibleRows(mt, '');
          pairs.push([key, `(SELECT coalesce(json_agg(${this.sc.objectJson(item, fns, alias, `${path}.selectionSet.${key}`, mt.view)}), '[]'::json) ${from})`]);
        }
      }
      root = jsonObject(pairs);
    }
    const fail = checks.length > 0 ? `(SELECT CASE ${checks.join(' ')} END FROM "m")` : 'NULL::text';
    return { sql: `WITH "m" AS (${write}) SELECT (${root})::text AS "root", ${fail} AS "fail" FROM ${this.b.guard()}`, checked: checks.length > 0 };
  }
}
