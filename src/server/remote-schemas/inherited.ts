import {
  Kind, parse, print, type DefinitionNode, type DocumentNode, type EnumValueDefinitionNode, type FieldDefinitionNode,
  type GraphQLSchema, type InputValueDefinitionNode, type NamedTypeNode, type OperationTypeDefinitionNode,
} from 'graphql';
import { compareCodePoints } from '../../metadata/json.js';
import type { Metadata } from '../../metadata/types.js';
import type { InconsistentObject } from '../inconsistency.js';
import { roleRemote, rootNames, type RoleRemote } from './role-schema.js';
import type { RemoteIntrospection } from './types.js';

/**
 * Inherited roles' part of a remote schema (issue 35): a role without a permission of its own sees what any of its
 * parent roles sees (the union of their SDLs: types, fields, arguments, enum values, union members). An argument
 * or input field that two parents both show must carry the same `@preset` (or none in both): otherwise the parents
 * conflict, and as with the incumbent the (role, remote schema) pair is an inconsistency and the role sees nothing of
 * that remote until it is given a permission of its own.
 */

export interface Conflict {
  conflict: string;
}

type Parents = (role: string) => readonly string[] | undefined;

interface Merged {
  node: DefinitionNode & { name: { value: string } };
  fields: Map<string, { node: FieldDefinitionNode; args: Map<string, InputValueDefinitionNode> }>;
  inputs: Map<string, InputValueDefinitionNode>;
  values: Map<string, EnumValueDefinitionNode>;
  members: Map<string, NamedTypeNode>;
}

const presetOf = (v: InputValueDefinitionNode): string => (v.directives ?? []).filter((d) => d.name.value === 'preset').map((d) => print(d)).join(' ');

/** Adds `v` to `into` unless an entry of that name carries another preset: then the place is returned. */
function addInput(into: Map<string, InputValueDefinitionNode>, v: InputValueDefinitionNode, where: string): string | null {
  const had = into.get(v.name.value);
  if (had && presetOf(had) !== presetOf(v)) return `${where}${v.name.value}`;
  if (!had) into.set(v.name.value, v);
  return null;
}

function mergeDoc(doc: DocumentNode, remote: GraphQLSchema, merged: Map<string, Merged>): string | null {
  const roots = rootNames(doc, remote);
  for (const d of doc.definitions) {
    if (!('name' in d) || !d.name || d.kind === Kind.DIRECTIVE_DEFINITION) continue;
    const name = roots.get(d.name.value) ?? d.name.value;
    let m = merged.get(name);
    if (!m) {
      m = { node: d as Merged['node'], fields: new Map(), inputs: new Map(), values: new Map(), members: new Map() };
      merged.set(name, m);
    }
    if (d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.INTERFACE_TYPE_DEFINITION) {
      for (const f of d.fields ?? []) {
        let mf = m.fields.get(f.name.value);
        if (!mf) {
          mf = { node: f, args: new Map() };
          m.fields.set(f.name.value, mf);
        }
        for (const a of f.arguments ?? []) {
          const bad = addInput(mf.args, a, `argument ${name}.${f.name.value}.`);
          if (bad) return bad;
        }
      }
    } else if (d.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
      for (const f of d.fields ?? []) {
        const bad = addInput(m.inputs, f, `input field ${name}.`);
        if (bad) return bad;
      }
    } else if (d.kind === Kind.ENUM_TYPE_DEFINITION) {
      for (const v of d.values ?? []) if (!m.values.has(v.name.value)) m.values.set(v.name.value, v);
    } else if (d.kind === Kind.UNION_TYPE_DEFINITION) {
      for (const t of d.types ?? []) if (!m.members.has(t.name.value)) m.members.set(t.name.value, t);
    }
  }
  return null;
}

function definition(name: string, m: Merged): DefinitionNode {
  const n = m.node;
  const named = { kind: Kind.NAME, value: name } as const;
  switch (n.kind) {
    case Kind.OBJECT_TYPE_DEFINITION:
    case Kind.INTERFACE_TYPE_DEFINITION:
      return { ...n, name: named, fields: [...m.fields.values()].map((f) => ({ ...f.node, arguments: [...f.args.values()] })) };
    case Kind.INPUT_OBJECT_TYPE_DEFINITION:
      return { ...n, name: named, fields: [...m.inputs.values()] };
    case Kind.ENUM_TYPE_DEFINITION:
      return { ...n, name: named, values: [...m.values.values()] };
    case Kind.UNION_TYPE_DEFINITION:
      return { ...n, name: named, types: [...m.members.values()] };
    default:
      return n;
  }
}

/** The union of several roles' SDLs for one remote, or the first argument or input field whose presets differ. */
export function unitedSdl(sdls: string[], remote: GraphQLSchema): string | Conflict {
  const merged = new Map<string, Merged>();
  for (const sdl of sdls) {
    let doc: DocumentNode;
    try {
      doc = parse(sdl);
    } catch {
      continue;
    }
    const bad = mergeDoc(doc, remote, merged);
    if (bad) return { conflict: bad };
  }
  const ops: OperationTypeDefinitionNode[] = [];
  for (const [operation, t] of [['query', remote.getQueryType()], ['mutation', remote.getMutationType()]] as const) {
    if (t && merged.has(t.name)) ops.push({ kind: Kind.OPERATION_TYPE_DEFINITION, operation: operation as never, type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: t.name } } });
  }
  const definitions: DefinitionNode[] = [{ kind: Kind.SCHEMA_DEFINITION, operationTypes: ops }, ...[...merged].map(([name, m]) => definition(name, m))];
  return print({ kind: Kind.DOCUMENT, definitions });
}

/**
 * A role's SDL for a remote: its own permission's; else, for an inherited role, its parents' united (null when none
 * of them has one).
 */
export function roleSdl(remote: GraphQLSchema, permissions: readonly { role: string; schema: string }[], role: string, parentsOf: Parents | undefined, seen: ReadonlySet<string> = new Set()): string | Conflict | null {
  const own = permissions.find((p) => p.role === role);
  if (own) return own.schema;
  const parents = parentsOf?.(role);
  if (!parents || seen.has(role)) return null;
  const next = new Set([...seen, role]);
  const sdls: string[] = [];
  for (const p of parents) {
    const got = roleSdl(remote, permissions, p, parentsOf, next);
    if (got !== null && typeof got === 'object') return got;
    if (typeof got === 'string' && !sdls.includes(got)) sdls.push(got);
  }
  if (sdls.length <= 1) return sdls[0] ?? null;
  return unitedSdl(sdls, remote);
}

/** `roleRemote` for any role: an inherited role without a permission of its own gets its parents' united part. */
export function inheritedRoleRemote(remote: RemoteIntrospection, permissions: readonly { role: string; schema: string }[], role: string, parentsOf: Parents): RoleRemote | null {
  if (role === 'admin' || permissions.length === 0 || permissions.some((p) => p.role === role) || !parentsOf(role)) return roleRemote(remote, permissions, role);
  const sdl = roleSdl(remote.schema, permissions, role, parentsOf);
  return typeof sdl === 'string' ? roleRemote(remote, [{ role, schema: sdl }], role) : null;
}

export const inheritedId = (role: string, remote: string): string => `inherited_role_remote_schema::${role}\u0000${remote}`;

/** The inconsistencies of inherited roles whose parents' parts of a consistent remote conflict. */
export function inheritedRecords(md: Metadata, remotes: ReadonlyMap<string, RemoteIntrospection>): InconsistentObject[] {
  const out: InconsistentObject[] = [];
  const parentsOf: Parents = (r) => md.inherited_roles.get(r)?.role_set;
  for (const role of [...md.inherited_roles.keys()].sort(compareCodePoints)) {
    for (const [name, remote] of remotes) {
      const perms = md.remote_schemas.get(name)?.permissions ?? [];
      if (perms.length === 0) continue;
      const got = roleSdl(remote.schema, perms, role, parentsOf);
      if (got === null || typeof got !== 'object') continue;
      out.push({
        id: inheritedId(role, name), type: 'inherited role permission inconsistency',
        definition: { name: role, entity: { remote_schema: name } },
        reason: `Could not inherit permission for the role '${role}' for the entity: 'remote schema: "${name}"': the parent roles give ${got.conflict} different presets`,
      });
    }
  }
  return out;
}
