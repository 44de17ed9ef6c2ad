import type { FieldNode, GraphQLField, GraphQLObjectType, GraphQLSchema } from 'graphql';
import { outputRelationships, type ActionRoot } from '../actions/index.js';
import { asyncStatement } from '../actions/index.js';
import { SelectionCompiler } from '../compile/index.js';
import { fieldInfo } from '../schema/index.js';
import { MutationCompiler } from '../compile/index.js';
import type { NestedPaths, SelectionContext } from '../compile/index.js';
import { StatementBuilder, type PlanParam, type RemoteJoinSpec } from '../compile/index.js';
import type { RoleView } from '../schema/index.js';
import type { RemoteRootPlan } from '../../remote-schemas/index.js';
import { statementName } from './statement-name.js';
import { updateManyPlans } from './update-many.js';

/** What each root field of an operation does (graphql-api.md §4.1). */
export type RootPlan =
  /**
   * `name`: the prepared statement's name, derived from the text so that it always denotes the same text. `of`: the
   * root field whose list this statement's answer is an item of (`update_<t>_many`); `key` is then the item's path.
   */
  | {
    key: string; kind: 'sql'; sql: string; name: string; params: PlanParam[]; checks?: CheckPaths; of?: string;
    /** Remote relationships in the answer (issue 35.3): joined after the statement, one call per remote schema. */
    joins?: RemoteJoinSpec[];
    /** A nested insert's writes, run first in the same transaction; its parameters are `params` from `offset` on. */
    prelude?: { sql: string; name: string; offset: number }; nested?: NestedPaths;
  }
  /** Answered without SQL: `__typename`, `no_queries_available`. */
  | { key: string; kind: 'json'; json: string }
  /**
   * `__schema` / `__type`: answered by graphql-js against the role's schema. The answer depends only on the schema,
   * the selection and the variables, which the plan is cached for, so it is kept with the plan (`answer`).
   */
  | { key: string; kind: 'introspection'; nodes: FieldNode[]; answer?: string }
  /** A synchronous action: its handler is called when the operation runs (§5.1, actions/run.ts). */
  | ({ kind: 'action' } & ActionRoot)
  /** A remote schema's root field: forwarded with the operation's other fields of that remote, in one call (issue 35). */
  | ({ kind: 'remote' } & RemoteRootPlan);

/** Where a failed insert or update check is reported (graphql-api.md §6.1 rows 31, 32); the statement says which failed. */
export interface CheckPaths {
  insert: string;
  update: string;
}

/** `__typename`, `__schema` and `__type` at the root: answered without SQL (the Relay API's too); null for others. */
export function constantRoot(key: string, nodes: FieldNode[], rootType: GraphQLObjectType): RootPlan | null {
  const name = (nodes[0] as FieldNode).name.value;
  if (name === '__typename') return { key, kind: 'json', json: JSON.stringify(rootType.name) };
  if (name === '__schema' || name === '__type') return { key, kind: 'introspection', nodes };
  return null;
}

const joinsOf = (b: StatementBuilder): { joins?: RemoteJoinSpec[] } => (b.remoteJoins.length > 0 ? { joins: b.remoteJoins } : {});

/** Compiles every root field: one SQL statement per database root field (§7.1). */
export function planOperation(schema: GraphQLSchema, role: RoleView, sel: SelectionContext): RootPlan[] {
  const rootType = (sel.op.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType()) as GraphQLObjectType;
  const plans: RootPlan[] = [];
  for (const [key, nodes] of sel.rootFields()) {
    const node = nodes[0] as FieldNode;
    const name = node.name.value;
    const path = `$.selectionSet.${key}`;
    const constant = constantRoot(key, nodes, rootType);
    if (constant) {
      plans.push(constant);
      continue;
    }
    const field = rootType.getFields()[name] as GraphQLField<unknown, unknown>;
    const i = fieldInfo(field);
    if (!i) throw new Error(`root field ${name} has no compile information`);
    if (i.kind === 'action') {
      const { nested } = outputRelationships(field.type, nodes, sel, path);
      plans.push({ key, kind: 'action', action: i.action, field, nodes, nested: nested !== null });
      continue;
    }
    if (i.kind === 'remote') {
      plans.push({ key, kind: 'remote', root: i.root, nodes });
      continue;
    }
    if (i.kind === 'constant') {
      plans.push({ key, kind: 'json', json: i.json });
      continue;
    }
    if (i.kind === 'async_action' || i.kind === 'async_result') {
      const st = asyncStatement(i, field, nodes, role, sel, path);
      plans.push({ key, kind: 'sql', sql: st.sql, name: statementName(st.sql), params: st.params, ...(st.joins ? { joins: st.joins } : {}) });
      continue;
    }
    if (i.kind === 'update_many') {
      plans.push(...updateManyPlans(field, i.table, role, sel, key, nodes, path));
      continue;
    }
    const b = new StatementBuilder(role.cache);
    if (i.kind === 'insert' || i.kind === 'update' || i.kind === 'delete') {
      const m = new MutationCompiler(b, role, sel);
      const st = i.kind === 'insert' ? m.insert(field, i.table, i.one, nodes, path)
        : i.kind === 'update' ? m.update(field, i.table, i.byPk, nodes, path) : m.delete(field, i.table, i.byPk, nodes, path);
      const objects = `${path}.args.${i.kind === 'insert' && i.one ? 'object' : 'objects'}`;
      const checks = st.checked ? { insert: objects, update: i.kind === 'insert' ? objects : path } : undefined;
      if (st.prelude && st.nested) {
        const prelude = { sql: st.prelude.sql, name: statementName(st.prelude.sql), offset: b.params.length };
        plans.push({ key, kind: 'sql', sql: st.sql, name: statementName(st.sql), params: [...b.params, ...st.prelude.params], prelude, nested: st.nested, ...joinsOf(b) });
        continue;
      }
      plans.push({ key, kind: 'sql', sql: st.sql, name: statementName(st.sql), params: b.params, ...(checks ? { checks } : {}), ...joinsOf(b) });
      continue;
    }
    const c = new SelectionCompiler(b, role, sel);
    let expr: string;
    if (i.kind === 'rows') expr = i.single ? `(${c.rowsJson(field, i.view, i.source, nodes, null, path)} -> 0)` : c.rowsJson(field, i.view, i.source, nodes, null, path);
    else if (i.kind === 'aggregate') expr = c.aggregateJson(field, i.view, i.source, nodes, null, path);
    else if (i.kind === 'by_pk') expr = c.byPk(field, i.view, nodes, path);
    else throw new Error(`root field ${name} of kind ${i.kind} cannot be compiled`);
    // A tracked function in the mutation root writes: it runs through the guard, as table mutations do.
    const sql = `SELECT (${expr})::text AS "root"${sel.op.operation === 'mutation' ? ` FROM ${b.guard()}` : ''}`;
    plans.push({ key, kind: 'sql', sql, name: statementName(sql), params: b.params, ...joinsOf(b) });
  }
  return plans;
}
