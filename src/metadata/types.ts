import type { Json } from './json.js';

/** A schema-qualified name of a table or function; the metadata always stores this form. */
export interface QualifiedName {
  schema: string;
  name: string;
}

export type ObjectRelUsing =
  | { foreign_key_constraint_on: string }
  | { manual_configuration: ManualConfiguration };
export type ArrayRelUsing =
  | { foreign_key_constraint_on: { table: QualifiedName; column: string } }
  | { manual_configuration: ManualConfiguration };

export interface ManualConfiguration {
  remote_table: QualifiedName;
  column_mapping: Record<string, string>;
}

export interface Relationship {
  name: string;
  using: ObjectRelUsing | ArrayRelUsing;
  comment: string | null;
}

export type RelKind = 'object' | 'array';

/** Objects of later kinds (permissions, computed fields, event triggers) are held as their canonical JSON. */
export interface NamedJson {
  name: string;
  json: Json;
}

export interface TableEntry {
  table: QualifiedName;
  object_relationships: Relationship[];
  array_relationships: Relationship[];
}

export interface FunctionEntry {
  function: QualifiedName;
  configuration: { session_argument?: string };
}

/** The metadata document (engine-api.md §6) in memory. Entries are treated as immutable values. */
export interface Metadata {
  tables: Map<string, TableEntry>;
  functions: Map<string, FunctionEntry>;
}
