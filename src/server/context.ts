import { badRequest, type ApiError } from '../errors.js';
import type { Queryable } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { Json } from '../metadata/json.js';
import { qnKey, qnQuoted } from '../metadata/names.js';
import { documentJson } from '../metadata/document.js';
import type { Metadata, QualifiedName } from '../metadata/types.js';
import { introspect, refreshNames, type DbCatalog } from './db-catalog.js';
import { recordJson, type InconsistentObject } from './inconsistency.js';
import { unsupportedFunction } from './kinds/functions.js';
import type { SchemaCache } from './schema-cache.js';
import { resolve } from './resolve.js';
import { introspectRemotes } from './remote-schemas/index.js';

/** The object an operation creates or redefines: rule 1 of engine-api.md §3.4 is about it. */
export interface CreatedObject {
  id: string;
  /** The owning table, when table-scoped: creating under an inconsistent table fails. */
  table?: QualifiedName;
  /** Context prefix of its reasons, e.g. `in table "t": in relationship "r": `. */
  prefix: string;
  /** Its record, for the case where its table is inconsistent and it was never resolved. */
  record: () => InconsistentObject;
}

/**
 * Issue 27: a metadata change refused for the objects it leaves inconsistent is deterministic, never `unexpected`; the
 * message names the first objects and their reasons (each reason starts with its object), `internal` has all records.
 */
function inconsistentMetadata(head: string, objects: InconsistentObject[]): ApiError {
  const shown = objects.slice(0, 3).map((o) => o.reason).join('; ');
  const more = objects.length > 3 ? ` (and ${objects.length - 3} more)` : '';
  return badRequest('constraint-violation', '$.args', `${head}: ${shown}${more}`, objects.map(recordJson));
}

export type Strictness = 'incremental' | 'strict' | 'lenient';

/**
 * What an operation sees while it runs inside the request's transaction: the schema cache as the previous
 * operations left it, the transaction, and the caller. Operations change metadata only through `apply`.
 */
export class OpContext {
  cache: SchemaCache;
  /** Set by `apply`: the request must store the metadata and bump resource_version. */
  changed = false;
  /** Set when the cache was rebuilt without a metadata change (reload): it must still be swapped in. */
  refreshed = false;
  /** Set by operations after which every database trigger is dropped and reinstalled (replace, clear, reload). */
  fullTriggerSync = false;
  /** resource_version at the start of the request (replace_metadata's optimistic lock compares with it). */
  startVersion = 0;
  /** The engine's clock (issue 20: schedule times are judged by it). */
  now: () => Date = () => new Date();
  readonly tx: Queryable;
  readonly logger: Logger;
  readonly sessionVariables: Record<string, string>;

  constructor(tx: Queryable, cache: SchemaCache, logger: Logger, sessionVariables: Record<string, string>) {
    this.tx = tx;
    this.cache = cache;
    this.logger = logger;
    this.sessionVariables = sessionVariables;
  }

  /** The metadata document as export_metadata answers it. */
  exportDocument(): Json {
    return documentJson(this.cache.metadata);
  }

  get metadata(): Metadata {
    return this.cache.metadata;
  }

  /** Re-reads the named tables from the database (they may have changed behind the engine's back). */
  async refreshTables(tables: QualifiedName[], functions: QualifiedName[] = []): Promise<void> {
    const catalog = await refreshNames(this.tx, this.cache.catalog, tables, functions);
    // An unchanged snapshot keeps its identity, and the cache stays as it is.
    if (catalog !== this.cache.catalog) this.cache = resolve(this.cache.metadata, catalog);
  }

  /** `remotes`: introspect every remote schema again (reload_metadata), not only those never introspected. */
  async refreshAll(remotes = false): Promise<void> {
    await introspectRemotes(this.cache.metadata, remotes);
    this.cache = resolve(this.cache.metadata, await introspect(this.tx));
  }

  /**
   * Installs new metadata after one writing operation, enforcing the consistency rules of §3.4:
   * incremental (rules 1–3), strict (nothing may be inconsistent) or lenient (record only).
   */
  apply(md: Metadata, mode: Strictness = 'incremental', created?: CreatedObject, catalog?: DbCatalog): SchemaCache {
    const before = this.cache;
    const after = resolve(md, catalog ?? before.catalog, before);
    if (mode === 'strict' && after.inconsistent.length > 0) {
      throw inconsistentMetadata('cannot continue due to inconsistent metadata', after.inconsistent);
    }
    if (mode === 'incremental') {
      const fresh = after.inconsistent.filter((o) => !before.inconsistentIds.has(o.id));
      if (created) {
        if (created.table && !after.tables.has(qnKey(created.table))) {
          const rec = { ...created.record(), reason: `${created.prefix}table ${qnQuoted(created.table)} is inconsistent` };
          throw badRequest('constraint-violation', '$.args', rec.reason, [recordJson(rec)] as Json);
        }
        const own = after.inconsistent.find((o) => o.id === created.id);
        // What the engine cannot expose at all (an overloaded function…) is `not-supported`, as the incumbent answers.
        if (own) throw badRequest(unsupportedFunction(own.reason) ? 'not-supported' : 'constraint-violation', '$.args', own.reason, fresh.map(recordJson));
      }
      if (fresh.length > 0) {
        throw inconsistentMetadata('cannot continue due to new inconsistent metadata', fresh);
      }
    }
    this.cache = after;
    this.changed = true;
    return after;
  }
}
