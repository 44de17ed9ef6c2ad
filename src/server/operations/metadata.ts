import { ApiError } from '../../errors.js';
import { at, bool, int, obj, opt, req } from '../../metadata/reader.js';
import { isObject, type Json, type JsonObject } from '../../metadata/json.js';
import { checkDocumentDuplicates, cloneMetadata, emptyMetadata, parseDocumentEntries, toMetadata, type ParsedDocument } from '../../metadata/document.js';
import { qnKey } from '../../metadata/names.js';
import type { Metadata, PermKind, QualifiedName, TableEntry } from '../../metadata/types.js';
import { emptyCustomTypes } from '../../metadata/kinds/actions.js';
import { recordJson, type InconsistentObject } from '../inconsistency.js';
import { resolve } from '../resolve.js';
import { syncTriggers } from '../triggers.js';
import type { OpContext } from '../context.js';
import { introspectRemotes } from '../remote-schemas/index.js';
import { op, SUCCESS, type Operation } from './operation.js';

/** Operations whose args are `{}`: any object is fine (unknown keys are ignored), anything else is not. */
const noArgs: Operation<null>['parse'] = (args, path) => {
  obj(args, path);
  return null;
};

interface ReplaceArgs {
  document: ParsedDocument;
  resourceVersion?: number;
  allowInconsistent: boolean;
  dryRun: boolean;
}

const inconsistencyBody = (list: InconsistentObject[]): Json => ({
  is_consistent: list.length === 0,
  inconsistent_objects: list.map(recordJson),
});

const replaceMetadata: Operation<ReplaceArgs> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    if (!('metadata' in o)) return { document: parseDocumentEntries(o, path), allowInconsistent: false, dryRun: false };
    const mdPath = at(path, 'metadata');
    const rv = opt(o, 'resource_version');
    const allow = opt(o, 'allow_inconsistent_metadata');
    const dry = opt(o, 'dry_run');
    const document = parseDocumentEntries(req(o, 'metadata', path), mdPath);
    return {
      document,
      ...(rv === undefined ? {} : { resourceVersion: int(rv, at(path, 'resource_version'), 0) }),
      allowInconsistent: allow === undefined ? false : bool(allow, at(path, 'allow_inconsistent_metadata')),
      dryRun: dry === undefined ? false : bool(dry, at(path, 'dry_run')),
    };
  },
  async run(ctx, args) {
    if (args.resourceVersion !== undefined && args.resourceVersion !== ctx.startVersion) {
      throw new ApiError(409, 'conflict', '$.args.resource_version', 'resource version mismatch', {
        requested: args.resourceVersion, current: ctx.startVersion,
      });
    }
    checkDocumentDuplicates(args.document);
    return args.dryRun ? dryRun(ctx, args) : replace(ctx, args);
  },
};

async function replace(ctx: OpContext, args: ReplaceArgs): Promise<Json> {
  await ctx.refreshAll();
  ctx.fullTriggerSync = true;
  const md = toMetadata(args.document);
  await introspectRemotes(md);
  const after = ctx.apply(md, args.allowInconsistent ? 'lenient' : 'strict');
  return args.allowInconsistent ? inconsistencyBody(after.inconsistent) : SUCCESS;
}

/**
 * The whole replace (rebuild and database triggers) inside a savepoint that is always rolled back, and the context
 * restored: the request then stores nothing, so resource_version stays. Inside a bulk the later steps see the
 * metadata as it was, as if this step had not run.
 */
async function dryRun(ctx: OpContext, args: ReplaceArgs): Promise<Json> {
  const saved = { cache: ctx.cache, changed: ctx.changed, refreshed: ctx.refreshed, full: ctx.fullTriggerSync };
  await ctx.tx.query('SAVEPOINT engine_dry_run');
  try {
    const body = await replace(ctx, args);
    await syncTriggers(ctx.tx, saved.cache, ctx.cache, true);
    return isObject(body) ? { ...body, dry_run: true } : body;
  } finally {
    await ctx.tx.query('ROLLBACK TO SAVEPOINT engine_dry_run');
    ctx.cache = saved.cache;
    ctx.changed = saved.changed;
    ctx.refreshed = saved.refreshed;
    ctx.fullTriggerSync = saved.full;
  }
}

const clearMetadata: Operation<null> = {
  write: true,
  parse: noArgs,
  async run(ctx) {
    ctx.fullTriggerSync = true;
    ctx.apply(emptyMetadata(), 'strict');
    return SUCCESS;
  },
};

const INHERITED_CONFLICT = 'inherited role permission inconsistency';

/** Removes one inconsistent object (with its children) from the metadata. */
function removeObject(md: Metadata, o: InconsistentObject): void {
  const def = isObject(o.definition) ? o.definition : {};
  const table = (o.type === 'table' ? def : def['table']) as unknown as QualifiedName | undefined;
  const entry = table ? md.tables.get(qnKey(table)) : undefined;
  const without = (field: keyof TableEntry, keep: (x: { name?: string; role?: string }) => boolean) => {
    if (entry && table) md.tables.set(qnKey(table), { ...entry, [field]: (entry[field] as { name?: string; role?: string }[]).filter(keep) });
  };
  switch (o.type) {
    case 'table':
      if (table) md.tables.delete(qnKey(table));
      return;
    case 'object_relation':
      return without('object_relationships', (r) => r.name !== def['name']);
    case 'array_relation':
      return without('array_relationships', (r) => r.name !== def['name']);
    case 'computed_field':
      return without('computed_fields', (r) => r.name !== def['name']);
    case 'event_trigger':
      return without('event_triggers', (r) => r.name !== def['name']);
    case 'insert_permission':
    case 'select_permission':
    case 'update_permission':
    case 'delete_permission':
      return without(`${o.type.split('_')[0] as PermKind}_permissions`, (p) => p.role !== def['role']);
    case 'function':
      md.functions.delete(qnKey(def['function'] as unknown as QualifiedName));
      return;
    case 'action':
      md.actions.delete(def['name'] as string);
      return;
    case 'remote_schema':
      md.remote_schemas.delete(def['name'] as string);
      return;
    case 'remote_schema_remote_relationship': {
      const r = md.remote_schemas.get(def['remote_schema'] as string);
      if (!r) return;
      const groups = r.remote_relationships
        .map((g) => (g['type_name'] !== def['type_name'] ? g : { ...g, relationships: ((g['relationships'] ?? []) as JsonObject[]).filter((x) => x['name'] !== def['name']) }))
        .filter((g) => ((g['relationships'] ?? []) as JsonObject[]).length > 0);
      md.remote_schemas.set(r.name, { ...r, remote_relationships: groups });
      return;
    }
    case 'remote_relationship': {
      if (!entry || !table) return;
      const rels = (entry.extras?.remote_relationships ?? []).filter((r) => r['name'] !== def['name']);
      const extras: NonNullable<TableEntry['extras']> = { ...entry.extras, remote_relationships: rels };
      if (rels.length === 0) delete extras.remote_relationships;
      md.tables.set(qnKey(table), { ...entry, extras });
      return;
    }
    case 'action_permission': {
      const a = md.actions.get(def['action'] as string);
      if (a) md.actions.set(a.name, { ...a, permissions: a.permissions.filter((p) => p.role !== def['role']) });
      return;
    }
    case 'custom_types':
      md.custom_types = emptyCustomTypes();
      return;
    case 'rest_endpoint':
      md.rest_endpoints.delete(def['name'] as string);
      return;
  }
}

const dropInconsistentMetadata: Operation<null> = {
  write: true,
  parse: noArgs,
  async run(ctx) {
    let md = ctx.metadata;
    let cache = ctx.cache;
    // Removing an object can make others inconsistent (a relationship to a removed table): repeat until none.
    // An inherited role's conflict has nothing to drop (as the incumbent's): it takes a permission of the role's own.
    const droppable = () => cache.inconsistent.some((o) => o.type !== INHERITED_CONFLICT);
    for (let round = 0; droppable() && round < 1000; round++) {
      md = cloneMetadata(md);
      for (const o of cache.inconsistent) removeObject(md, o);
      cache = resolve(md, cache.catalog);
    }
    ctx.apply(md, 'strict');
    return SUCCESS;
  },
};

const reloadMetadata: Operation<null> = {
  write: false,
  locks: true,
  parse: noArgs,
  async run(ctx) {
    await ctx.refreshAll(true);
    ctx.refreshed = true;
    ctx.fullTriggerSync = true;
    return { message: 'success', is_consistent: ctx.cache.inconsistent.length === 0 };
  },
};

const getInconsistentMetadata: Operation<null> = {
  write: false,
  parse: noArgs,
  async run(ctx) {
    return inconsistencyBody(ctx.cache.inconsistent);
  },
};

/**
 * A top-level export_metadata is answered by the engine from its serialised cache (see Engine.execute); this run
 * answers it inside a bulk, where earlier steps may have changed the metadata.
 */
const exportMetadata: Operation<null> = {
  write: false,
  parse: noArgs,
  async run(ctx) {
    return ctx.exportDocument();
  },
};

export const metadataOperations: Record<string, Operation<unknown>> = {
  replace_metadata: op(replaceMetadata),
  clear_metadata: op(clearMetadata),
  drop_inconsistent_metadata: op(dropInconsistentMetadata),
  reload_metadata: op(reloadMetadata),
  get_inconsistent_metadata: op(getInconsistentMetadata),
  export_metadata: op(exportMetadata),
};
