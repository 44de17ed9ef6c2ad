import type { FieldNode, GraphQLField } from 'graphql';
import type { Json } from '../../../metadata/json.js';
import type { Action } from '../../../metadata/types.js';
import type { Database } from '../../../db/database.js';
import { databaseError } from '../errors.js';
import type { SelectionContext } from '../compile/index.js';
import type { RoleView } from '../schema/index.js';
import { callAction, type ActionRequest } from './call.js';
import { actionInput, checkAnswer, outputRelationships, shapeAnswer } from './output.js';
import { addRelationships, checkNested, checkRelationships, shapeInDatabase, type JoinRunner } from './relationships.js';

/** A synchronous action's root field as planned: `nested` when its relationships are shaped in the database. */
export interface ActionRoot {
  key: string;
  action: Action;
  field: GraphQLField<unknown, unknown>;
  nodes: FieldNode[];
  nested: boolean;
}

/** What running an operation's actions needs from the request. */
export interface ActionRun {
  db: Database;
  /** The caller's view of the metadata (relationships of action outputs). */
  role: RoleView;
  sel: SelectionContext;
  request: ActionRequest;
  /** Joins remote relationships of tables reached from an output (issue 35.3). */
  joins?: JoinRunner;
}

/**
 * Runs the synchronous actions of an operation in document order, outside any transaction; the first failure is the
 * response (graphql-api.md §4.1). Their relationship statements' parameters are checked first: a missing session
 * variable calls no handler. Returns each root field's JSON text by key.
 */
export async function runActions(roots: ActionRoot[], x: ActionRun): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  const calls = roots.map((p) => {
    const rels = outputRelationships(p.field.type, p.nodes, x.sel, `$.selectionSet.${p.key}`).top;
    const call = { db: x.db, role: x.role, sel: x.sel, session: x.request.sessionVariables, key: p.key, rels, dbError: databaseError, ...(x.joins ? { joins: x.joins } : {}) };
    if (p.nested) checkNested(call, p.field, p.nodes);
    else if (rels.length > 0) checkRelationships(call);
    return { p, call };
  });
  for (const { p, call } of calls) {
    const answer: Json = await callAction(p.action, actionInput(p.action, p.field, p.nodes[0] as FieldNode, x.sel), x.request);
    checkAnswer(p.field, answer);
    if (p.nested) {
      values.set(p.key, await shapeInDatabase(call, p.field, p.nodes, answer));
      continue;
    }
    const shaped = shapeAnswer(p.field.type, answer, p.nodes, x.sel);
    if (call.rels.length > 0) await addRelationships(call, answer, shaped);
    values.set(p.key, JSON.stringify(shaped));
  }
  return values;
}
