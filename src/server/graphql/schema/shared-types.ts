import { GraphQLNonNull, type GraphQLInterfaceType, type GraphQLNullableType } from 'graphql';
import type { DbColumn } from '../../db-catalog.js';
import { info, STAT_OPS, type AggOp, type FieldInfo } from './field-info.js';
import { memoByObject } from './memo.js';

/**
 * Parts of generated types that depend on nothing role-specific, shared by every schema: a schema at a thousand
 * tables would otherwise allocate tens of thousands of equal objects, most of a cold build's garbage-collection time.
 */

type Ext = { engine: FieldInfo };

const nonNullOf = memoByObject((t: GraphQLNullableType) => new GraphQLNonNull(t));

/** `T!` of a type shared by schemas (a scalar or an enum table's enum): one wrapper per type. */
export const sharedNonNull = <T extends GraphQLNullableType>(t: T): GraphQLNonNull<T> => nonNullOf(t) as GraphQLNonNull<T>;

/** graphql-js resolves an absent `interfaces` to a new empty array per object type. */
export const NO_INTERFACES: readonly GraphQLInterfaceType[] = Object.freeze([]);

/** A column field's info. */
export const columnInfo = (c: DbColumn): Ext => info({ kind: 'column', column: c });

export const aggColumnInfo = (op: AggOp, c: DbColumn): Ext => info({ kind: 'agg_col', op, column: c });

export const AGG_COUNT = info({ kind: 'agg_count' });
export const AGG_FIELDS = info({ kind: 'agg_fields' });
export const AGG_NODES = info({ kind: 'agg_nodes' });
export const AGG_OPS = Object.fromEntries((['sum', 'avg', 'max', 'min', ...STAT_OPS] as AggOp[]).map((op) => [op, info({ kind: 'agg_op', op })])) as Record<AggOp, Ext>;
