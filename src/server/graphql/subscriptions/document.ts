import {
  getNamedType, isObjectType, Kind, parse, print, type DocumentNode, type FieldNode, type GraphQLObjectType, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import { fieldInfo, liveSchemaOf, type FieldInfo } from '../schema/index.js';

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

/**
 * The error body of a subscription naming a root field the role's `subscription_root` does not have (a table's root
 * field its `subscription_root_fields` leave out, a query action, a remote schema's field), or null. The request is
 * the subscription as document.ts rewrote it: the same root fields. The rest is the service's validation.
 */
export function refusedRootField(schema: GraphQLSchema, request: { query: string; operationName: string | null }): string | null {
  let doc: DocumentNode;
  try {
    doc = parse(request.query);
  } catch {
    return null;
  }
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const op = request.operationName ? ops.find((o) => o.name?.value === request.operationName) : ops.length === 1 ? ops[0] : undefined;
  if (!op) return null;
  const fields = schema.getSubscriptionType()?.getFields() ?? {};
  const fragments = new Map<string, SelectionSetNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d.selectionSet);
  const seen = new Set<SelectionSetNode>();
  const walk = (set: SelectionSetNode): FieldNode | null => {
    if (seen.has(set)) return null;
    seen.add(set);
    for (const s of set.selections) {
      const inner = s.kind === Kind.FIELD ? null : s.kind === Kind.INLINE_FRAGMENT ? s.selectionSet : fragments.get(s.name.value);
      const bad = s.kind === Kind.FIELD ? (s.name.value.startsWith('__') || fields[s.name.value] ? null : s) : inner ? walk(inner) : null;
      if (bad) return bad;
    }
    return null;
  };
  const bad = walk(op.selectionSet);
  if (!bad) return null;
  const message = `field "${bad.name.value}" not found in type: 'subscription_root'`;
  return JSON.stringify({ errors: [{ message, extensions: { path: `$.selectionSet.${(bad.alias ?? bad.name).value}`, code: 'validation-failed' } }] });
}

/** A role's schema (its subscription_root), and the live schema its subscriptions run on. */
export interface Schemas {
  shown: GraphQLSchema;
  live: GraphQLSchema;
}

/** A role that may subscribe to nothing has no live schema: refusedRootField refuses its every field first. */
export const schemasOf = (shown: GraphQLSchema): Schemas => ({ shown, live: liveSchemaOf(shown) ?? shown });
