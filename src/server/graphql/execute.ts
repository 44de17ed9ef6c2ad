import { execute, Kind, type DocumentNode, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { ApiError } from '../../errors.js';
import { pgErrorInfo, type Database } from '../../db/database.js';
import type { Json } from '../../metadata/json.js';
import { gqlError } from './errors.js';
import { callAction, type ActionRequest } from './action-call.js';
import { actionInput, checkAnswer, outputRelationships, shapeAnswer } from './action-output.js';
import { addRelationships, checkRelationships } from './action-relationships.js';
import type { RoleView } from './visibility.js';
import type { RootPlan } from './plan.js';
import type { SelectionContext } from './selection.js';
import { bind, checkBound, sessionJsonText, type RequestValues } from './sql-builder.js';

/** Runs an operation's plans (graphql-api.md §4.1) and splices each root field's JSON text into the response. */

const CONSTRAINT: Record<string, string> = {
  '23505': 'Uniqueness violation. ', '23503': 'Foreign key violation. ', '23502': 'Not-NULL violation. ',
  '23514': 'Check constraint violation. ', '23P01': 'Exclusion violation. ', '23001': 'Can not delete or update due to data being referred. ',
};

/** A PostgreSQL error as the §6.2 GraphQL error of root field `key`; null when it is not a PostgreSQL error. */
export function databaseError(e: unknown, key: string, sql: string, args: (string | null)[]): ApiError | null {
  const info = pgErrorInfo(e);
  if (!info) return null;
  const internal: Json = {
    statement: sql, prepared: true, arguments: args,
    error: { exec_status: 'FatalError', message: info.message, status_code: info.code, description: info.detail, hint: info.hint },
  };
  const path = `$.selectionSet.${key}`;
  const c = info.code;
  if (c.startsWith('23')) return gqlError('constraint-violation', path, (CONSTRAINT[c] ?? '') + info.message, internal);
  if (c.startsWith('22')) return gqlError('data-exception', path, info.message, internal);
  if (c === 'P0001') return gqlError('postgres-error', path, info.message, internal);
  return gqlError('unexpected', path, 'database query error', internal);
}

/**
 * Binds every statement's parameters before any SQL runs: first the checks of bound variables' values (§1.3 step 8),
 * then the parameters, where a missing session variable fails (step 9).
 */
export function bindAll(plans: RootPlan[], session: Record<string, string>, vars: Record<string, unknown>, request?: RequestValues): Map<string, (string | null)[]> {
  for (const p of plans) if (p.kind === 'sql') checkBound(p.params, vars);
  const out = new Map<string, (string | null)[]>();
  for (const p of plans) if (p.kind === 'sql') out.set(p.key, bind(p.params, session, vars, request));
  return out;
}

function introspection(schema: GraphQLSchema, doc: DocumentNode, sel: SelectionContext, plan: Extract<RootPlan, { kind: 'introspection' }>): string {
  const op: OperationDefinitionNode = { ...sel.op, selectionSet: { kind: Kind.SELECTION_SET, selections: plan.nodes } };
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [op, ...doc.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)] };
  const result = execute({ schema, document, variableValues: sel.variables }) as { data?: Record<string, unknown> | null; errors?: unknown[] };
  if (result.errors?.length) throw new Error(`introspection failed: ${String(result.errors[0])}`);
  return JSON.stringify(result.data?.[plan.key] ?? null);
}

export interface ExecuteArgs {
  db: Database;
  schema: GraphQLSchema;
  doc: DocumentNode;
  sel: SelectionContext;
  plans: RootPlan[];
  args: Map<string, (string | null)[]>;
  /** What synchronous action calls need from the request. */
  action: ActionRequest;
  /** The caller's view of the metadata (relationships of action outputs). */
  role: RoleView;
}

export async function executeQuery(x: ExecuteArgs): Promise<string> {
  const values = new Map<string, string>();
  for (const p of x.plans) {
    if (p.kind === 'json') values.set(p.key, p.json);
    else if (p.kind === 'introspection') {
      // Kept with the plan only when no variable can change it (a plan serves every value of bound variables).
      const answer = p.answer ?? introspection(x.schema, x.doc, x.sel, p);
      if ((x.sel.op.variableDefinitions ?? []).length === 0) p.answer = answer;
      values.set(p.key, answer);
    }
  }
  // Synchronous actions run in document order, outside any transaction; the first failure is the response (§4.1).
  // Their relationship statements' parameters are checked first: a missing session variable calls no handler.
  const actions = x.plans.filter((p): p is Extract<RootPlan, { kind: 'action' }> => p.kind === 'action').map((p) => {
    const rels = outputRelationships(p.field.type, p.nodes, x.sel, `$.selectionSet.${p.key}`).top;
    const call = { db: x.db, role: x.role, sel: x.sel, session: x.action.sessionVariables, key: p.key, rels, dbError: databaseError };
    if (rels.length > 0) checkRelationships(call);
    return { p, call };
  });
  for (const { p, call } of actions) {
    const answer = await callAction(p.action, actionInput(p.action, p.field, p.nodes[0] as FieldNode, x.sel), x.action);
    checkAnswer(p.field, answer);
    const shaped = shapeAnswer(p.field.type, answer, p.nodes, x.sel);
    if (call.rels.length > 0) await addRelationships(call, answer, shaped);
    values.set(p.key, JSON.stringify(shaped));
  }
  const statements = x.plans.filter((p): p is Extract<RootPlan, { kind: 'sql' }> => p.kind === 'sql');
  if (statements.length > 0) {
    // A mutation: one READ COMMITTED transaction whose first statement records who writes, for event triggers (§4.1).
    const mutation = x.sel.op.operation === 'mutation';
    await x.db.transaction(async (tx) => {
      if (mutation) await tx.query("SELECT set_config('engine.session_variables', $1, true)", [sessionJsonText(x.action.sessionVariables)]);
      for (const p of statements) {
        const args = x.args.get(p.key) ?? [];
        let rows: { root: string | null; fail?: string | null }[];
        try {
          rows = await tx.query<{ root: string | null; fail?: string | null }>(p.sql, args, { name: p.name });
        } catch (e) {
          throw databaseError(e, p.key, p.sql, args) ?? e;
        }
        const fail = rows[0]?.fail;
        if (fail && p.checks) {
          // Thrown inside the transaction: it rolls back every earlier root field with this one.
          throw gqlError('permission-error', fail === 'insert' ? p.checks.insert : p.checks.update, `check constraint of an ${fail} permission has failed`);
        }
        values.set(p.key, rows[0]?.root ?? 'null');
      }
    }, { readOnlySnapshot: !mutation, utc: true });
  }
  return `{"data":{${x.plans.map((p) => `${JSON.stringify(p.key)}:${values.get(p.key) ?? 'null'}`).join(',')}}}`;
}
