import { badRequest } from '../../errors.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { cloneMetadata } from '../../metadata/document.js';
import type { Metadata, QualifiedName, TableEntry } from '../../metadata/types.js';
import type { CreatedObject, OpContext } from '../context.js';
import { dependencyMessage, dependentsOf, type Target } from '../dependencies.js';

/** The "common table check" (§4.0): the named table must be tracked. */
export function requireTracked(ctx: OpContext, table: QualifiedName, path = '$.args.table'): void {
  if (!ctx.metadata.tables.has(qnKey(table))) throw badRequest('not-exists', path, `table ${qnQuoted(table)} does not exist`);
}

/**
 * What already uses `name` on a table: a column, or a relationship or computed field of its metadata entry
 * (consistent or not: inconsistent objects keep their names, §3.4).
 */
export function takenName(ctx: OpContext, table: QualifiedName, name: string): 'column' | 'relationship' | 'computed field' | undefined {
  if (ctx.cache.catalog.tables.get(qnKey(table))?.columns.has(name)) return 'column';
  const entry = ctx.metadata.tables.get(qnKey(table));
  if (entry && [...entry.object_relationships, ...entry.array_relationships].some((r) => r.name === name)) return 'relationship';
  if (entry?.computed_fields.some((c) => c.name === name)) return 'computed field';
  return undefined;
}

/**
 * A copy of the metadata with one table's entry changed. Callers have checked the table is tracked; were it not,
 * the copy is unchanged rather than gaining an entry that `change` never saw.
 */
export function withEntry(ctx: OpContext, table: QualifiedName, change: (entry: TableEntry) => Partial<TableEntry>): Metadata {
  const md = cloneMetadata(ctx.metadata);
  const entry = md.tables.get(qnKey(table));
  if (entry) md.tables.set(qnKey(table), { ...entry, ...change(entry) });
  return md;
}

/** The entry keys whose objects become fields of the table's GraphQL type, and so share its column names. */
type FieldList = 'object_relationships' | 'array_relationships' | 'computed_fields';

interface NewField<K extends FieldList> {
  table: QualifiedName;
  list: K;
  field: TableEntry[K][number];
  /** What the field refers to besides its table: re-read first, since the snapshot may predate their DDL. */
  refers: { tables: QualifiedName[]; functions: QualifiedName[] };
  created: Omit<CreatedObject, 'table'>;
}

/** Adds a relationship or computed field: the name must be free among the table's columns and fields. */
export async function addField<K extends FieldList>(ctx: OpContext, f: NewField<K>): Promise<void> {
  const { table, field } = f;
  requireTracked(ctx, table);
  await ctx.refreshTables([table, ...f.refers.tables], f.refers.functions);
  const taken = takenName(ctx, table, field.name);
  if (taken) {
    throw badRequest('already-exists', '$.args.name', `"${field.name}" conflicts with an existing ${taken} of table ${qnQuoted(table)}`);
  }
  const md = withEntry(ctx, table, (entry) => ({ [f.list]: [...entry[f.list], field] }));
  ctx.apply(md, 'incremental', { ...f.created, table });
}

/**
 * Removes an object with `remove`, and its dependents with it under cascade; without cascade, dependents are an
 * error and nothing is removed.
 */
export function removeWithDependents(
  ctx: OpContext, target: Target, owners: Set<string>, cascade: boolean, remove: (md: Metadata) => void,
): void {
  const deps = dependentsOf(ctx.cache, [target], owners, cascade);
  if (deps.length > 0 && !cascade) throw badRequest('dependency-error', '$.args', dependencyMessage(deps));
  const md = cloneMetadata(ctx.metadata);
  remove(md);
  for (const d of deps) d.remove(md);
  ctx.apply(md);
}
