import { badRequest } from '../../errors.js';
import { at, obj, optBool, qualifiedName, req, isFunctionArgsObject } from '../../metadata/reader.js';
import { qnJson, qnKey, qnQuoted } from '../../metadata/names.js';
import { cloneMetadata, newTableEntry } from '../../metadata/document.js';
import { functionEntryJson, parseFunctionEntry } from '../../metadata/kinds/functions.js';
import type { QualifiedName } from '../../metadata/types.js';
import { tableId } from '../schema-cache.js';
import { functionId, functionPrefix, resolveFunction } from '../kinds/functions.js';
import { op, SUCCESS, type Operation } from './operation.js';
import { removeWithDependents } from './table-objects.js';
import { onlyKeys, parseSettings } from './table-settings.js';
import type { TableExtras } from '../../metadata/kinds/unsupported.js';

const SYSTEM_SCHEMAS = ['engine_catalog', 'pg_catalog', 'information_schema'];

const trackTable: Operation<{ table: QualifiedName; extras: TableExtras }> = {
  write: true,
  parse(args, path) {
    if (!isFunctionArgsObject(args, 'table')) return { table: qualifiedName(args, path), extras: {} };
    const o = obj(args, path);
    onlyKeys(o, path, ['table', 'is_enum', 'configuration', 'source']);
    return { table: qualifiedName(req(o, 'table', path), at(path, 'table')), extras: parseSettings(o, path) };
  },
  async run(ctx, { table, extras }) {
    const t = qnQuoted(table);
    if (SYSTEM_SCHEMAS.includes(table.schema)) {
      throw badRequest('not-supported', '$.args', `table ${t} belongs to a system schema and cannot be tracked`);
    }
    if (ctx.metadata.tables.has(qnKey(table))) throw badRequest('already-tracked', '$.args', `view/table already tracked : ${t}`);
    await ctx.refreshTables([table]);
    if (!ctx.cache.catalog.tables.has(qnKey(table))) throw badRequest('not-exists', '$.args', `no such table/view exists in postgres : ${t}`);
    const md = cloneMetadata(ctx.metadata);
    md.tables.set(qnKey(table), Object.keys(extras).length > 0 ? { ...newTableEntry(table), extras } : newTableEntry(table));
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
    // The table's own objects go with its entry, so they are not dependents to report.
    removeWithDependents(ctx, { kind: 'table', table }, new Set([qnKey(table)]), cascade, (md) => md.tables.delete(qnKey(table)));
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
