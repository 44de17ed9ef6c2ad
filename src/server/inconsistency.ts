import type { Json, JsonObject } from '../metadata/json.js';
import { qnJson, qnQuoted } from '../metadata/names.js';
import type { QualifiedName } from '../metadata/types.js';

/** One inconsistent object (engine-api.md §3.4): its record plus a stable identity for set comparisons. */
export interface InconsistentObject {
  id: string;
  type: string;
  reason: string;
  definition: Json;
}

export const recordJson = (o: InconsistentObject): JsonObject => ({ definition: o.definition, reason: o.reason, type: o.type });

/** Identity of a table-scoped object, e.g. `object_relation:public\0author:articles`. */
export const objectId = (type: string, table: QualifiedName | null, name: string): string =>
  `${type}:${table ? `${table.schema}\u0000${table.name}` : ''}:${name}`;

export const tablePrefix = (t: QualifiedName): string => `in table ${qnQuoted(t)}: `;

/** The definition of a table-scoped object: its §6 entry with "table" placed first. */
export const withTable = (t: QualifiedName, entry: JsonObject): JsonObject => ({ table: qnJson(t), ...entry });
