import { createHash } from 'node:crypto';
import type { FieldNode, GraphQLObjectType, GraphQLSchema } from 'graphql';
import { StatementBuilder, type SelectionContext } from '../compile/index.js';
import { fieldInfo, type RoleView } from '../schema/index.js';
import { constantRoot, type RootPlan } from '../plan/index.js';
import { RelayCompiler } from './compile.js';
import { NODE } from './schema.js';

const statementName = (sql: string): string => `engine_gql_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`;

/**
 * A Relay operation's root fields (issue 30.6): one statement per connection or `node`. `cacheable` is false when the
 * SQL depends on a variable's value (a node id names the table; a cursor, the terms compared): the plan is then
 * compiled for this request only.
 */
export function planRelayOperation(schema: GraphQLSchema, role: RoleView, sel: SelectionContext): { plans: RootPlan[]; cacheable: boolean } {
  const rootType = schema.getQueryType() as GraphQLObjectType;
  const plans: RootPlan[] = [];
  let cacheable = true;
  for (const [key, nodes] of sel.rootFields()) {
    const node = nodes[0] as FieldNode;
    const name = node.name.value;
    const path = `$.selectionSet.${key}`;
    const constant = constantRoot(key, nodes, rootType);
    if (constant) {
      plans.push(constant);
      continue;
    }
    const b = new StatementBuilder(role.cache);
    const c = new RelayCompiler(b, role, sel);
    let expr: string;
    if (name === 'node') {
      expr = c.nodeRoot(schema.getPossibleTypes(NODE) as GraphQLObjectType[], nodes, path);
    } else {
      const field = rootType.getFields()[name];
      const i = field ? fieldInfo(field) : undefined;
      if (!field || i?.kind !== 'connection') throw new Error(`relay root field ${name} has no compile information`);
      expr = c.connectionJson(field, i.view, i.source, nodes, null, path);
    }
    if (c.dynamic) cacheable = false;
    const sql = `SELECT (${expr})::text AS "root"`;
    plans.push({ key, kind: 'sql', sql, name: statementName(sql), params: b.params, ...(b.remoteJoins.length > 0 ? { joins: b.remoteJoins } : {}) });
  }
  return { plans, cacheable };
}
