import type { PermKind, QualifiedName, RelKind, TableEntry } from '../../metadata/types.js';
import type { BoolExpRefs } from '../bool-exp/schema.js';
import type { DbFunction, DbTable } from '../db-catalog.js';

// The shapes of the resolved schema cache live apart from schema-cache.ts (which resolves metadata with the modules of
// this folder) so that these modules can name a resolved table without importing the resolver back.

export type FieldKind = 'column' | 'relationship' | 'computed field';

/** A consistent relationship: the remote table and the join, local column → remote column. */
export interface ResolvedRelationship {
  kind: RelKind;
  remote: QualifiedName;
  mapping: [string, string][];
}

export interface ResolvedComputedField {
  fn: DbFunction;
  /** The table whose rows it returns, or null for a scalar computed field. */
  returnsTable: QualifiedName | null;
  returnsSet: boolean;
}

/** What a consistent permission depends on (engine-api.md §3.5). */
export interface ResolvedPermission {
  kind: PermKind;
  role: string;
  refs: BoolExpRefs;
  computedFields: string[];
}

/** A consistent tracked table as the GraphQL layer and the BoolExp compiler will see it. */
export interface ResolvedTable {
  entry: TableEntry;
  db: DbTable;
  /** Every name taken on the table: columns, then consistent relationships and computed fields. */
  fields: Map<string, FieldKind>;
  relationships: Map<string, ResolvedRelationship>;
  computedFields: Map<string, ResolvedComputedField>;
  /** Consistent permissions by `<kind>:<role>`. */
  permissions: Map<string, ResolvedPermission>;
  /** Names of its consistent event triggers (their database triggers are installed). */
  eventTriggers: Set<string>;
}
