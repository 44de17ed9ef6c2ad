import {
  GraphQLEnumType, GraphQLInputObjectType, GraphQLInterfaceType, GraphQLList, GraphQLNonNull, GraphQLObjectType,
  GraphQLScalarType, GraphQLUnionType, isInterfaceType, isListType, isNonNullType, isObjectType, isSpecifiedScalarType,
  isUnionType, type GraphQLArgumentConfig, type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap, type GraphQLNamedType,
  type GraphQLType,
} from 'graphql';
import type { RemoteIntrospection } from '../../remote-schemas/types.js';

/**
 * One role schema's remote types by name (issue 35): two remote schemas may define a type of the same name with the
 * same definition (the incumbent merges them, remote-schemas/consistency.ts lets them through), but a schema holds
 * one type per name. When the consistent remotes share a name, every remote type entering the role's schema is
 * copied once into this map, the first copy of a name serving every remote; otherwise types pass unchanged.
 */
export class RemoteTypeUnifier {
  private readonly copies = new Map<string, GraphQLNamedType>();

  /** `names`: the remotes' type names (a table's type is never copied), or null when no name is shared. */
  constructor(private readonly names: ReadonlySet<string> | null) {}

  /** A field's or argument's type with its named type replaced by the role schema's one of that name. */
  type<T extends GraphQLType>(t: T): T {
    if (!this.names) return t;
    if (isNonNullType(t)) return new GraphQLNonNull(this.type(t.ofType) as never) as unknown as T;
    if (isListType(t)) return new GraphQLList(this.type(t.ofType)) as unknown as T;
    return this.named(t as GraphQLNamedType) as unknown as T;
  }

  private named(t: GraphQLNamedType): GraphQLNamedType {
    if (t.name.startsWith('__') || isSpecifiedScalarType(t) || !this.names?.has(t.name)) return t;
    const known = this.copies.get(t.name);
    if (known) return known;
    const args = (a: Record<string, GraphQLArgumentConfig>): Record<string, GraphQLArgumentConfig> =>
      Object.fromEntries(Object.entries(a).map(([k, v]) => [k, { ...v, type: this.type(v.type) }]));
    const fields = (f: GraphQLFieldConfigMap<unknown, unknown>): GraphQLFieldConfigMap<unknown, unknown> =>
      Object.fromEntries(Object.entries(f).map(([k, v]) => [k, { ...v, type: this.type(v.type), args: args(v.args ?? {}) }]));
    let made: GraphQLNamedType;
    if (isObjectType(t)) {
      const c = t.toConfig();
      made = new GraphQLObjectType({ ...c, interfaces: () => c.interfaces.map((i) => this.named(i) as GraphQLInterfaceType), fields: () => fields(c.fields) });
    } else if (isInterfaceType(t)) {
      const c = t.toConfig();
      made = new GraphQLInterfaceType({ ...c, interfaces: () => c.interfaces.map((i) => this.named(i) as GraphQLInterfaceType), fields: () => fields(c.fields) });
    } else if (isUnionType(t)) {
      const c = t.toConfig();
      made = new GraphQLUnionType({ ...c, types: () => c.types.map((m) => this.named(m) as GraphQLObjectType) });
    } else if (t instanceof GraphQLInputObjectType) {
      const c = t.toConfig();
      made = new GraphQLInputObjectType({
        ...c, fields: (): GraphQLInputFieldConfigMap => Object.fromEntries(Object.entries(c.fields).map(([k, v]) => [k, { ...v, type: this.type(v.type) }])),
      });
    } else if (t instanceof GraphQLEnumType) made = new GraphQLEnumType(t.toConfig());
    else made = new GraphQLScalarType((t as GraphQLScalarType).toConfig());
    this.copies.set(t.name, made);
    return made;
  }
}

const sharing = new WeakMap<ReadonlyMap<string, RemoteIntrospection>, Set<string> | null>();

/**
 * The consistent remotes' type names (their root types aside) when two of them have a type of the same name, else
 * null; once per set of remotes.
 */
export function sharedRemoteTypes(remotes: ReadonlyMap<string, RemoteIntrospection> | undefined): Set<string> | null {
  if (!remotes || remotes.size < 2) return null;
  const known = sharing.get(remotes);
  if (known !== undefined) return known;
  const seen = new Set<string>();
  let shared = false;
  for (const r of remotes.values()) {
    const roots = new Set([r.schema.getQueryType(), r.schema.getMutationType(), r.schema.getSubscriptionType()].flatMap((x) => (x ? [x.name] : [])));
    for (const t of Object.values(r.schema.getTypeMap())) {
      if (t.name.startsWith('__') || isSpecifiedScalarType(t) || roots.has(t.name)) continue;
      if (seen.has(t.name)) shared = true;
      seen.add(t.name);
    }
  }
  const out = shared ? seen : null;
  sharing.set(remotes, out);
  return out;
}
