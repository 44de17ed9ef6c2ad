import {
  buildASTSchema, getNamedType, isEnumType, isInputObjectType, isInterfaceType, isObjectType, isScalarType, isUnionType,
  Kind, parse, visit, type ConstValueNode, type DocumentNode, type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchema,
  type InputValueDefinitionNode, type TypeNode,
} from 'graphql';
import type { RemoteIntrospection } from './types.js';

/**
 * A role's view of a remote schema (issue 35 point 2, `add_remote_schema_permissions`): the SDL names the types,
 * fields, arguments, enum values and union members the role sees, a subset of the remote's (after customisation);
 * an argument or input field marked `@preset(value: …)` is hidden from the role and set by the engine when it
 * forwards: a string value starting with `x-hasura-` (or `x-engine-`) is that session variable, unless `static: true`.
 */

export interface Preset {
  value: ConstValueNode;
  static: boolean;
}

/** Presets by `Type.field` (field arguments) and by input type (input fields); argument / input field name → preset. */
export interface Presets {
  args: Map<string, Map<string, Preset>>;
  inputs: Map<string, Map<string, Preset>>;
}

export interface RoleRemote {
  remote: RemoteIntrospection;
  /** The types the role sees (the remote's own schema for admin and where no permission is defined). */
  schema: GraphQLSchema;
  presets: Presets | null;
  /** Whether `schema` is a copy with the role's relationships to tables (remote-schemas/to-table.ts). */
  extended?: boolean;
  /** The copy's root types, known before its schema is built (the schema is built on first use). */
  roots?: { query: GraphQLObjectType | null; mutation: GraphQLObjectType | null };
}

/** A root type of the role's view, without building an extended copy's schema. */
export const rootType = (rr: RoleRemote, op: 'query' | 'mutation'): GraphQLObjectType | null =>
  (rr.roots ? rr.roots[op] : (op === 'query' ? rr.schema.getQueryType() : rr.schema.getMutationType()) ?? null);

const KIND_WORD: Record<string, string> = {
  [Kind.OBJECT_TYPE_DEFINITION]: 'Object', [Kind.INTERFACE_TYPE_DEFINITION]: 'Interface', [Kind.INPUT_OBJECT_TYPE_DEFINITION]: 'Input object',
  [Kind.ENUM_TYPE_DEFINITION]: 'Enum', [Kind.UNION_TYPE_DEFINITION]: 'Union', [Kind.SCALAR_TYPE_DEFINITION]: 'Scalar',
};

const BUILT_IN = new Set(['Int', 'Float', 'String', 'Boolean', 'ID']);

function sameKind(kind: string, t: GraphQLNamedType): boolean {
  switch (kind) {
    case Kind.OBJECT_TYPE_DEFINITION: return isObjectType(t);
    case Kind.INTERFACE_TYPE_DEFINITION: return isInterfaceType(t);
    case Kind.INPUT_OBJECT_TYPE_DEFINITION: return isInputObjectType(t);
    case Kind.ENUM_TYPE_DEFINITION: return isEnumType(t);
    case Kind.UNION_TYPE_DEFINITION: return isUnionType(t);
    default: return isScalarType(t);
  }
}

const failed = (why: string): string => `validation for the given role-based schema failed because ${why}`;

/** The SDL's root type names mapped to the remote's (the SDL may call its query root `Query` whatever the remote does). */
export function rootNames(doc: DocumentNode, remote: GraphQLSchema): Map<string, string> {
  const out = new Map<string, string>();
  const theirs = { query: remote.getQueryType()?.name, mutation: remote.getMutationType()?.name, subscription: remote.getSubscriptionType()?.name };
  let declared = false;
  for (const d of doc.definitions) {
    if (d.kind !== Kind.SCHEMA_DEFINITION) continue;
    declared = true;
    for (const o of d.operationTypes) if (theirs[o.operation]) out.set(o.type.name.value, theirs[o.operation] as string);
  }
  if (!declared) {
    if (theirs.query) out.set('Query', theirs.query);
    if (theirs.mutation) out.set('Mutation', theirs.mutation);
  }
  return out;
}

function presetOf(v: InputValueDefinitionNode): Preset | undefined {
  const d = v.directives?.find((x) => x.name.value === 'preset');
  if (!d) return undefined;
  const value = d.arguments?.find((a) => a.name.value === 'value')?.value;
  const isStatic = d.arguments?.find((a) => a.name.value === 'static')?.value;
  if (!value) return undefined;
  return { value, static: isStatic?.kind === Kind.BOOLEAN && isStatic.value };
}

/** The first way the SDL is not a subset of the remote, or null. */
function subsetProblem(doc: DocumentNode, remote: GraphQLSchema, roots: Map<string, string>): string | null {
  for (const d of doc.definitions) {
    const word = KIND_WORD[d.kind];
    if (!word || !('name' in d) || !d.name) continue;
    const name = d.name.value;
    if (BUILT_IN.has(name)) continue;
    const t = remote.getType(roots.get(name) ?? name);
    if (!t || !sameKind(d.kind, t)) return failed(`"${word}": "${name}" does not exist in the upstream remote schema`);
    if ((d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.INTERFACE_TYPE_DEFINITION) && (isObjectType(t) || isInterfaceType(t))) {
      const fields = t.getFields();
      for (const f of d.fields ?? []) {
        const theirs = fields[f.name.value];
        if (!theirs) return failed(`field "${f.name.value}" does not exist in the "${word}": "${name}" of the upstream remote schema`);
        if (printType(f.type) !== String(theirs.type)) return failed(`field "${name}.${f.name.value}" expected to be of type "${String(theirs.type)}" but is "${printType(f.type)}"`);
        for (const a of f.arguments ?? []) {
          const arg = theirs.args.find((x) => x.name === a.name.value);
          if (!arg) return failed(`argument "${a.name.value}" does not exist in the field "${name}.${f.name.value}" of the upstream remote schema`);
          if (printType(a.type) !== String(arg.type)) return failed(`argument "${a.name.value}" of "${name}.${f.name.value}" expected to be of type "${String(arg.type)}" but is "${printType(a.type)}"`);
        }
      }
    } else if (d.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION && isInputObjectType(t)) {
      const fields = t.getFields();
      for (const f of d.fields ?? []) {
        const theirs = fields[f.name.value];
        if (!theirs) return failed(`field "${f.name.value}" does not exist in the "Input object": "${name}" of the upstream remote schema`);
        if (printType(f.type) !== String(theirs.type)) return failed(`field "${name}.${f.name.value}" expected to be of type "${String(theirs.type)}" but is "${printType(f.type)}"`);
      }
    } else if (d.kind === Kind.ENUM_TYPE_DEFINITION && isEnumType(t)) {
      for (const v of d.values ?? []) if (!t.getValue(v.name.value)) return failed(`enum value "${v.name.value}" does not exist in the "Enum": "${name}" of the upstream remote schema`);
    } else if (d.kind === Kind.UNION_TYPE_DEFINITION && isUnionType(t)) {
      const members = new Set(t.getTypes().map((m) => m.name));
      for (const m of d.types ?? []) if (!members.has(m.name.value)) return failed(`type "${m.name.value}" is not a member of the "Union": "${name}" of the upstream remote schema`);
    }
  }
  return null;
}

function printType(t: TypeNode): string {
  if (t.kind === Kind.NON_NULL_TYPE) return `${printType(t.type)}!`;
  if (t.kind === Kind.LIST_TYPE) return `[${printType(t.type)}]`;
  return t.name.value;
}

/** The role's schema and presets from its SDL, or the reason the SDL is refused. */
export function buildRoleRemote(remote: RemoteIntrospection, sdl: string): RoleRemote | string {
  let doc: DocumentNode;
  try {
    doc = parse(sdl);
  } catch (e) {
    return `the role's schema is not valid SDL: ${e instanceof Error ? e.message : String(e)}`;
  }
  const roots = rootNames(doc, remote.schema);
  const problem = subsetProblem(doc, remote.schema, roots);
  if (problem) return problem;
  const presets: Presets = { args: new Map(), inputs: new Map() };
  let parent = '';
  let field = '';
  // The preset arguments and input fields leave the role's schema; every directive use goes (the SDL's own).
  const stripped = visit(doc, {
    ObjectTypeDefinition: { enter(n) { parent = roots.get(n.name.value) ?? n.name.value; } },
    InterfaceTypeDefinition: { enter(n) { parent = n.name.value; } },
    InputObjectTypeDefinition: { enter(n) { parent = n.name.value; field = ''; } },
    FieldDefinition: { enter(n) { field = n.name.value; } },
    InputValueDefinition(n) {
      const p = presetOf(n);
      if (!p) return { ...n, directives: [] };
      const key = field ? `${parent}.${field}` : parent;
      const map = field ? presets.args : presets.inputs;
      const m = map.get(key) ?? new Map<string, Preset>();
      m.set(n.name.value, p);
      map.set(key, m);
      return null;
    },
    Directive() {
      return null;
    },
  });
  let schema: GraphQLSchema;
  try {
    schema = buildASTSchema(stripped, { assumeValidSDL: true });
  } catch (e) {
    return failed(e instanceof Error ? e.message : String(e));
  }
  const hasPresets = presets.args.size + presets.inputs.size > 0;
  return { remote, schema, presets: hasPresets ? presets : null };
}

const built = new WeakMap<RemoteIntrospection, Map<string, RoleRemote | string>>();

/** The role's view of a consistent remote: null when the role may not see it (a permission exists, not the role's). */
export function roleRemote(remote: RemoteIntrospection, permissions: readonly { role: string; schema: string }[], role: string): RoleRemote | null {
  if (role === 'admin' || permissions.length === 0) return { remote, schema: remote.schema, presets: null };
  const p = permissions.find((x) => x.role === role);
  if (!p) return null;
  let byText = built.get(remote);
  if (!byText) {
    byText = new Map();
    built.set(remote, byText);
  }
  let got = byText.get(p.schema);
  if (got === undefined) {
    got = buildRoleRemote(remote, p.schema);
    byText.set(p.schema, got);
  }
  // A permission that no longer fits the remote (it changed since) shows the role nothing of it.
  return typeof got === 'string' ? null : got;
}

/** Whether a named input type has presets in it, at any depth. */
export function inputHasPresets(t: GraphQLNamedType, presets: Presets, seen = new Set<string>()): boolean {
  if (!isInputObjectType(t) || seen.has(t.name)) return false;
  seen.add(t.name);
  if (presets.inputs.has(t.name)) return true;
  return Object.values(t.getFields()).some((f) => inputHasPresets(getNamedType(f.type), presets, seen));
}
