import {
  GraphQLBoolean, GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, type GraphQLInputFieldConfigMap,
} from 'graphql';
import { compareCodePoints } from '../../../metadata/json.js';
import { qnKey } from '../../../metadata/names.js';
import type { ResolvedTable } from '../../schema-cache.js';
import { tableColumns, type GqlColumn } from './columns.js';
import { COLUMN_VALUE, NO_EXTENSIONS } from './extensions.js';
import type { MutationTable, RelInsert } from './field-info.js';
import { isEnumValueName, isGraphqlName } from './names.js';
import { tableNames } from './table-names.js';
import { memoByObject } from './memo.js';
import type { TableTypes } from './tables.js';

/**
 * The insert input types of one role's schema (issue 30.1): `T_insert_input` with the table's insertable columns and
 * a field per relationship to a table the role may insert into (`R_obj_rel_insert_input {data, on_conflict}`,
 * `R_arr_rel_insert_input {data: [...], on_conflict}`, the incumbent's types), and `T_on_conflict`. Types reference
 * each other through relationships (author → articles → author), so fields are thunks and types are kept by name.
 */

const nn = <T extends GraphQLInputObjectType | GraphQLList<GraphQLNonNull<GraphQLInputObjectType>> | GraphQLEnumType | GraphQLList<GraphQLNonNull<GraphQLEnumType>>>(t: T) => new GraphQLNonNull(t);
const PLACEHOLDER_INPUT = { _PLACEHOLDER: { type: GraphQLBoolean, extensions: NO_EXTENSIONS } };
const NO_COLUMNS = { _PLACEHOLDER: { value: null, extensions: NO_EXTENSIONS } };
const arg = <T>(type: T) => ({ type, extensions: NO_EXTENSIONS });

export const constraintsOf = (rt: ResolvedTable) => rt.db.uniques.filter((u) => isEnumValueName(u.name));

/** The columns a role may write (permissions and presets name SQL columns), exposed under their GraphQL names. */
export function inputColumns(rt: ResolvedTable, columns: string[] | '*' | undefined, presets: Record<string, unknown> | undefined): GqlColumn[] {
  return tableColumns(rt).exposed
    .filter((c) => !c.generated && (columns === undefined || columns === '*' || columns.includes(c.name)))
    .filter((c) => !presets || !(c.name in presets));
}

/** Which side is written first (the incumbent's rule): a foreign key of this table → the remote row first. */
function insertionOrder(rt: ResolvedTable, name: string, array: boolean): 'before' | 'after' {
  if (array) return 'after';
  const def = rt.entry.object_relationships.find((r) => r.name === name);
  const u = def?.using;
  if (!u) return 'before';
  if ('manual_configuration' in u) return u.manual_configuration.insertion_order === 'after_parent' ? 'after' : 'before';
  const fk = u.foreign_key_constraint_on;
  return typeof fk === 'string' || Array.isArray(fk) ? 'before' : 'after';
}

/** `T_constraint` depends on the table only: one per resolved table, shared by its roles' schemas. */
const constraintEnum = memoByObject((rt: ResolvedTable): GraphQLEnumType => {
  const values: Record<string, { value: string; extensions: typeof NO_EXTENSIONS }> = {};
  for (const c of constraintsOf(rt)) values[c.name] = { value: c.name, extensions: NO_EXTENSIONS };
  return new GraphQLEnumType({ name: `${tableNames(rt.entry).type}_constraint`, values, extensions: NO_EXTENSIONS });
});

export class InsertInputs {
  private readonly tables = new Map<string, MutationTable | null>();
  private readonly inputs = new Map<string, GraphQLInputObjectType>();
  private readonly conflicts = new Map<string, GraphQLInputObjectType | null>();

  constructor(private readonly tt: TableTypes) {}

  /** The table as the role may write it, or null when it may neither insert, update nor delete. */
  table(rt: ResolvedTable): MutationTable | null {
    const key = qnKey(rt.entry.table);
    const known = this.tables.get(key);
    if (known !== undefined) return known;
    const role = this.tt.role;
    const admin = role.admin;
    const ins = admin ? ((rt.db.updatable & 8) !== 0 ? {} : undefined) : role.permission(rt, 'insert');
    const upd = admin ? ((rt.db.updatable & 4) !== 0 ? {} : undefined) : role.permission(rt, 'update');
    const del = admin ? ((rt.db.updatable & 16) !== 0 ? {} : undefined) : role.permission(rt, 'delete');
    if (!ins && !upd && !del) {
      this.tables.set(key, null);
      return null;
    }
    const mt: MutationTable = {
      rt, name: tableNames(rt.entry).type, view: role.table(key),
      insert: admin ? undefined : ins, update: admin ? undefined : upd, delete: admin ? undefined : del,
      insertable: ins !== undefined, updatable: upd !== undefined,
      allColumns: tableColumns(rt).all,
      insertColumns: ins ? inputColumns(rt, ins.columns, ins.set) : [],
      updateColumns: upd ? inputColumns(rt, upd.columns, upd.set) : [],
      relInserts: new Map(),
    };
    this.tables.set(key, mt);
    // After registering: relationships may lead back to this table.
    if (ins) mt.relInserts = this.relInserts(rt);
    return mt;
  }

  /** The relationships through which the role may insert: to tables it has an insert permission on. */
  private relInserts(rt: ResolvedTable): Map<string, RelInsert> {
    const out = new Map<string, RelInsert>();
    const fields = tableColumns(rt).fields;
    for (const array of [false, true]) {
      const list = array ? rt.entry.array_relationships : rt.entry.object_relationships;
      for (const def of [...list].sort((a, b) => compareCodePoints(a.name, b.name))) {
        const rel = rt.relationships.get(def.name);
        if (!rel || !isGraphqlName(def.name) || fields.has(def.name)) continue;
        const remote = this.tt.role.cache.tables.get(qnKey(rel.remote));
        const remoteMt = remote ? this.table(remote) : null;
        if (!remoteMt?.insertable || !isGraphqlName(remoteMt.name)) continue;
        out.set(def.name, { name: def.name, array, mapping: rel.mapping, order: insertionOrder(rt, def.name, array), table: remoteMt });
      }
    }
    return out;
  }

  /** `T_insert_input`: the insertable columns (attnum order), then the relationship inserts (by name). */
  insertInput(mt: MutationTable): GraphQLInputObjectType {
    const name = `${mt.name}_insert_input`;
    let t = this.inputs.get(name);
    if (!t) {
      t = new GraphQLInputObjectType({
        name,
        extensions: NO_EXTENSIONS,
        fields: () => {
          const f: GraphQLInputFieldConfigMap = {};
          for (const c of mt.insertColumns) f[c.field] = { type: this.tt.columnType(mt.rt, c), extensions: COLUMN_VALUE };
          for (const r of mt.relInserts.values()) f[r.name] = arg(this.relInput(r));
          return Object.keys(f).length > 0 ? f : PLACEHOLDER_INPUT;
        },
      });
      this.inputs.set(name, t);
    }
    return t;
  }

  private relInput(r: RelInsert): GraphQLInputObjectType {
    const remote = r.table;
    const name = `${remote.name}_${r.array ? 'arr' : 'obj'}_rel_insert_input`;
    let t = this.inputs.get(name);
    if (!t) {
      const input = nn(this.insertInput(remote));
      const conflict = this.onConflict(remote);
      const data = arg(r.array ? nn(new GraphQLList(input)) : input);
      t = new GraphQLInputObjectType({
        name,
        description: `input type for inserting ${r.array ? 'array' : 'object'} relation for remote table "${remote.name}"`,
        extensions: NO_EXTENSIONS,
        fields: conflict ? { data, on_conflict: { type: conflict, description: 'upsert condition', extensions: NO_EXTENSIONS } } : { data },
      });
      this.inputs.set(name, t);
    }
    return t;
  }

  /**
   * `T_on_conflict`, when the role may update the table and it has a constraint with a valid name; its `where` when
   * the role may also select it (the incumbent offers the upsert without a select permission: leads_upsert cases).
   */
  onConflict(mt: MutationTable): GraphQLInputObjectType | null {
    const known = this.conflicts.get(mt.name);
    if (known !== undefined) return known;
    let t: GraphQLInputObjectType | null = null;
    if (mt.updatable && constraintsOf(mt.rt).length > 0) {
      const values: Record<string, { value: string | null; extensions: typeof NO_EXTENSIONS }> = {};
      for (const c of mt.updateColumns) if (isEnumValueName(c.field)) values[c.field] = { value: c.field, extensions: NO_EXTENSIONS };
      const columns = new GraphQLEnumType({ name: `${mt.name}_update_column`, values: Object.keys(values).length > 0 ? values : NO_COLUMNS, extensions: NO_EXTENSIONS });
      t = new GraphQLInputObjectType({
        name: `${mt.name}_on_conflict`,
        extensions: NO_EXTENSIONS,
        fields: {
          constraint: arg(nn(constraintEnum(mt.rt))),
          update_columns: { type: nn(new GraphQLList(nn(columns))), defaultValue: [], extensions: NO_EXTENSIONS },
          ...(mt.view ? { where: arg(this.tt.boolExp(mt.view)) } : {}),
        },
      });
    }
    this.conflicts.set(mt.name, t);
    return t;
  }
}

/** One registry per role schema (TableTypes is one per role schema). */
const registries = new WeakMap<TableTypes, InsertInputs>();
export function insertInputs(tt: TableTypes): InsertInputs {
  let r = registries.get(tt);
  if (!r) {
    r = new InsertInputs(tt);
    registries.set(tt, r);
  }
  return r;
}
