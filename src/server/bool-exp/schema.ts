import type { QualifiedName } from '../../metadata/types.js';

/** What BoolExp validation and compilation need to know of a table; the schema cache provides it. */
export interface BoolExpTable {
  name: QualifiedName;
  /**
   * Column name → its type as format_type prints it ("integer", "character varying", …) and the type values are
   * cast to (the catalog's castType: no length modifier; typeName when absent).
   */
  columns: Map<string, { typeName: string; castType?: string }>;
  relationships: Map<string, { remote: QualifiedName; mapping: [string, string][] }>;
  /**
   * Computed fields usable as BoolExp keys (issue 29): a scalar one of the row (and the session) is compared like a
   * column of its return type; one returning rows of a tracked table (`rows`) holds when some row it returns matches
   * the nested expression, as at the incumbent; `unusable` says why another one cannot be.
   */
  computedFields?: Map<string, BoolExpComputedField | { unusable: string }>;
}

/** A computed field's call in a BoolExp: the row goes to `tableArg`, the session variables to `sessionArg`. */
export interface BoolExpComputedField {
  fn: QualifiedName;
  typeName: string;
  rows?: QualifiedName;
  /** The table argument's name; empty when unnamed (then it is the first argument, passed by position). */
  tableArg?: string;
  /** The session argument and its type (json or jsonb), when the computed field has one (issue 29 point 3). */
  sessionArg?: { name: string; typeName: string };
}

export interface BoolExpSchema {
  /** A consistent tracked table, or undefined. */
  table(name: QualifiedName): BoolExpTable | undefined;
}

/** What a valid BoolExp uses: the dependencies of the object holding it (engine-api.md §3.5). */
export interface BoolExpRefs {
  columns: { table: QualifiedName; column: string }[];
  relationships: { table: QualifiedName; name: string }[];
  tables: QualifiedName[];
  computedFields: { table: QualifiedName; name: string }[];
}

export const emptyRefs = (): BoolExpRefs => ({ columns: [], relationships: [], tables: [], computedFields: [] });
