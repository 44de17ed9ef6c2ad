import { getNullableType, GraphQLList, GraphQLObjectType, type FieldNode, type GraphQLField, type GraphQLOutputType, type GraphQLSchema } from 'graphql';
import type { Action } from '../../../metadata/types.js';
import { ADMIN_SECRET_HEADERS } from '../../auth/session-names.js';
import { actionInputValue } from './output.js';
import { jsonObject, SelectionCompiler } from '../compile/index.js';
import { fieldInfo, type FieldInfo } from '../schema/index.js';
import { outputExpr } from '../schema/index.js';
import type { SelectionContext } from '../compile/index.js';
import { StatementBuilder, type PlanParam, type RemoteJoinSpec } from '../compile/index.js';
import type { RoleView } from '../schema/index.js';

/**
 * Asynchronous actions at execution (graphql-api.md §5.3, engine-api.md §5.2.4): the mutation field is one INSERT
 * into action_log, the query field one SELECT on it. Both are ordinary database root fields, run in the operation's
 * transaction; the handler is called later by the worker (src/server/workers/action-worker.ts).
 */

type Field = GraphQLField<unknown, unknown>;
type AsyncInfo = Extract<FieldInfo, { kind: 'async_action' | 'async_result' }>;

/** What the worker needs of an asynchronous action: its definition, its mutation field (argument types), its output type. */
export interface AsyncTarget {
  action: Action;
  field: Field;
  output: GraphQLOutputType;
}

const targets = new WeakMap<GraphQLSchema, Map<string, AsyncTarget>>();

/** The asynchronous actions of a schema (the admin one: every consistent action), by name. */
export function asyncTargets(schema: GraphQLSchema): Map<string, AsyncTarget> {
  let out = targets.get(schema);
  if (!out) {
    out = new Map();
    for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
      const i = fieldInfo(field);
      if (i?.kind === 'async_action') out.set(i.action.name, { action: i.action, field, output: i.output });
    }
    targets.set(schema, out);
  }
  return out;
}

export interface AsyncStatement {
  sql: string;
  params: PlanParam[];
  /** Remote relationships of tables the stored output reaches (issue 35.3), joined after the statement. */
  joins?: RemoteJoinSpec[];
}

/**
 * The client headers stored with a call (§5.2.4): `[{"name","value"}]` in the order sent, names lower-cased,
 * without the admin secret. Node's rawHeaders keep every header line, repeated names included.
 */
export function requestHeadersJson(rawHeaders: string[]): string {
  const out: { name: string; value: string }[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    if (!ADMIN_SECRET_HEADERS.includes(name)) out.push({ name, value: rawHeaders[i + 1] as string });
  }
  return JSON.stringify(out);
}

/** The root field's statement; its column "root" holds the field's JSON text. */
export function asyncStatement(i: AsyncInfo, field: Field, nodes: FieldNode[], role: RoleView, sel: SelectionContext, path: string): AsyncStatement {
  const b = new StatementBuilder(role.cache);
  const node = nodes[0] as FieldNode;
  if (i.kind === 'async_action') {
    const input = b.param(actionInputValue(i.action, field, node, sel), 'jsonb');
    const sql = `WITH "ins" AS (INSERT INTO "engine_catalog"."action_log" ` +
      '("action_name", "input_payload", "request_headers", "session_variables", "request_query") ' +
      `VALUES (${b.value(i.action.name, 'text')}, ${input}, ${b.request('headers', 'jsonb')}, ${b.sessionJson('jsonb')}, ${b.request('query', 'text')}) ` +
      `RETURNING "id") SELECT (SELECT to_json("ins"."id") FROM "ins")::text AS "root" FROM ${b.guard()}`;
    return { sql, params: b.params };
  }
  const c = new SelectionCompiler(b, role, sel);
  const l = '"_l"';
  const type = getNullableType(field.type) as GraphQLObjectType;
  const pairs: [string, string][] = [];
  for (const [key, fns] of sel.subfields(nodes)) {
    const name = (fns[0] as FieldNode).name.value;
    if (name === '__typename') pairs.push([key, `'${type.name}'::text`]);
    else if (name === 'id') pairs.push([key, `${l}."id"`]);
    else if (name === 'created_at') pairs.push([key, outputExpr(`${l}."created_at"`, 'timestamp with time zone')]);
    else if (name === 'errors') pairs.push([key, `${l}."errors"`]);
    else if (name === 'output') {
      const f = type.getFields()['output'] as Field;
      pairs.push([key, `CASE WHEN ${l}."status" = 'completed' THEN ${shaped(c, f.type, fns, `${l}."response_payload"`, `${path}.selectionSet.${key}`)} END`]);
    }
  }
  const where = [`${l}."id" = ${b.param(sel.args(node).get('id') ?? null, 'uuid')}`, `${l}."action_name" = ${b.value(i.action.name, 'text')}`];
  // Role and session variables together: the stored object holds x-engine-role (§5.3).
  if (!role.admin) where.push(`${l}."session_variables" = ${b.sessionJson('jsonb')}`);
  const sql = `SELECT (SELECT ${jsonObject(pairs)} FROM "engine_catalog"."action_log" AS ${l} WHERE ${where.join(' AND ')})::text AS "root"`;
  return { sql, params: b.params, ...(b.remoteJoins.length > 0 ? { joins: b.remoteJoins } : {}) };
}

/**
 * The stored answer (jsonb expression `x`) shaped by the output type and the selection, as §5.1 step 3 shapes a
 * synchronous answer: requested fields as received, absent ones null, `__typename` the type's name; relationships
 * to tables joined on the object's fields under the role's select permission (§5.1 step 4).
 */
export function shaped(c: SelectionCompiler, type: GraphQLOutputType, nodes: FieldNode[], x: string, path: string): string {
  const t = getNullableType(type);
  if (t instanceof GraphQLList) {
    const a = c.b.alias();
    const el = shaped(c, t.ofType as GraphQLOutputType, nodes, `${a}."v"`, path);
    return `CASE WHEN jsonb_typeof(${x}) = 'array' THEN (SELECT coalesce(json_agg(${el} ORDER BY ${a}."n"), '[]'::json) ` +
      `FROM jsonb_array_elements(${x}) WITH ORDINALITY AS ${a}("v", "n")) END`;
  }
  if (!(t instanceof GraphQLObjectType)) return x;
  const pairs: [string, string][] = [];
  for (const [key, fns] of c.sel.subfields(nodes)) {
    const name = (fns[0] as FieldNode).name.value;
    const p = `${path}.selectionSet.${key}`;
    if (name === '__typename') {
      pairs.push([key, `'${t.name}'::text`]);
      continue;
    }
    const f = t.getFields()[name] as Field;
    const i = fieldInfo(f);
    if (i?.kind === 'action_rel') {
      pairs.push([key, i.array ? c.rowsJson(f, i.view, i.source, fns, x, p) : c.objectRow(f, i.view, i.source, fns, x, p)]);
    } else pairs.push([key, shaped(c, f.type, fns, `(${x} -> '${name}')`, p)]);
  }
  return `CASE WHEN jsonb_typeof(${x}) = 'object' THEN ${jsonObject(pairs)} END`;
}
