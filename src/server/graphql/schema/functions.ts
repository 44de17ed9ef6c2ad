import type { GraphQLFieldConfigMap } from 'graphql';
import type { TrackedFunction } from './claims.js';
import { info, type RowSource } from './field-info.js';
import type { TableTypes } from './tables.js';
import { memberRoles, type RoleView, type TableView } from './visibility.js';

/** The root fields of tracked functions (graphql-api.md §2.8, issue 29.6). */

/** How function root fields are granted: ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS (the incumbent's default, true). */
export interface FunctionSettings {
  /**
   * True: a role gets a function's fields when it may select the table the function returns. False (the incumbent's
   * `HASURA_GRAPHQL_INFER_FUNCTION_PERMISSIONS=false`): it also needs a function permission, its own or, for an
   * inherited role, one of a member role.
   */
  inferFunctionPermissions: boolean;
}

export const DEFAULT_FUNCTION_SETTINGS: FunctionSettings = { inferFunctionPermissions: true };

/** The view of the table `f` returns when the role gets `f`'s root fields, else null. */
export function functionView(role: RoleView, f: TrackedFunction, settings: FunctionSettings): TableView | null {
  const v = role.table(f.returns);
  if (!v || role.admin || settings.inferFunctionPermissions) return v;
  const granted = f.entry.permissions ?? [];
  return memberRoles(role.cache, role.role).some((r) => granted.includes(r)) || granted.includes(role.role) ? v : null;
}

/**
 * `F(args, distinct_on, limit, offset, order_by, where)` and `F_aggregate(…)`: a SETOF function's rows as a list; a
 * function returning one row as that row or null (the incumbent's object field, with the same arguments).
 */
export function functionRootFields(tt: TableTypes, functions: TrackedFunction[], settings: FunctionSettings, query: GraphQLFieldConfigMap<unknown, unknown>): void {
  for (const f of functions) {
    const v = functionView(tt.role, f, settings);
    if (!v) continue;
    const source: RowSource = { kind: 'function', fn: f.fn, fnArgs: f.args, viaRow: false };
    const args = { ...tt.fnArgsArg(f.name, f.args), ...tt.listArgs(v) };
    const description = f.fn.comment ?? undefined;
    query[f.name] = f.fn.returnsSet
      ? { type: tt.listOf(v), args, description, extensions: info({ kind: 'rows', view: v, source }) }
      : { type: tt.objectType(v), args, description, extensions: info({ kind: 'rows', view: v, source, single: true }) };
    if (v.aggregates) query[`${f.name}_aggregate`] = { type: tt.aggregateNonNull(v), args, description, extensions: info({ kind: 'aggregate', view: v, source }) };
  }
}
