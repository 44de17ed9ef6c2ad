import { ApiError } from '../errors.js';
import { probes } from '../probes.js';
import type { Database, Queryable } from '../db/database.js';
import { silentLogger, type Logger } from '../logger.js';
import type { Json } from '../metadata/json.js';
import { documentText, parseDocument } from '../metadata/document.js';
import type { EventTrigger } from '../metadata/types.js';
import type { CronTrigger } from '../metadata/kinds/cron-triggers.js';
import { VersionedMap } from '../metadata/versioned-map.js';
import { systemClock, type Clock } from './clock.js';
import { OpContext } from './context.js';
import { retireCronTriggers } from './workers/scheduled-store.js';
import { introspect } from './db-catalog.js';
import { ensureCatalog, readVersion, STARTUP_LOCK_KEY } from './catalog.js';
import { readStored, writeMetadata } from './metadata-store.js';
import type { SchemaCache } from './schema-cache.js';
import { resolve } from './resolve.js';
import { introspectRemotes } from './remote-schemas/index.js';
import { archiveOrphanEvents, installedTriggers, syncTriggers } from './triggers.js';
import { accessDenied, needsLock, OPERATIONS, parseEnvelope, requireArgs } from './operations/index.js';

export interface EngineResult {
  /** The response body, already serialised (exports are served from a cached string). */
  body: string;
  resourceVersion: number;
}

/**
 * The engine behind `/v1/query`: it owns the schema cache and runs each request in one transaction
 * (engine-api.md §3.3). Several engines may share one database: the metadata row lock serialises writes and
 * every request first checks that its cache is at the stored resource_version.
 */
export class Engine {
  private cache: SchemaCache;
  private version: number;
  private exported: { version: number; body: string } | null = null;
  private triggers: { cache: SchemaCache; map: Map<string, EventTrigger> } | null = null;
  /** When the stored resource_version was last found equal to the cached one (for consistentEventTriggers). */
  private versionChecked: number | null = null;
  readonly db: Database;
  private readonly logger: Logger;
  /** The time scheduled events are judged by (create_scheduled_event's "in the past"). */
  readonly clock: Clock;

  private constructor(db: Database, cache: SchemaCache, version: number, logger: Logger, clock: Clock) {
    this.db = db;
    this.cache = cache;
    this.version = version;
    this.logger = logger;
    this.clock = clock;
  }

  /** Creates the catalog if missing and builds the schema cache, recording (not failing on) inconsistencies. */
  static async start(db: Database, logger: Logger = silentLogger, clock: Clock = systemClock): Promise<Engine> {
    const { cache, version } = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [STARTUP_LOCK_KEY]);
      await ensureCatalog(tx, (m) => logger.warn(m));
      const loaded = await Engine.load(tx);
      // Database triggers of every consistent event trigger are reinstalled at start-up (§3.1).
      await syncTriggers(tx, loaded.cache, loaded.cache, true);
      return loaded;
    });
    return new Engine(db, cache, version, logger, clock);
  }

  private static async load(tx: Queryable): Promise<{ cache: SchemaCache; version: number }> {
    const stored = await readStored(tx);
    const md = parseDocument(stored.doc, '$');
    // A remote that does not answer is recorded as inconsistent (issue 35 point 4), never a failed start.
    await introspectRemotes(md);
    return { cache: resolve(md, await introspect(tx)), version: stored.version };
  }

  get resourceVersion(): number {
    return this.version;
  }

  get schemaCache(): SchemaCache {
    return this.cache;
  }

  /**
   * Executes one request body for a caller of the given role. Throws ApiError for every user error;
   * anything else is an internal failure for the HTTP layer to answer with a 500.
   */
  async execute(body: unknown, role: string, sessionVariables: Record<string, string>): Promise<EngineResult> {
    const env = parseEnvelope(body, '$');
    if (role !== 'admin') throw accessDenied();
    const operation = OPERATIONS.get(env.type);
    if (!operation) throw new ApiError(500, 'unexpected', '$', 'internal error');
    const args = operation.parse(requireArgs(env, '$'), '$.args');
    const lock = needsLock(env.type, env.args);

    const outcome = await this.db.transaction(async (tx) => {
      // Writers lock the metadata row first (§3.3); everyone rebuilds the cache when another instance moved it.
      let version = await readVersion(tx, lock);
      if (version !== this.version) {
        const loaded = await Engine.load(tx);
        this.adopt(loaded.cache, loaded.version, 'reload');
        version = loaded.version;
      }
      if (env.resourceVersion !== undefined && env.resourceVersion !== version) {
        throw new ApiError(409, 'conflict', '$.resource_version', 'resource version mismatch', { requested: env.resourceVersion, current: version });
      }
      if (env.type === 'export_metadata') return { body: this.exportBody(), version, cache: null };
      const before = this.cache;
      const ctx = new OpContext(tx, before, this.logger, sessionVariables);
      ctx.startVersion = version;
      ctx.now = () => this.clock.now();
      const result = await operation.run(ctx, args);
      if (ctx.changed || ctx.refreshed) await syncTriggers(tx, before, ctx.cache, ctx.fullTriggerSync);
      if (lock) await archiveOrphanEvents(tx, ctx.cache);
      if (ctx.changed && !sameKeys(before.metadata.cron_triggers, ctx.cache.metadata.cron_triggers)) {
        await retireCronTriggers(tx, [...ctx.cache.metadata.cron_triggers.keys()]);
      }
      if (ctx.changed) version = await writeMetadata(tx, before.metadata, ctx.cache.metadata);
      return { body: JSON.stringify(result), version, cache: ctx.changed || ctx.refreshed ? ctx.cache : null };
    });
    // Swapped only after commit: a failed request leaves the cache exactly as it was.
    if (outcome.cache && outcome.version >= this.version) this.adopt(outcome.cache, outcome.version, 'change');
    return { body: outcome.body, resourceVersion: outcome.version };
  }

  private adopt(cache: SchemaCache, version: number, reason: 'change' | 'reload'): void {
    if (cache !== this.cache) probes.schemaCache?.(reason);
    if (cache.metadata !== this.cache.metadata) this.exported = null;
    this.cache = cache;
    this.version = version;
  }

  private exportBody(): string {
    if (this.exported?.version !== this.version) {
      this.exported = { version: this.version, body: documentText(this.cache.metadata) };
    }
    return this.exported.body;
  }

  /** The schema cache as this instance holds it, without asking the database (a request confirms it later, §7.1). */
  heldCache(): { cache: SchemaCache; version: number } {
    return { cache: this.cache, version: this.version };
  }

  /**
   * The schema cache at the stored resource_version (engine-api.md §3.3): one statement compares the versions and
   * the cache is rebuilt when another instance moved it. GraphQL requests call this when their plan was stale.
   */
  async freshCache(): Promise<{ cache: SchemaCache; version: number }> {
    const stored = await readVersion(this.db);
    if (stored !== this.version) await this.refresh();
    return { cache: this.cache, version: this.version };
  }

  /** Rebuilds the cache from the stored metadata and the current database (used after out-of-band changes). */
  async refresh(): Promise<void> {
    const loaded = await this.db.transaction((tx) => Engine.load(tx));
    this.adopt(loaded.cache, loaded.version, 'reload');
  }

  /**
   * The consistent event triggers as of the stored metadata: the cache is rebuilt first when another instance
   * (or a request of this one) moved the resource version. Events of the others wait (§5.3.2).
   */
  async consistentEventTriggers(maxAgeMs = 0): Promise<Map<string, EventTrigger>> {
    const cache = await this.currentCache(maxAgeMs);
    const held = this.triggers;
    if (held?.cache === cache) return held.map;
    // Brought forward by the tables replaced since the cache it was made for: a change costs no walk of every table.
    const changed = held ? VersionedMap.changedKeys(held.cache.tables, cache.tables) : null;
    const map = held && changed ? new Map(held.map) : new Map<string, EventTrigger>();
    if (held && changed) for (const name of installedTriggers(held.cache, changed).keys()) map.delete(name);
    for (const [name, it] of installedTriggers(cache, changed ?? undefined)) map.set(name, it.trigger);
    this.triggers = { cache, map };
    return map;
  }

  /** The cron triggers as of the stored metadata (at most maxAgeMs old), for the scheduled-event processor. */
  async cronTriggers(maxAgeMs = 0): Promise<Map<string, CronTrigger>> {
    return (await this.currentCache(maxAgeMs)).metadata.cron_triggers;
  }

  private async currentCache(maxAgeMs: number): Promise<SchemaCache> {
    // Another instance's change is seen within maxAgeMs; this instance's own changes are adopted at their commit.
    const checked = Date.now();
    const version = this.versionChecked !== null && checked - this.versionChecked < maxAgeMs ? this.version : await readVersion(this.db);
    if (version === this.version) this.versionChecked = checked;
    if (version !== this.version) {
      const loaded = await this.db.transaction((tx) => Engine.load(tx));
      // A request of this instance may have committed and swapped in a newer cache meanwhile: keep the newest.
      if (loaded.version >= this.version) this.adopt(loaded.cache, loaded.version, 'reload');
    }
    return this.cache;
  }

  /** The engine does not own the database: whoever opened it closes it. */
  async stop(): Promise<void> {}
}

const sameKeys = (a: Map<string, unknown>, b: Map<string, unknown>): boolean => a.size === b.size && [...a.keys()].every((k) => b.has(k));

export type { Json };
