import type { FieldNode, GraphQLField } from 'graphql';
import { MutationCompiler, StatementBuilder, type PlanParam, type SelectionContext } from '../compile/index.js';
import { asList, isPlainObject, type GValue } from '../compile/index.js';
import type { MutationTable, RoleView } from '../schema/index.js';
import { statementName } from './statement-name.js';

/** The plans of plan.ts's RootPlan this file makes (plan.ts imports this file, so the union is not named here). */
type ManyPlan =
  | { key: string; kind: 'json'; json: string }
  | { key: string; of: string; kind: 'sql'; sql: string; name: string; params: PlanParam[]; checks?: { insert: string; update: string } };

/**
 * `update_<t>_many(updates:)`: one UPDATE statement per item, in the order given, in the operation's one transaction,
 * so that each item sees the rows the items before it wrote (one statement's CTEs would all see the same snapshot).
 * Each statement is a part (`of`) of the root field's list; no item gives the empty list.
 */
export function updateManyPlans(field: GraphQLField<unknown, unknown>, mt: MutationTable, role: RoleView, sel: SelectionContext, key: string, nodes: FieldNode[], path: string): ManyPlan[] {
  const items = asList(sel.args(nodes[0] as FieldNode).get('updates') ?? []);
  if (items.length === 0) return [{ key, kind: 'json', json: '[]' }];
  return items.map((item, i) => {
    const b = new StatementBuilder(role.cache);
    const argsPath = `${path}.args.updates[${i}]`;
    const args = new Map<string, GValue>(isPlainObject(item) ? Object.entries(item) : []);
    const st = new MutationCompiler(b, role, sel).updateWith(field, mt, false, args, nodes, path, argsPath);
    const part = `${key}.args.updates[${i}]`;
    return { key: part, of: key, kind: 'sql', sql: st.sql, name: statementName(st.sql), params: b.params, ...(st.checked ? { checks: { insert: path, update: path } } : {}), ...(b.remoteJoins.length > 0 ? { joins: b.remoteJoins } : {}) };
  });
}
