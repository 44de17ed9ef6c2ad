import {
  getNamedType, isObjectType, Kind, parse, print, type DocumentNode, type FieldNode, type GraphQLObjectType, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import { fieldInfo, type FieldInfo } from '../schema/index.js';

/** A document sent over the socket, as the transport sees it. */
export interface SocketRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** What the transport does with an operation: a live query (repeated) or a single answer (query, mutation, errors). */
export type Prepared =
  | { kind: 'once'; text: string }
  | { kind: 'live'; text: string; request: { query: string; variables: Record<string, unknown>; operationName: string | null } };

/**
 * A `subscription` operation is a live query: the same root fields as the query root (the incumbent's subscription
 * root is its query root's tables), so it is run as the query it reads like — the same validation, permissions,
 * compiled SQL and plan cache. Anything that does not parse, or names no such operation, goes to the service as is,
 * which answers its error.
 */
export function prepareSocketRequest(req: SocketRequest): Prepared {
  const text = JSON.stringify({ query: req.query, variables: req.variables ?? undefined, operationName: req.operationName ?? undefined });
  let doc: DocumentNode;
  try {
    doc = parse(req.query);
  } catch {
    return { kind: 'once', text };
  }
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const op = req.operationName ? ops.find((o) => o.name?.value === req.operationName) : ops.length === 1 ? ops[0] : undefined;
  if (!op || op.operation !== 'subscription') return { kind: 'once', text };
  // Every subscription of the document becomes a query: the service picks the named one, as for any document.
  const query = print({
    ...doc,
    definitions: doc.definitions.map((d) => (d.kind === Kind.OPERATION_DEFINITION && d.operation === 'subscription' ? { ...d, operation: 'query' } : d)),
  } as DocumentNode);
  const request = { query, variables: req.variables ?? {}, operationName: req.operationName ?? null };
  return { kind: 'live', text: JSON.stringify(request), request };
}

/**
 * The tables a live query reads through its selection (root fields, relationships, computed fields returning rows),
 * by oid, found by walking the document against the role's schema. Tables read only by a permission's
 * filter or inside a function are not found: the fallback timer catches their changes.
 */
export function tablesRead(schema: GraphQLSchema, query: string, operationName: string | null): Map<string, TableRef> {
  const out = new Map<string, TableRef>();
  let doc: DocumentNode;
  try {
    doc = parse(query);
  } catch {
    return out;
  }
  const fragments = new Map<string, SelectionSetNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d.selectionSet);
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
  const root = schema.getQueryType();
  if (!op || !root) return out;
  const seen = new Set<SelectionSetNode>();
  const walk = (type: GraphQLObjectType, set: SelectionSetNode): void => {
    if (seen.has(set)) return;
    seen.add(set);
    for (const s of set.selections) {
      if (s.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(s.name.value);
        if (f) walk(type, f);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        walk(type, s.selectionSet);
      } else {
        field(type, s);
      }
    }
  };
  const field = (type: GraphQLObjectType, node: FieldNode): void => {
    const f = type.getFields()[node.name.value];
    if (!f) return;
    const i = fieldInfo(f);
    if (i) addTable(out, i);
    const named = getNamedType(f.type);
    if (node.selectionSet && isObjectType(named)) walk(named, node.selectionSet);
  };
  walk(root, op.selectionSet);
  return out;
}

/** A table a live query reads: `kind` is pg_class.relkind (only tables get a trigger). */
export interface TableRef {
  oid: string;
  schema: string;
  name: string;
  kind: string;
}

/** The action log, read by an async action's result field (issue 32.5); LiveQueries looks its oid up. */
export const ACTION_LOG: TableRef = { oid: '', schema: 'engine_catalog', name: 'action_log', kind: 'r' };

function addTable(out: Map<string, TableRef>, i: FieldInfo): void {
  // The worker's UPDATE of the call's row is the commit that brings its result.
  if (i.kind === 'async_result') out.set('action_log', ACTION_LOG);
  // A relationship's or computed field's rows carry the view of the table they come from.
  if (!('view' in i)) return;
  const { oid, schema, name, kind } = i.view.rt.db;
  out.set(oid, { oid, schema, name, kind });
}
