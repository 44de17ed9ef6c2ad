import type { FieldNode, GraphQLField } from 'graphql';
import { arrayLiteral, quoteIdent, quoteTable } from '../../bool-exp/compile.js';
import { spatialFromText } from '../../bool-exp/operators.js';
import { pathKey } from '../../../metadata/json.js';
import { CHECK_FAILED_STATE } from '../../catalog.js';
import { validationFailed } from '../errors.js';
import type { GqlColumn, MutationTable, RelInsert, RoleView } from '../schema/index.js';
import { presetExprs } from './presets.js';
import { checksAndResponse, keptByCtid, SETTING, type AnswerLevel } from './nested-answer.js';
import type { SelectionContext } from './selection.js';
import { StatementBuilder } from './sql-builder.js';
import { asList, hasVarRef, isPlainObject, jsonText, paramText, type GValue } from './values.js';
import { whereSql } from './where.js';
import type { PlanParam } from './bind.js';

/**
 * Nested inserts (issue 30.1): an insert whose objects insert through relationships. Two statements in the
 * mutation's transaction, sent in one round trip:
 *  1. the writes: one data-modifying CTE per level (a relationship under one parent level with one `on_conflict`)
 *     and set of given columns; a level reads the keys of the rows it depends on (its parent's for array and
 *     `after_parent` relationships, its children's for `before_parent` ones) by joining their CTEs on the objects'
 *     ordinals. A row's ordinal is captured as it is written (the ModifyTable node pulls one input row, writes it and
 *     evaluates RETURNING before it pulls the next) through a transaction-local setting. The written rows' ctids
 *     are kept in settings for statement 2;
 *  2. the permission checks of every level and the response, over the rows read back by ctid: a check or a
 *     relationship in `returning` sees every row the whole insert wrote (in one statement, CTEs do not see each
 *     other's rows). A failed check aborts the transaction, so nothing is written.
 * Failures carry `nested:<level>:<ordinal>:<kind>`; `nestedFailure` turns them into the incumbent's errors and paths.
 */

type Field = GraphQLField<unknown, unknown>;
type Obj = Record<string, GValue>;

/** What the executor needs to report a failure of a nested insert: each level's place in the input. */
export interface NestedPaths {
  levels: { parent: number; rel: string; table: string; before: boolean; leaf: boolean; po: number[]; index: number[] }[];
  root: string;
}

export interface NestedStatement {
  prelude: { sql: string; params: PlanParam[] };
  sql: string;
  nested: NestedPaths;
}

interface Level extends AnswerLevel {
  id: number;
  mt: MutationTable;
  parent: Level | null;
  rel: RelInsert | null;
  onConflict: GValue | undefined;
  /** Each object, its parent's ordinal (1-based; 0 at the root), its index in its parent's list, its path. */
  objects: { obj: Obj; ord: number; po: number; index: number; path: string; before: ReadonlyMap<Level, number>; after: boolean }[];
  children: Map<string, Level>;
  /** Whether rows of other levels read this level's rows (so every object must give a row). */
  dependents: boolean;
  checked: boolean;
  /** The insertable columns by GraphQL name, and the SQL columns the parent determines (computed once per level). */
  allowed: Map<string, GqlColumn>;
  addCols: string[];
}

const PLACEHOLDER = '_PLACEHOLDER';
/** The `before` of the many objects without an object relationship inserted before them (never written to). */
const NO_BEFORE: ReadonlyMap<Level, number> = new Map();

/** Whether an insert's objects insert through relationships. */
export function hasNestedInsert(mt: MutationTable, objects: GValue[]): boolean {
  if (mt.relInserts.size === 0) return false;
  return objects.some((o) => isPlainObject(o) && Object.keys(o).some((k) => mt.relInserts.has(k) && o[k] !== null));
}

const isArrayType = (c: GqlColumn): boolean => c.castType.endsWith('[]');

const tableText = (mt: MutationTable): string => {
  const t = mt.rt.entry.table;
  return t.schema === 'public' ? t.name : `${t.schema}.${t.name}`;
};

export class NestedInsertCompiler {
  private readonly levels: Level[] = [];
  private readonly w: StatementBuilder;

  constructor(private readonly b: StatementBuilder, private readonly role: RoleView, private readonly sel: SelectionContext) {
    this.w = new StatementBuilder(role.cache);
  }

  compile(field: Field, mt: MutationTable, one: boolean, objects: GValue[], onConflict: GValue | undefined, nodes: FieldNode[], path: string): NestedStatement {
    const rootPath = `${path}.args.${one ? 'object' : 'objects'}`;
    const root = this.level(mt, null, null, onConflict);
    objects.forEach((o, i) => this.add(root, isPlainObject(o) ? o : {}, 0, i, `${rootPath}[${i}]`));
    const ctes: string[] = [];
    // A level's CTE follows the CTEs it reads: the objects it points to first, then it, then the rows pointing to it.
    const emit = (l: Level): void => {
      const kids = [...l.children.values()];
      for (const c of kids) if (c.rel?.order === 'before' && !c.rel.array) emit(c);
      ctes.push(...this.writeLevel(l));
      for (const c of kids) if (!(c.rel?.order === 'before' && !c.rel.array)) emit(c);
    };
    emit(root);
    const prelude = this.prelude(ctes);
    const sql = checksAndResponse({ b: this.b, role: this.role, sel: this.sel }, this.levels, field, root, one, nodes, path);
    const nested: NestedPaths = {
      root: rootPath,
      levels: this.levels.map((l) => ({
        parent: l.parent?.id ?? -1, rel: l.rel?.name ?? '', table: tableText(l.mt), before: l.rel?.order === 'before' && !l.rel.array,
        leaf: l.children.size === 0, po: l.objects.map((o) => o.po), index: l.objects.map((o) => o.index),
      })),
    };
    return { prelude: { sql: prelude, params: this.w.params }, sql, nested };
  }

  private level(mt: MutationTable, parent: Level | null, rel: RelInsert | null, onConflict: GValue | undefined): Level {
    const allowed = new Map(mt.insertColumns.map((c) => [c.field, c]));
    const addCols = rel && (rel.array || rel.order === 'after') ? rel.mapping.map(([, r]) => r) : [];
    const l: Level = { id: this.levels.length, mt, parent, rel, onConflict, objects: [], children: new Map(), dependents: false, checked: false, allowed, addCols };
    this.levels.push(l);
    return l;
  }

  /** Adds one object (and its nested objects) to level `l`; `addCols`: the columns its parent determines. */
  private add(l: Level, obj: Obj, po: number, index: number, path: string): number {
    const { mt, allowed, addCols } = l;
    const given: string[] = [];
    const rels: [RelInsert, Obj | GValue[] | null, GValue | undefined][] = [];
    for (const k of Object.keys(obj)) {
      if (k === PLACEHOLDER) continue;
      const v = obj[k] as GValue;
      const c = allowed.get(k);
      if (c) {
        given.push(c.name);
        continue;
      }
      const r = mt.relInserts.get(k);
      if (!r) throw validationFailed(pathKey(path, k), `field "${k}" not found in type: '${mt.name}_insert_input'`);
      if (v === null) continue;
      const data = isPlainObject(v) ? v['data'] : undefined;
      rels.push([r, r.array ? asList(data ?? []) : (isPlainObject(data) ? data : {}), isPlainObject(v) ? v['on_conflict'] : undefined]);
    }
    // The incumbent's validation: columns the parent determines are not given, nor a relationship's columns twice.
    const conflict = given.filter((c) => addCols.includes(c));
    if (conflict.length > 0) throw validationFailed(path, `cannot insert ${conflict.map((c) => `"${c}"`).join(', ')} columns as their values are already being determined by parent insert`);
    for (const [r] of rels) {
      if (r.array || r.order === 'after') continue;
      const lCols = r.mapping.map(([local]) => local).filter((c) => addCols.includes(c) || given.includes(c));
      if (lCols.length > 0) throw validationFailed(pathKey(path, r.name), `cannot insert object relationship "${r.name}" as ${lCols.map((c) => `"${c}"`).join(', ')} column values are already determined`);
    }
    const ord = l.objects.length + 1;
    const entry = { obj, ord, po, index, path, before: NO_BEFORE, after: false };
    l.objects.push(entry);
    for (const [r, data, oc] of rels) {
      if (r.array && (data as GValue[]).length === 0) continue;
      const key = `${r.name}\u0000${oc === undefined ? '' : jsonText(oc)}`;
      let child = l.children.get(key);
      if (!child) {
        child = this.level(r.table, l, r, oc);
        l.children.set(key, child);
      }
      if (r.array) {
        const list = data as GValue[];
        list.forEach((o, i) => this.add(child, isPlainObject(o) ? o : {}, ord, i, `${path}.${r.name}.data[${i}]`));
        if (list.length > 0) {
          entry.after = true;
          l.dependents = true;
        }
      } else if (r.order === 'after') {
        this.add(child, data as Obj, ord, 0, `${path}.${r.name}.data[0]`);
        entry.after = true;
        l.dependents = true;
      } else {
        const c = this.add(child, data as Obj, ord, 0, `${path}.${r.name}.data`);
        const before = entry.before === NO_BEFORE ? new Map<Level, number>() : entry.before as Map<Level, number>;
        before.set(child, c);
        entry.before = before;
        child.dependents = true;
      }
    }
    return ord;
  }

  /** The CTEs writing one level: one per set of given columns (a row source cannot say DEFAULT), then their union. */
  private writeLevel(l: Level): string[] {
    const mt = l.mt;
    const b = this.w;
    const presets = presetExprs(this.w, this.role.admin, mt, mt.insert?.set);
    const presetCols = new Set(presets.map(([c]) => c));
    const groups = new Map<string, typeof l.objects>();
    const byField = l.allowed;
    // Objects usually give their keys in one order: the group's key is computed again only when the order changes.
    let lastKeys: string[] = [];
    let cols = '';
    for (const o of l.objects) {
      const keys = Object.keys(o.obj);
      if (keys.length !== lastKeys.length || keys.some((k, i) => k !== lastKeys[i])) {
        lastKeys = keys;
        cols = keys.filter((k) => byField.has(k)).sort().join(',');
      }
      const key = o.before.size === 0 ? cols : `${cols}|${[...o.before.keys()].map((c) => c.id).join(',')}`;
      const g = groups.get(key);
      if (g) g.push(o);
      else groups.set(key, [o]);
    }
    const names: string[] = [];
    const ctes: string[] = [];
    const capture = l.dependents || l.parent === null;
    let gi = 0;
    for (const objects of groups.values()) {
      const first = objects[0] as (typeof objects)[number];
      const a = b.alias();
      const v = b.alias();
      const cols: GqlColumn[] = mt.allColumns.filter((c) => byField.get(c.field) === c && c.field in first.obj && !presetCols.has(c.name));
      const target: string[] = [];
      const exprs: string[] = [];
      const from: string[] = [];
      cols.forEach((c, i) => {
        target.push(c.name);
        // An array-typed column's values travel as their texts (unnest would flatten an array of arrays).
        const cell = `${v}.${quoteIdent(`c${i}`)}`;
        exprs.push(isArrayType(c) ? `${cell}::${c.castType}` : spatialFromText(cell, c.castType) ?? cell);
      });
      if (l.rel && l.parent && (l.rel.array || l.rel.order === 'after')) {
        const p = b.alias();
        from.push(`JOIN ${quoteIdent(`n${l.parent.id}`)} AS ${p} ON ${p}."o" = ${v}."po"`);
        for (const [local, remote] of l.rel.mapping) {
          if (presetCols.has(remote)) continue;
          target.push(remote);
          exprs.push(`(${p}."r").${quoteIdent(local)}`);
        }
      }
      const befores = [...first.before.keys()];
      befores.forEach((child, i) => {
        const c = b.alias();
        from.push(`JOIN ${quoteIdent(`n${child.id}`)} AS ${c} ON ${c}."o" = ${v}.${quoteIdent(`b${i}`)}`);
        for (const [local, remote] of child.rel?.mapping ?? []) {
          if (presetCols.has(local) || target.includes(local)) continue;
          target.push(local);
          exprs.push(`(${c}."r").${quoteIdent(remote)}`);
        }
      });
      for (const [c, e] of presets) {
        target.push(c);
        exprs.push(e);
      }
      const vcols = ['"o"', '"po"', ...befores.map((_, i) => quoteIdent(`b${i}`)), ...cols.map((_, i) => quoteIdent(`c${i}`))];
      let source: string;
      let ordExpr: string;
      const setting = SETTING('o', l.id);
      if (exprs.length === 0) {
        // Nothing given: every row takes its defaults, positionally (no join can need this level's order).
        const firstCol = mt.allColumns[0] as GqlColumn;
        target.push(firstCol.name);
        source = `VALUES ${objects.map(() => '(DEFAULT)').join(', ')}`;
        ordExpr = 'NULL::integer';
      } else {
        if (capture) exprs[0] = `CASE WHEN set_config(${setting}, ${v}."o"::text, true) IS NULL THEN NULL ELSE ${exprs[0]} END`;
        // Rows are written in the objects' order (serial keys follow it); PostgreSQL evaluates an output list holding
        // a volatile function (the capture) after the sort, row by row as the insert pulls them.
        // One array per column, unnested in parallel: the text and its parameters do not grow with the objects, so
        // PostgreSQL parses and plans a few parameters instead of a VALUES list of every value (issue 30's benchmark).
        const ints = (xs: number[]): string => b.value(`{${xs.join(',')}}`, 'integer[]');
        const arrays = [ints(objects.map((o) => o.ord)), ints(objects.map((o) => o.po)), ...befores.map((c) => ints(objects.map((o) => o.before.get(c) ?? 0))),
          ...cols.map((c) => this.column(objects.map((o) => o.obj[c.field] as GValue), c))];
        source = `SELECT ${exprs.join(', ')} FROM unnest(${arrays.join(', ')}) AS ${v}(${vcols.join(', ')}) ${from.join(' ')}${from.length > 0 ? ` ORDER BY ${v}."o"` : ''}`;
        ordExpr = capture ? `current_setting(${setting})::integer` : 'NULL::integer';
      }
      let sql = `INSERT INTO ${quoteTable(mt.rt.entry.table)} AS ${a} (${target.map(quoteIdent).join(', ')}) ${source}`;
      sql += this.conflict(l, a, `${first.path}`);
      const name = quoteIdent(`g${l.id}_${gi++}`);
      const ords = objects.map((o) => o.ord);
      // The whole row only where other levels read its columns (the checks and the response read the table again).
      const r = l.dependents ? '"r", ' : '';
      // A view has neither ctid nor xmax: its row is kept whole, and a row it wrote counts as inserted.
      const kept = keptByCtid(mt) ? `${a}.ctid AS "t", ${ordExpr} AS "o", (${a}.xmax = 0) AS "ins"` : `${a} AS "t", ${ordExpr} AS "o", true AS "ins"`;
      ctes.push(`${name} AS (${sql} RETURNING ${l.dependents ? `${a} AS "r", ` : ''}${kept})`);
      // Positional ordinals where none was captured (the rows come back in the order they were given).
      names.push(exprs.length === 0 || !capture
        ? `SELECT ${r}"t", (${b.value(`{${ords.join(',')}}`, 'integer[]')})[row_number() OVER ()] AS "o", "ins" FROM ${name}`
        : `SELECT ${r}"t", "o", "ins" FROM ${name}`);
    }
    ctes.push(`${quoteIdent(`n${l.id}`)} AS (${names.join(' UNION ALL ')})`);
    return ctes;
  }

  /**
   * One column's values as one array parameter; values holding bound variables are converted when bound, so they
   * are an ARRAY of parameters instead (an array-typed column's as texts, cast back per row).
   */
  private column(values: GValue[], c: GqlColumn): string {
    const b = this.w;
    // A PostGIS value travels as its GeoJSON (or hex) text too, read by its constructor per row.
    const spatial = spatialFromText('', c.castType) !== null;
    const asText = isArrayType(c) || spatial;
    const one = (x: GValue): string => (spatial ? b.param(x, 'text') : asText ? `(${b.param(x, c.castType)})::text` : b.param(x, c.castType));
    if (values.some(hasVarRef)) return `ARRAY[${values.map(one).join(', ')}]::${asText ? 'text' : c.castType}[]`;
    return b.value(arrayLiteral(values.map((x) => paramText(x, c.castType))), asText ? 'text[]' : `${c.castType}[]`);
  }

  private conflict(l: Level, a: string, path: string): string {
    const oc = l.onConflict;
    const mt = l.mt;
    if (!isPlainObject(oc)) return '';
    const given = asList(oc['update_columns'] ?? []).map(String);
    // A role without update columns has only the placeholder value, which names no column (the incumbent's error).
    if (given.includes(PLACEHOLDER)) throw validationFailed(`${path}.on_conflict`, 'erroneous column name');
    const updateColumns = given.flatMap((f) => mt.updateColumns.find((c) => c.field === f)?.name ?? []);
    const constraint = quoteIdent(String(oc['constraint']));
    if (updateColumns.length === 0) return ` ON CONFLICT ON CONSTRAINT ${constraint} DO NOTHING`;
    l.checked = l.checked || (!this.role.admin && mt.update?.check !== undefined && mt.update.check !== null);
    const sets = [...updateColumns.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`), ...presetExprs(this.w, this.role.admin, mt, mt.update?.set).map(([c, e]) => `${quoteIdent(c)} = ${e}`)];
    const where: string[] = [];
    if (!this.role.admin && mt.update?.filter !== undefined && mt.update.filter !== null) where.push(this.w.boolExpOn(mt.update.filter, mt.rt, a));
    if (isPlainObject(oc['where']) && mt.view) where.push(whereSql(this.w, this.role, oc['where'], mt.view, a, `${path}.on_conflict.where`));
    const cond = where.filter((w) => w !== 'true');
    return ` ON CONFLICT ON CONSTRAINT ${constraint} DO UPDATE SET ${sets.join(', ')}${cond.length > 0 ? ` WHERE ${cond.join(' AND ')}` : ''}`;
  }

  /** Statement 1: the writes; keeps each level's rows for statement 2 and fails when a row others need is missing. */
  private prelude(ctes: string[]): string {
    const keep: string[] = [];
    const fails: string[] = [];
    for (const l of this.levels) {
      const n = quoteIdent(`n${l.id}`);
      if (l.checked === false && !this.role.admin && (l.mt.insert?.check ?? null) !== null) l.checked = true;
      if (l.parent === null || l.checked) {
        keep.push(`set_config(${SETTING('t', l.id)}, (SELECT coalesce(array_agg("t" ORDER BY "o")::text, '{}') FROM ${n}), true)`);
        keep.push(`set_config(${SETTING('o', l.id)}, (SELECT coalesce(array_agg("o" ORDER BY "o")::text, '{}') FROM ${n}), true)`);
        keep.push(`set_config(${SETTING('i', l.id)}, (SELECT coalesce(array_agg("ins" ORDER BY "o")::text, '{}') FROM ${n}), true)`);
      }
      // A row that others read must exist: an object whose row was not written (on_conflict) fails the insert.
      const needed: number[] = [];
      if (l.dependents) {
        const before = l.rel?.order === 'before';
        l.objects.forEach((o, i) => {
          if (o.after || before) needed.push(i + 1);
        });
      }
      if (needed.length > 0) {
        const x = this.w.alias();
        fails.push(`(SELECT 'nested:${l.id}:' || min(${x}) || ':rows' FROM unnest(${this.w.value(`{${needed.join(',')}}`, 'integer[]')}) AS ${x} WHERE NOT EXISTS (SELECT FROM ${n} WHERE "o" = ${x}))`);
    }
    }
    const count = this.levels.map((l) => `(SELECT count(*) FROM ${quoteIdent(`n${l.id}`)})`).join(' + ');
    keep.push(`set_config('engine.nia', (${count})::text, true)`);
    const fail = fails.length > 0 ? `coalesce(${fails.join(', ')})` : 'NULL::text';
    const guard = this.w.guard();
    // The settings first, then the failure (which reads the CTEs again: they are materialised once).
    return `WITH ${ctes.join(', ')} SELECT ${keep.join(', ')}, (SELECT engine_catalog.raise_error('${CHECK_FAILED_STATE}', "m") FROM (SELECT ${fail} AS "m") AS "f" WHERE "m" IS NOT NULL) AS "fail" FROM ${guard}`;
  }
}
