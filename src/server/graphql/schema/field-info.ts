import type { GraphQLField, GraphQLOutputType } from 'graphql';
import type { Action, PermissionDef } from '../../../metadata/types.js';
import type { ResolvedTable } from '../../schema-cache.js';
import type { DbColumn, DbFunction } from '../../db-catalog.js';
import type { RemoteRoot } from '../../remote-schemas/types.js';
import type { RemoteRel } from '../../remote-schemas/relationships.js';
import type { RoleRemote } from '../../remote-schemas/role-schema.js';
import type { GqlColumn } from './columns.js';
import type { CfView, FnArgs, RelView, TableView } from './visibility.js';

/**
 * A table as one role may write it (graphql-api.md §2.7): its permissions (none for admin), the columns each kind
 * may write, and its select view (null when the role cannot select it: then nothing is returned).
 */
export interface MutationTable {
  rt: ResolvedTable;
  /** The table's GraphQL name `T`. */
  name: string;
  view: TableView | null;
  insert: PermissionDef | undefined;
  update: PermissionDef | undefined;
  delete: PermissionDef | undefined;
  /** Every column in attnum order, domains as their base type (presets may name any of them). */
  allColumns: GqlColumn[];
  insertColumns: GqlColumn[];
  updateColumns: GqlColumn[];
  /** Whether the role may insert into / update the table (admin: the database allows it). */
  insertable?: boolean;
  updatable?: boolean;
  /** The relationships the role may insert through (nested inserts, issue 30.1), by field name. */
  relInserts: Map<string, RelInsert>;
}

/** A relationship as a nested insert uses it (schema/insert-inputs.ts). */
export interface RelInsert {
  name: string;
  array: boolean;
  /** This table's column → the remote table's column. */
  mapping: [string, string][];
  /** Whether the remote rows are written before this row (its foreign key names them) or after. */
  order: 'before' | 'after';
  table: MutationTable;
}

/** Where the rows of a list, aggregate or object field come from. */
export type RowSource =
  | { kind: 'table' }
  | { kind: 'rel'; rel: RelView }
  /** A tracked function (root) or a computed field (`viaRow`: the parent row is its table argument). */
  | { kind: 'function'; fn: DbFunction; fnArgs: FnArgs; viaRow: boolean }
  /** A custom-object relationship: the parent row is a handler's JSON object, joined on its fields (§5.1 step 4). */
  | { kind: 'json'; mapping: { field: string; column: string; castType: string }[] };

export type AggOp = 'sum' | 'avg' | 'max' | 'min' | StatOp;
/** The statistical aggregates (the incumbent's): PostgreSQL functions of the same names. */
export type StatOp = 'stddev' | 'stddev_pop' | 'stddev_samp' | 'var_pop' | 'var_samp' | 'variance';
export const STAT_OPS: readonly StatOp[] = ['stddev', 'stddev_pop', 'stddev_samp', 'var_pop', 'var_samp', 'variance'];

/** What the compiler needs to know of a schema field; attached to the field as `extensions.engine`. */
export type FieldInfo =
  /** `single`: a tracked function returning one row (not SETOF): its first row, or null (the incumbent's object field). */
  | { kind: 'rows'; view: TableView; source: RowSource; single?: boolean }
  | { kind: 'aggregate'; view: TableView; source: RowSource }
  | { kind: 'by_pk'; view: TableView }
  | { kind: 'object'; view: TableView; source: RowSource }
  | { kind: 'column'; column: DbColumn }
  | { kind: 'scalar_cf'; cf: CfView }
  | { kind: 'agg_fields' }
  | { kind: 'agg_nodes' }
  | { kind: 'agg_count' }
  | { kind: 'agg_op'; op: AggOp }
  | { kind: 'agg_col'; op: AggOp; column: DbColumn }
  /** A field whose value is fixed JSON text (`no_queries_available`, `_PLACEHOLDER`). */
  | { kind: 'constant'; json: string }
  /** A synchronous action's root field: the engine calls its handler (graphql-api.md §5.1). */
  | { kind: 'action'; action: Action }
  /** An asynchronous action's mutation field (answers an action_log id) and its query field (§5.3). */
  | { kind: 'async_action'; action: Action; output: GraphQLOutputType }
  | { kind: 'async_result'; action: Action }
  /** A relationship of an action's output object type to a table. */
  | { kind: 'action_rel'; view: TableView; source: RowSource; array: boolean }
  | { kind: 'insert'; table: MutationTable; one: boolean }
  | { kind: 'update'; table: MutationTable; byPk: boolean }
  /** `update_<t>_many(updates:)`: one UPDATE per item, in order, in the operation's transaction. */
  | { kind: 'update_many'; table: MutationTable }
  | { kind: 'delete'; table: MutationTable; byPk: boolean }
  /** Relay (issue 30.6): a row's global id, and a connection over a relationship's or function's rows (relay/). */
  | { kind: 'node_id'; view: TableView }
  | { kind: 'connection'; view: TableView; source: RowSource }
  /** A root field of a remote schema (or its namespace field): forwarded to the remote (issue 35). */
  | { kind: 'remote'; root: RemoteRoot }
  /** A table's remote relationship (issue 35.3): joined by one call to the remote per operation (compile/remote-join.ts). */
  | { kind: 'remote_rel'; rel: RemoteRel; remote: RoleRemote };

/**
 * A field's `extensions`, in the null-prototype shape graphql-js keeps (it copies any other object into a new one:
 * at a thousand tables that is tens of thousands of objects per schema). A literal whose prototype is then set to
 * null keeps V8's compact layout: a fifth of the size of an `Object.create(null)` object.
 */
export function info(i: FieldInfo): { engine: FieldInfo } {
  return Object.setPrototypeOf({ engine: i }, null) as { engine: FieldInfo };
}

export function fieldInfo(field: GraphQLField<unknown, unknown>): FieldInfo | undefined {
  return (field.extensions as { engine?: FieldInfo }).engine;
}
