import {
  GraphQLBoolean, GraphQLEnumType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType,
  GraphQLString, type GraphQLFieldConfig, type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap, type GraphQLInputType, type GraphQLOutputType, type GraphQLScalarType,
} from 'graphql';
import { NUMERIC, TEXT_LIKE } from '../../bool-exp/operators.js';
import type { DbColumn } from '../../db-catalog.js';
import { qnKey } from '../../../metadata/names.js';
import type { ResolvedTable } from '../../schema-cache.js';
import type { EnumTypes } from './enum-values.js';
import { info, STAT_OPS, type AggOp, type RowSource } from './field-info.js';
import { fieldTaken } from './columns.js';
import { COLUMN_VALUE, NO_EXTENSIONS } from './extensions.js';
import { AGG_COUNT, AGG_FIELDS, AGG_NODES, AGG_OPS, aggColumnInfo, columnInfo, NO_INTERFACES, sharedNonNull } from './shared-types.js';
import { gqlName, isEnumValueName } from './names.js';
import type { ScalarRegistry } from './scalar-registry.js';
import type { CfView, FnArgs, RoleView, TableView } from './visibility.js';
import { cfClaimKey } from './claims.js';
import { isJsonType } from './scalars.js';
import { castField, ltreeFields, regexFields } from './operators-extra.js';
import { spatialFields } from './spatial-operators.js';
import { extraOrderFields, type OrderTypes } from './order-by.js';
import { remoteRelFields } from './remote-rels.js';
import { remoteForRole } from './remotes.js';
import type { RoleRemote } from '../../remote-schemas/role-schema.js';
import type { GraphQLType } from 'graphql';

/** The generated types of tables for one role's schema (graphql-api.md §2.4–§2.6, §2.8). */

const nn = <T extends GraphQLOutputType | GraphQLInputType>(t: T) => new GraphQLNonNull(t);
const list = <T extends GraphQLOutputType | GraphQLInputType>(t: T) => new GraphQLList(t);
const PLACEHOLDER_FIELD = { _PLACEHOLDER: { type: GraphQLBoolean, extensions: info({ kind: 'constant', json: 'null' }) } };

export const ORDER_BY = new GraphQLEnumType({
  extensions: NO_EXTENSIONS,
  name: 'order_by',
  values: {
    asc: { value: 'ASC NULLS LAST', extensions: NO_EXTENSIONS }, asc_nulls_first: { value: 'ASC NULLS FIRST', extensions: NO_EXTENSIONS }, asc_nulls_last: { value: 'ASC NULLS LAST', extensions: NO_EXTENSIONS },
    desc: { value: 'DESC NULLS FIRST', extensions: NO_EXTENSIONS }, desc_nulls_first: { value: 'DESC NULLS FIRST', extensions: NO_EXTENSIONS }, desc_nulls_last: { value: 'DESC NULLS LAST', extensions: NO_EXTENSIONS },
  },
});

/** Field and argument configs equal wherever they appear (graphql-js only reads them). */
const ORDER_FIELD = { type: ORDER_BY, extensions: NO_EXTENSIONS };
const INT_ARG = { type: GraphQLInt, extensions: NO_EXTENSIONS };
const BOOLEAN_ARG = { type: GraphQLBoolean, extensions: NO_EXTENSIONS };
const ORDER_PLACEHOLDER = { _PLACEHOLDER: BOOLEAN_ARG };
/** json/jsonb columns' `path` (the incumbent's, issue 30.4): the part of the value at that JSON path. */
const JSON_PATH_ARGS = { path: { type: GraphQLString, description: 'JSON select path', extensions: NO_EXTENSIONS } };

const TIME_TYPES = new Set(['date', 'time without time zone', 'time with time zone', 'timestamp without time zone', 'timestamp with time zone', 'interval']);
const baseType = (c: DbColumn): string => c.typeName.replace(/\(.*\)$/, '');
const SUM_TYPE: Record<string, string> = { smallint: 'bigint', integer: 'bigint', bigint: 'numeric', numeric: 'numeric', real: 'double precision', 'double precision': 'double precision' };

/** Result types by column type: a schema asks for every column and operation, of a few column types. */
const AGG_RESULTS = new Map<string, Record<AggOp, string | null>>();

/** The SQL of an aggregate over a column's cell, of the type aggregateType answers. */
export function aggregateSql(op: AggOp, cell: string, c: DbColumn): string {
  const call = `${op}(${cell})`;
  return aggregateType(op, c) === 'double precision' && (op === 'avg' || (STAT_OPS as readonly string[]).includes(op)) ? `(${call})::double precision` : call;
}

/** The PostgreSQL type of an aggregate's result, or null when the column has no such aggregate. */
export function aggregateType(op: AggOp, c: DbColumn): string | null {
  let r = AGG_RESULTS.get(c.typeName);
  if (!r) {
    const t = baseType(c);
    const ordered = NUMERIC.has(t) || TEXT_LIKE.has(t) || TIME_TYPES.has(t) ? c.typeName : null;
    // avg and the statistical aggregates as the incumbent types them: numeric stays numeric, any other number is a Float.
    const stat = t === 'numeric' ? 'numeric' : NUMERIC.has(t) ? 'double precision' : null;
    r = { sum: SUM_TYPE[t] ?? null, avg: stat, max: ordered, min: ordered, stddev: stat, stddev_pop: stat, stddev_samp: stat, var_pop: stat, var_samp: stat, variance: stat };
    AGG_RESULTS.set(c.typeName, r);
  }
  return r[op];
}

export class TableTypes {
  private readonly objects = new Map<string, GraphQLObjectType>();
  private readonly inputs = new Map<string, GraphQLInputObjectType>();
  /** Per table: the wrapped types and argument maps every field returning its rows shares (graphql-js only reads them). */
  private readonly lists = new Map<string, GraphQLOutputType>();
  private readonly args = new Map<string, GraphQLFieldConfigArgumentMap>();
  private readonly columnLists = new Map<string, GraphQLList<GraphQLNonNull<GraphQLEnumType>>>();
  private readonly aggregates = new Map<string, GraphQLNonNull<GraphQLObjectType>>();
  /** `{type: <comparison exp>}` per comparison type: the same config for every column of that type. */
  private readonly comparisons = new Map<GraphQLInputObjectType, { type: GraphQLInputObjectType; extensions: typeof NO_EXTENSIONS }>();

  /** The role's view of a remote schema, for its remote relationships (build.ts sets the one of the whole schema). */
  remoteFor: (name: string) => RoleRemote | null = (name) => remoteForRole(this.role.cache, name, this.role.role);
  /** The role schema's one type per remote type name (build.ts sets it; remote-types.ts). */
  unifyRemote: <T extends GraphQLType>(t: T) => T = (t) => t;

  /** `hiddenCfs`: computed fields left out (Claims.hiddenCfs). */
  constructor(
    readonly role: RoleView, readonly scalars: ScalarRegistry, private readonly enumTables: EnumTypes = new Map(), private readonly hiddenCfs: Set<string> = new Set(),
    /** Claims.cfArgTypes: computed fields whose arguments type is not `F_args`. */
    private readonly cfArgTypes: Map<string, string> = new Map(),
  ) {}

  /** The enum of the enum table a column references by a one-column foreign key, or null (issue 12). */
  enumOf(rt: ResolvedTable, c: DbColumn): GraphQLEnumType | null {
    if (this.enumTables.size === 0) return null;
    for (const fk of rt.db.fks) {
      if (fk.columns.length !== 1 || fk.columns[0] !== c.name) continue;
      const target = this.role.cache.catalog.tablesByOid.get(fk.refOid);
      const e = target && this.enumTables.get(qnKey(target));
      if (e) return e;
    }
    return null;
  }

  /** A column's input and output type: its enum, else its scalar. */
  columnType(rt: ResolvedTable, c: DbColumn): GraphQLScalarType | GraphQLEnumType {
    return this.enumOf(rt, c) ?? this.scalars.column(c.typeName);
  }

  objectType(v: TableView): GraphQLObjectType {
    const known = this.objects.get(v.name);
    if (known) return known;
    const t = new GraphQLObjectType({
      extensions: NO_EXTENSIONS,
      name: v.name,
      description: v.rt.db.comment ?? undefined,
      interfaces: NO_INTERFACES,
      fields: () => this.objectFields(v),
    });
    this.objects.set(v.name, t);
    return t;
  }

  listOf(v: TableView): GraphQLOutputType {
    let t = this.lists.get(v.name);
    if (!t) {
      t = nn(list(nn(this.objectType(v))));
      this.lists.set(v.name, t);
    }
    return t;
  }

  protected objectFields(v: TableView): GraphQLFieldConfigMap<unknown, unknown> {
    const f: GraphQLFieldConfigMap<unknown, unknown> = {};
    const view = v.rt.db.kind === 'v';
    for (const c of v.columns) {
      const s = this.columnType(v.rt, c);
      const args = isJsonType(baseType(c)) ? JSON_PATH_ARGS : undefined;
      f[c.field] = { type: c.notNull && !view ? sharedNonNull(s) : s, args, description: c.comment ?? undefined, extensions: columnInfo(c) };
    }
    for (const r of v.objRels) {
      const remote = this.role.table(r.remoteKey) as TableView;
      f[r.name] = { type: this.objectType(remote), description: r.comment ?? undefined, extensions: info({ kind: 'object', view: remote, source: { kind: 'rel', rel: r } }) };
    }
    for (const r of v.arrRels) {
      const remote = this.role.table(r.remoteKey) as TableView;
      const source: RowSource = { kind: 'rel', rel: r };
      f[r.name] = { type: this.listOf(remote), args: this.listArgs(remote), description: r.comment ?? undefined, extensions: info({ kind: 'rows', view: remote, source }) };
      if (remote.aggregates && !f[`${r.name}_aggregate`] && !fieldTaken(v.rt, `${r.name}_aggregate`)) {
        f[`${r.name}_aggregate`] = { type: this.aggregateNonNull(remote), args: this.listArgs(remote), description: r.comment ?? undefined, extensions: info({ kind: 'aggregate', view: remote, source }) };
      }
    }
    if (v.scalarCfs.length + v.tableCfs.length > 0) {
      for (const cf of [...v.scalarCfs, ...v.tableCfs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (!this.hiddenCfs.has(cfClaimKey(v.key, cf.name))) f[cf.name] = this.computedField(cf, v.key);
      }
    }
    remoteRelFields(this.role, v, f, this.remoteFor, this.unifyRemote);
    return Object.keys(f).length > 0 ? f : PLACEHOLDER_FIELD;
  }

  private computedField(cf: CfView, tableKey: string): GraphQLFieldConfig<unknown, unknown> {
    const description = cf.def.comment ?? cf.cf.fn.comment ?? undefined;
    const args = this.fnArgsArg(this.cfArgTypes.get(cfClaimKey(tableKey, cf.name))?.replace(/_args$/, '') ?? gqlName(cf.def.definition.function), cf.fnArgs);
    const source: RowSource = { kind: 'function', fn: cf.cf.fn, fnArgs: cf.fnArgs, viaRow: true };
    if (!cf.target) {
      return { type: this.scalars.column(cf.cf.fn.returnTypeName), args, description, extensions: info({ kind: 'scalar_cf', cf }) };
    }
    const remote = this.role.table(cf.target) as TableView;
    if (!cf.cf.returnsSet) return { type: this.objectType(remote), args, description, extensions: info({ kind: 'object', view: remote, source }) };
    return { type: this.listOf(remote), args: { ...args, ...this.listArgs(remote) }, description, extensions: info({ kind: 'rows', view: remote, source }) };
  }

  /** `args: F_args` (non-null when an argument is required), or nothing when the function has no user arguments. */
  fnArgsArg(fname: string, a: FnArgs): GraphQLFieldConfigArgumentMap {
    if (a.args.length === 0) return {};
    const name = `${fname}_args`;
    let t = this.inputs.get(name);
    if (!t) {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const { arg } of a.args) {
        // A row-typed argument is the incumbent's `<type>_scalar`: the row as PostgreSQL's record text, `(1,Ann)`.
        const s = arg.typType === 'c' ? this.scalars.composite(arg.typeName) : this.scalars.column(arg.typeName);
        // Nullable even without a default, as the incumbent's: null is a value the function takes (SQL NULL); an omitted
        // one is refused when the field is compiled.
        fields[arg.name] = { type: s, extensions: NO_EXTENSIONS };
      }
      t = new GraphQLInputObjectType({ extensions: NO_EXTENSIONS, name, fields });
      this.inputs.set(name, t);
    }
    return { args: { type: a.args.some((x) => x.required) ? nn(t) : t, extensions: NO_EXTENSIONS } };
  }

  /** distinct_on, limit, offset, order_by, where: sorted by name. */
  listArgs(v: TableView): GraphQLFieldConfigArgumentMap {
    let a = this.args.get(v.name);
    if (!a) {
      a = {
        distinct_on: { type: this.selectColumns(v), extensions: NO_EXTENSIONS },
        limit: INT_ARG,
        offset: INT_ARG,
        order_by: { type: list(nn(this.orderBy(v))), extensions: NO_EXTENSIONS },
        where: { type: this.boolExp(v), extensions: NO_EXTENSIONS },
      };
      this.args.set(v.name, a);
    }
    return a;
  }

  /** `[T_select_column!]`: `distinct_on` and the aggregate `count(columns:)`. */
  private selectColumns(v: TableView): GraphQLList<GraphQLNonNull<GraphQLEnumType>> {
    let t = this.columnLists.get(v.name);
    if (!t) {
      t = list(nn(this.selectColumn(v)));
      this.columnLists.set(v.name, t);
    }
    return t;
  }

  private selectColumn(v: TableView): GraphQLEnumType {
    const values: Record<string, { value: string; extensions: typeof NO_EXTENSIONS }> = {};
    for (const c of v.columns) {
      if (c.typeName !== 'json' && isEnumValueName(c.field)) values[c.field] = { value: c.field, extensions: NO_EXTENSIONS };
    }
    return new GraphQLEnumType({ extensions: NO_EXTENSIONS, name: `${v.name}_select_column`, values: Object.keys(values).length > 0 ? values : { _PLACEHOLDER: { value: null, extensions: NO_EXTENSIONS } } });
  }

  boolExp(v: TableView): GraphQLInputObjectType {
    const name = `${v.name}_bool_exp`;
    let t = this.inputs.get(name);
    if (!t) {
      const self: GraphQLInputObjectType = new GraphQLInputObjectType({
        extensions: NO_EXTENSIONS,
        name,
        fields: () => {
          const many = { type: list(nn(self)), extensions: NO_EXTENSIONS };
          const f: GraphQLInputFieldConfigMap = { _and: many, _not: { type: self, extensions: NO_EXTENSIONS }, _or: many };
          for (const c of v.columns) {
            const e = this.enumOf(v.rt, c);
            f[c.field] = this.comparison(e ? this.enumComparisonExp(e) : this.comparisonExp(c.typeName));
          }
          for (const r of [...v.objRels, ...v.arrRels].sort((a, b) => (a.name < b.name ? -1 : 1))) {
            f[r.name] = { type: this.boolExp(this.role.table(r.remoteKey) as TableView), extensions: NO_EXTENSIONS };
          }
          this.cfBoolFields(v, f);
          return f;
        },
      });
      t = self;
      this.inputs.set(name, t);
    }
    return t;
  }

  /** Computed fields without arguments filter as the incumbent's do: scalar ones compared, set-returning ones as relationships. */
  private cfBoolFields(v: TableView, f: GraphQLInputFieldConfigMap): void {
    for (const cf of [...v.scalarCfs, ...v.tableCfs]) {
      if (cf.fnArgs.args.length > 0 || cf.name in f || this.hiddenCfs.has(cfClaimKey(v.key, cf.name))) continue;
      const remote = cf.target === null ? null : this.role.table(cf.target);
      if (cf.target === null) f[cf.name] = this.comparison(this.comparisonExp(cf.cf.fn.returnTypeName));
      else if (remote && cf.cf.returnsSet) f[cf.name] = { type: this.boolExp(remote), extensions: NO_EXTENSIONS };
    }
  }

  private comparison(t: GraphQLInputObjectType): { type: GraphQLInputObjectType; extensions: typeof NO_EXTENSIONS } {
    let c = this.comparisons.get(t);
    if (!c) {
      c = { type: t, extensions: NO_EXTENSIONS };
      this.comparisons.set(t, c);
    }
    return c;
  }

  /** `<E>_comparison_exp` of an enum table's enum: equality and membership only. */
  enumComparisonExp(e: GraphQLEnumType): GraphQLInputObjectType {
    const name = `${e.name}_comparison_exp`;
    let t = this.inputs.get(name);
    if (!t) {
      const one = { type: e, extensions: NO_EXTENSIONS };
      const many = { type: list(sharedNonNull(e)), extensions: NO_EXTENSIONS };
      t = new GraphQLInputObjectType({ extensions: NO_EXTENSIONS, name, fields: { _eq: one, _neq: one, _in: many, _nin: many, _is_null: BOOLEAN_ARG } });
      this.inputs.set(name, t);
    }
    return t;
  }

  comparisonExp(typeName: string): GraphQLInputObjectType {
    const s = this.scalars.column(typeName);
    const name = `${s.name}_comparison_exp`;
    let t = this.inputs.get(name);
    if (!t) {
      const base = typeName.replace(/\(.*\)$/, '');
      const one = { type: s, extensions: COLUMN_VALUE };
      const many = { type: list(sharedNonNull(s)), extensions: COLUMN_VALUE };
      const text = { type: GraphQLString, extensions: NO_EXTENSIONS };
      const f: GraphQLInputFieldConfigMap = {};
      if (base !== 'json') {
        for (const op of ['_eq', '_neq', '_gt', '_lt', '_gte', '_lte']) f[op] = one;
        f['_in'] = many;
        f['_nin'] = many;
      }
      f['_is_null'] = BOOLEAN_ARG;
      // bpchar, citext and name keep their own scalar names (issue 29.8) and, as at the incumbent, the text operators.
      if (s === GraphQLString || TEXT_LIKE.has(base)) {
        const t = s === GraphQLString ? text : one;
        for (const op of ['_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar']) f[op] = t;
        if (s === GraphQLString) regexFields(f);
      }
      if (base === 'jsonb') {
        const keys = { type: list(sharedNonNull(GraphQLString)), extensions: NO_EXTENSIONS };
        Object.assign(f, { _contains: one, _contained_in: one, _has_key: text, _has_keys_any: keys, _has_keys_all: keys });
        castField(f, () => this.comparisonExp('text'), this.inputs);
      }
      if (base === 'ltree') ltreeFields(f, s, (n) => this.scalars.column(n));
      spatialFields(f, base, (n) => this.scalars.column(n), (n) => this.comparisonExp(n), this.inputs);
      t = new GraphQLInputObjectType({ extensions: NO_EXTENSIONS, name, fields: f });
      this.inputs.set(name, t);
    }
    return t;
  }

  /** What schema/order-by.ts builds its types from (issue 30.2). */
  private orderTypesMemo: OrderTypes | null = null;
  private get orderTypes(): OrderTypes {
    this.orderTypesMemo ??= { role: this.role, orderEnum: ORDER_BY, inputs: this.inputs, comparable: (t) => aggregateType('max', { typeName: t } as DbColumn) !== null, orderBy: (v) => this.orderBy(v) };
    return this.orderTypesMemo;
  }

  orderBy(v: TableView): GraphQLInputObjectType {
    const name = `${v.name}_order_by`;
    let t = this.inputs.get(name);
    if (!t) {
      t = new GraphQLInputObjectType({
        extensions: NO_EXTENSIONS,
        name,
        fields: () => {
          const f: GraphQLInputFieldConfigMap = {};
          for (const c of v.columns) if (c.typeName !== 'json') f[c.field] = ORDER_FIELD;
          for (const r of v.objRels) f[r.name] = { type: this.orderBy(this.role.table(r.remoteKey) as TableView), extensions: NO_EXTENSIONS };
          extraOrderFields(this.orderTypes, v, f, (cf) => this.hiddenCfs.has(cfClaimKey(v.key, cf.name)));
          return Object.keys(f).length > 0 ? f : ORDER_PLACEHOLDER;
        },
      });
      this.inputs.set(name, t);
    }
    return t;
  }

  /** `T_aggregate!`: the type of every aggregate field over the table's rows. */
  aggregateNonNull(v: TableView): GraphQLNonNull<GraphQLObjectType> {
    let t = this.aggregates.get(v.name);
    if (!t) {
      t = nn(this.aggregateType(v));
      this.aggregates.set(v.name, t);
    }
    return t;
  }

  private aggregateType(v: TableView): GraphQLObjectType {
    // Both types reference only types that exist already: their fields need no thunks.
    const f: GraphQLFieldConfigMap<unknown, unknown> = {
      count: { type: sharedNonNull(GraphQLInt), args: { columns: { type: this.selectColumns(v), extensions: NO_EXTENSIONS }, distinct: BOOLEAN_ARG }, extensions: AGG_COUNT },
    };
    for (const op of ['sum', 'avg', 'max', 'min', ...STAT_OPS] as const) {
      const opType = this.aggregateOp(v, op);
      if (opType) f[op] = { type: opType, extensions: AGG_OPS[op] };
    }
    const fields = new GraphQLObjectType({ extensions: NO_EXTENSIONS, name: `${v.name}_aggregate_fields`, interfaces: NO_INTERFACES, fields: f });
    return new GraphQLObjectType({
      extensions: NO_EXTENSIONS,
      name: `${v.name}_aggregate`,
      interfaces: NO_INTERFACES,
      fields: { aggregate: { type: fields, extensions: AGG_FIELDS }, nodes: { type: this.listOf(v), extensions: AGG_NODES } },
    });
  }

  private aggregateOp(v: TableView, op: AggOp): GraphQLObjectType | null {
    const f: GraphQLFieldConfigMap<unknown, unknown> = {};
    let any = false;
    for (const c of v.columns) {
      const rt = aggregateType(op, c);
      if (!rt) continue;
      f[c.field] = { type: this.scalars.column(rt), extensions: aggColumnInfo(op, c) };
      any = true;
    }
    return any ? new GraphQLObjectType({ extensions: NO_EXTENSIONS, name: `${v.name}_${op}_fields`, interfaces: NO_INTERFACES, fields: f }) : null;
  }
}
