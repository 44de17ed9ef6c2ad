import type { GraphQLSchema } from 'graphql';

/**
 * A remote schema as introspected and customised (issue 35): the schema the engine merges, and the maps back to the
 * remote's own names for forwarding. Shared by the schema builder (graphql/schema) and the forwarder.
 */
export interface RemoteIntrospection {
  name: string;
  /** The remote's schema with the customisation applied (types and fields renamed). */
  schema: GraphQLSchema;
  /** Engine type name → the remote's. */
  typeBack: Map<string, string>;
  /** Remote type name → the engine's (for `__typename` answers). */
  typeForward: Map<string, string>;
  /** `engineType.engineField` → the remote's field name, for renamed fields only. */
  fieldBack: Map<string, string>;
  /** `customization.root_fields_namespace`: the remote root fields sit under this one field. */
  namespace?: string;
}

/** What a root field of a remote schema needs to be forwarded; attached to the field (`extensions.engine`). */
export interface RemoteRoot {
  remote: RemoteIntrospection;
  /** `query` or `mutation`. */
  operation: 'query' | 'mutation';
  /** The namespace field itself (its sub-selection holds the remote root fields). */
  namespace: boolean;
  /** The role's argument presets (issue 35.2), set when forwarding; null without. */
  presets: import('./role-schema.js').Presets | null;
  /** The role's copy of the remote's types with relationships to tables, when it has any (to-table.ts); else null. */
  view: { readonly schema: GraphQLSchema } | null;
}
