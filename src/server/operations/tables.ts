import { badRequest } from '../../errors.js';
import { at, obj, optBool, qualifiedName, req, isFunctionArgsObject } from '../../metadata/reader.js';
import type { Json } from '../../metadata/json.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { cloneMetadata, newTableEntry } from '../../metadata/document.js';
import { parseFunctionEntry } from '../../metadata/kinds/functions.js';
import type { QualifiedName } from '../../metadata/types.js';
import type { OpContext } from '../context.js';
import { dependencyMessage, dependentsOf } from '../dependencies.js';
import { tableId } from '../schema-cache.js';
import { functionId, functionPrefix, resolveFunction } from '../kinds/functions.js';
import { op, SUCCESS, type Operation } from './operation.js';
import { functionEntryJson } from '../../metadata/kinds/functions.js';
import { qnJson } from '../../metadata/names.js';

const SYSTEM_SCHEMAS = ['engine_catalog', 'pg_catalog', 'information_schema'];

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

/** Removes a table (and, with cascade, its dependents) from the metadata; fails on dependents without cascade. */
export function untrack(ctx: OpContext, table: QualifiedName, cascade: boolean): void {
  const owners = new Set([qnKey(table)]);
  const deps = dependentsOf(ctx.cache, [{ kind: 'table', table }], owners, cascade);
  if (deps.length > 0 && !cascade) throw badRequest('dependency-error', '$.args', dependencyMessage(deps));
  const md = cloneMetadata(ctx.metadata);
  md.tables.delete(qnKey(table));
  for (const d of deps) d.remove(md);
  ctx.apply(md);
}

const trackTable: Operation<QualifiedName> = {
  write: true,
  parse: (args, path) =>
    isFunctionArgsObject(args, 'table') ? qualifiedName(req(obj(args, path), 'table', path), at(path, 'table')) : qualifiedName(args, path),
  async run(ctx, table) {
    const t = qnQuoted(table);
    if (SYSTEM_SCHEMAS.includes(table.schema)) {
      throw badRequest('not-supported', '$.args', `table ${t} belongs to a system schema and cannot be tracked`);
    }
    if (ctx.metadata.tables.has(qnKey(table))) throw badRequest('already-tracked', '$.args', `view/table already tracked : ${t}`);
    await ctx.refreshTables([table]);
    if (!ctx.cache.catalog.tables.has(qnKey(table))) throw badRequest('not-exists', '$.args', `no such table/view exists in postgres : ${t}`);
    const md = cloneMetadata(ctx.metadata);
    md.tables.set(qnKey(table), newTableEntry(table));
    ctx.apply(md, 'incremental', {
      id: tableId(table), prefix: '',
      record: () => ({ id: tableId(table), type: 'table', definition: qnJson(table), reason: '' }),
    });
    return SUCCESS;
  },
};

const untrackTable: Operation<{ table: QualifiedName; cascade: boolean }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return { table: qualifiedName(req(o, 'table', path), at(path, 'table')), cascade: optBool(o, 'cascade', path, false) };
  },
  async run(ctx, { table, cascade }) {
    if (!ctx.metadata.tables.has(qnKey(table))) {
      throw badRequest('already-untracked', '$.args', `view/table already untracked : ${qnQuoted(table)}`);
    }
    untrack(ctx, table, cascade);
    return SUCCESS;
  },
};

const trackFunction: Operation<ReturnType<typeof parseFunctionEntry>> = {
  write: true,
  parse: (args, path) => parseFunctionEntry(args, path),
  async run(ctx, entry) {
    const f = entry.function;
    await ctx.refreshTables([], [f]);
    if (!ctx.cache.catalog.functions.has(qnKey(f))) {
      throw badRequest('not-exists', '$.args', `no such function exists in postgres : ${qnQuoted(f)}`);
    }
    if (ctx.metadata.functions.has(qnKey(f))) throw badRequest('already-tracked', '$.args', `function already tracked : ${qnQuoted(f)}`);
    const md = cloneMetadata(ctx.metadata);
    md.functions.set(qnKey(f), entry);
    ctx.apply(md, 'incremental', {
      id: functionId(f), prefix: functionPrefix(f),
      record: () => resolveFunction(entry, ctx.cache.catalog, ctx.cache.tables) ?? {
        id: functionId(f), type: 'function', definition: functionEntryJson(entry), reason: '',
      },
    });
    return SUCCESS;
  },
};

const untrackFunction: Operation<QualifiedName> = {
  write: true,
  parse: (args, path) =>
    isFunctionArgsObject(args, 'function') ? qualifiedName(req(obj(args, path), 'function', path), at(path, 'function')) : qualifiedName(args, path),
  async run(ctx, f) {
    if (!ctx.metadata.functions.has(qnKey(f))) throw badRequest('already-untracked', '$.args', `function already untracked : ${qnQuoted(f)}`);
    const md = cloneMetadata(ctx.metadata);
    md.functions.delete(qnKey(f));
    ctx.apply(md);
    return SUCCESS;
  },
};

export const tableOperations: Record<string, Operation<unknown>> = {
  track_table: op(trackTable),
  untrack_table: op(untrackTable),
  track_function: op(trackFunction),
  untrack_function: op(untrackFunction),
};

export type { Json };
