import type { CancelSignal } from '../../db/cancel.js';
import {
  getNamedType, Kind, print, type GraphQLNamedType, type GraphQLSchema, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type FieldNode, type FragmentDefinitionNode,
  type NamedTypeNode, type OperationDefinitionNode, type SelectionNode, type SelectionSetNode, type VariableDefinitionNode,
} from 'graphql';
import type { Json, JsonObject } from '../../metadata/json.js';
import type { Env, NameValue } from '../outbound/index.js';
import { gqlError, RemoteSchemaErrors } from '../graphql/errors.js';
import { callRemote } from './call.js';
import type { RemoteIntrospection, RemoteRoot } from './types.js';
import { applyPresets } from './presets.js';
import type { Presets } from './role-schema.js';
import { dropJoinKeys, tableJoins, withoutTableFields, type TableJoin } from './to-table.js';
import { stringifyKeepingDigits } from './literals.js';

/**
 * Forwarding a remote schema's root fields (issue 35 point 1): the operation's part for one remote becomes one
 * document (fragments inlined, customised names mapped back, each root field aliased to its response key, the
 * variables it uses), sent in one call; the answer's `__typename`s are mapped forward again.
 */

export interface RemoteRootPlan {
  key: string;
  root: RemoteRoot;
  nodes: FieldNode[];
}

export interface ForwardRequest {
  env: Env;
  op: OperationDefinitionNode;
  fragments: Map<string, FragmentDefinitionNode>;
  /** The variables as sent. */
  variables: Record<string, unknown>;
  /** The client's headers (forwarded when the remote says so), and the session (always, as headers). */
  clientHeaders: NameValue[];
  sessionVariables: Record<string, string>;
  signal?: CancelSignal;
  /** Answers the remote types' relationships to tables (to-table.ts), filling each join's targets. */
  joinTables?: (joins: TableJoin[]) => Promise<void>;
}


/** Fragment spreads become inline fragments: the remote has no copy of the client's fragment definitions. */
export function inline(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, depth = 0): SelectionSetNode {
  const selections: SelectionNode[] = set.selections.map((s) => {
    if (s.kind === Kind.FRAGMENT_SPREAD) {
      const f = fragments.get(s.name.value);
      if (!f || depth > 100) return s;
      return { kind: Kind.INLINE_FRAGMENT, typeCondition: f.typeCondition, directives: s.directives ?? [], selectionSet: inline(f.selectionSet, fragments, depth + 1) };
    }
    if (!s.selectionSet) return s;
    return { ...s, selectionSet: inline(s.selectionSet, fragments, depth + 1) } as SelectionNode;
  });
  return { ...set, selections };
}

/** Renames to the remote's names: fields (aliased to the name the client sees), type conditions, variable types. */
function toRemoteNames(doc: DocumentNode, remote: RemoteIntrospection): DocumentNode {
  if (remote.fieldBack.size === 0 && [...remote.typeBack].every(([a, b]) => a === b)) return doc;
  const info = new TypeInfo(remote.schema);
  return visit(doc, visitWithTypeInfo(info, {
    Field(node) {
      const parent = info.getParentType();
      const back = parent ? remote.fieldBack.get(`${parent.name}.${node.name.value}`) : undefined;
      if (back === undefined) return undefined;
      return { ...node, alias: node.alias ?? { kind: Kind.NAME, value: node.name.value }, name: { kind: Kind.NAME, value: back } };
    },
    NamedType(node: NamedTypeNode) {
      const back = remote.typeBack.get(node.name.value);
      return back === undefined || back === node.name.value ? undefined : { ...node, name: { kind: Kind.NAME, value: back } };
    },
  }));
}

function usedVariables(set: SelectionSetNode): Set<string> {
  const out = new Set<string>();
  visit(set, { Variable(v) { out.add(v.name.value); } });
  return out;
}

/** The response keys of a selection (fragments already inlined), with `__typename` marked. */
function flat(set: SelectionSetNode | undefined, out: FieldNode[] = []): FieldNode[] {
  for (const s of set?.selections ?? []) {
    if (s.kind === Kind.FIELD) out.push(s);
    else if (s.kind === Kind.INLINE_FRAGMENT) flat(s.selectionSet, out);
  }
  return out;
}

export function typenamesForward(v: Json | undefined, set: SelectionSetNode | undefined, remote: RemoteIntrospection): Json | undefined {
  if (v === null || v === undefined || !set) return v;
  if (Array.isArray(v)) return v.map((x) => typenamesForward(x, set, remote) ?? null);
  if (typeof v !== 'object') return v;
  const o = v;
  for (const f of flat(set)) {
    const key = f.alias?.value ?? f.name.value;
    if (f.name.value === '__typename' && typeof o[key] === 'string') o[key] = remote.typeForward.get(o[key]) ?? o[key];
    else if (f.selectionSet) o[key] = typenamesForward(o[key], f.selectionSet, remote) ?? null;
  }
  return o;
}

/**
 * The request body for a selection of root fields of one remote: the role's presets written in, then the variables
 * still used, then the remote's own names.
 */
export function remoteBody(remote: RemoteIntrospection, operation: 'query' | 'mutation', selections: SelectionNode[], presets: Presets | null, req: ForwardRequest, view: GraphQLSchema | null = null): string {
  const root = view ? (operation === 'mutation' ? view.getMutationType() : view.getQueryType()) : null;
  if (view && root) selections = withoutTableFields({ kind: Kind.SELECTION_SET, selections }, root, view).selections as SelectionNode[];
  const opNode = (setNode: SelectionSetNode, variableDefinitions: VariableDefinitionNode[]): DocumentNode => ({
    kind: Kind.DOCUMENT,
    definitions: [{ kind: Kind.OPERATION_DEFINITION, operation: operation === 'mutation' ? 'mutation' as never : 'query' as never, variableDefinitions, selectionSet: setNode }],
  } as DocumentNode);
  let doc = opNode({ kind: Kind.SELECTION_SET, selections }, []);
  if (presets) doc = applyPresets(doc, remote.schema, presets, req.sessionVariables, req.variables);
  const setNode = (doc.definitions[0] as OperationDefinitionNode).selectionSet;
  const used = usedVariables(setNode);
  const varDefs: VariableDefinitionNode[] = (req.op.variableDefinitions ?? []).filter((d) => used.has(d.variable.name.value));
  doc = toRemoteNames(opNode(setNode, varDefs), remote);
  const variables: Record<string, unknown> = {};
  for (const d of varDefs) if (Object.hasOwn(req.variables, d.variable.name.value)) variables[d.variable.name.value] = req.variables[d.variable.name.value];
  return JSON.stringify({ query: print(doc), ...(varDefs.length > 0 ? { variables } : {}) });
}

/** Client headers (when the remote says so) and the session variables, always (configured headers win, in call.ts). */
export const remoteHeaders = (def: JsonObject, req: ForwardRequest): NameValue[] => [
  ...(def['forward_client_headers'] === true ? req.clientHeaders : []),
  ...Object.entries(req.sessionVariables).map(([name, value]) => ({ name, value })),
];

/**
 * Answers the relationships to tables inside a remote's answer (`parts`: each value with its selection and type in
 * the role's extended schema), then drops the engine's aliases; one statement per relationship field.
 */
export async function answerTables(parts: { value: Json | undefined; set: SelectionSetNode; type: GraphQLNamedType; path: string }[], view: GraphQLSchema, req: ForwardRequest): Promise<void> {
  const joins = new Map<FieldNode, TableJoin>();
  for (const p of parts) tableJoins(p.value, p.set, p.type, view, p.path, joins);
  if (joins.size > 0 && req.joinTables) await req.joinTables([...joins.values()]);
  for (const p of parts) dropJoinKeys(p.value);
}

/** Runs the root fields of one remote in one call; returns each root field's JSON text by key. */
export async function forwardRemote(remote: RemoteIntrospection, def: JsonObject, roots: RemoteRootPlan[], req: ForwardRequest): Promise<Map<string, string>> {
  const selections: SelectionNode[] = [];
  const nsTypename = new Map<string, FieldNode[]>();
  for (const p of roots) {
    for (const n of p.nodes) {
      const set = n.selectionSet ? inline(n.selectionSet, req.fragments) : undefined;
      if (!p.root.namespace) {
        selections.push({ ...n, alias: { kind: Kind.NAME, value: p.key }, ...(set ? { selectionSet: set } : {}) });
        continue;
      }
      // The namespace's own `__typename` is the engine's type: answered here, the rest forwarded as root fields.
      nsTypename.set(p.key, flat(set));
      for (const f of flat(set)) if (f.name.value !== '__typename') selections.push(f);
    }
  }
  const operation = roots[0]?.root.operation ?? 'query';
  const path = `$.selectionSet.${roots[0]?.key ?? ''}`;
  const view = roots[0]?.root.view?.schema ?? null;
  const body = remoteBody(remote, operation, selections, roots[0]?.root.presets ?? null, req, view);
  const answer = await callRemote(remote.name, def, body, req.env, remoteHeaders(def, req), req.signal);
  if (!answer.ok) throw gqlError('remote-schema-error', path, answer.message, answer.internal);
  const errors = answer.body['errors'];
  if (Array.isArray(errors) && errors.length > 0) {
    throw new RemoteSchemaErrors(errors.map((e) => (typeof e === 'object' && e !== null && !Array.isArray(e) ? e : { message: String(e) })));
  }
  const data = answer.body['data'];
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw gqlError('remote-schema-error', path, `remote schema "${remote.name}" answered no "data" object`);
  const rootType = view ? (operation === 'mutation' ? view.getMutationType() : view.getQueryType()) : null;
  if (view && rootType) {
    const parts = roots.flatMap((p) => p.nodes.flatMap((n) => {
      const fields = p.root.namespace ? flat(n.selectionSet ? inline(n.selectionSet, req.fragments) : undefined) : [{ ...n, alias: { kind: Kind.NAME, value: p.key } } as FieldNode];
      return fields.flatMap((f) => {
        const def = rootType.getFields()[f.name.value];
        const key = f.alias?.value ?? f.name.value;
        if (!def || !f.selectionSet) return [];
        return [{ value: data[key], set: inline(f.selectionSet, req.fragments), type: getNamedType(def.type), path: `$.selectionSet.${p.root.namespace ? `${p.key}.selectionSet.` : ''}${key}` }];
      });
    }));
    await answerTables(parts, view, req);
  }
  const out = new Map<string, string>();
  for (const p of roots) {
    if (!p.root.namespace) {
      const set: SelectionSetNode = { kind: Kind.SELECTION_SET, selections: p.nodes.flatMap((n) => (n.selectionSet ? inline(n.selectionSet, req.fragments).selections : [])) };
      out.set(p.key, stringifyKeepingDigits(typenamesForward(data[p.key], set, remote) ?? null));
      continue;
    }
    const obj: JsonObject = {};
    for (const f of nsTypename.get(p.key) ?? []) {
      const key = f.alias?.value ?? f.name.value;
      obj[key] = f.name.value === '__typename'
        ? `${remote.namespace ?? ''}_${operation}`
        : typenamesForward(data[key], f.selectionSet, remote) ?? null;
    }
    out.set(p.key, stringifyKeepingDigits(obj));
  }
  return out;
}

/** Runs every remote root field of an operation: one call per remote schema, the remotes in parallel. */
export async function runRemotes(roots: RemoteRootPlan[], defs: ReadonlyMap<string, { definition: JsonObject }>, req: ForwardRequest): Promise<Map<string, string>> {
  const byRemote = new Map<string, RemoteRootPlan[]>();
  for (const p of roots) {
    const list = byRemote.get(p.root.remote.name) ?? [];
    list.push(p);
    byRemote.set(p.root.remote.name, list);
  }
  const answers = await Promise.all([...byRemote.values()].map((list) => {
    const remote = (list[0] as RemoteRootPlan).root.remote;
    const def = defs.get(remote.name)?.definition ?? {};
    return forwardRemote(remote, def, list, req);
  }));
  return new Map(answers.flatMap((m) => [...m]));
}
