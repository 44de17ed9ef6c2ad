import type { Database, Session } from '../../../db/database.js';
import type { TableRef } from './document.js';

/** The trigger on each table with live subscribers; its function NOTIFYs `engine_live_<oid>` at commit. */
export const LIVE_TRIGGER = 'engine_live_query';
export const channelOf = (oid: string): string => `engine_live_${oid}`;

const FUNCTION_DDL = `CREATE OR REPLACE FUNCTION engine_catalog.live_query_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- One notification per table and transaction (PostgreSQL folds equal ones), delivered at commit, never on rollback.
  PERFORM pg_notify('engine_live_' || TG_RELID::text, '');
  RETURN NULL;
END $$`;

/** Tables only: a view's or a function's reads are caught by the fallback timer. */
const TRIGGERED_KINDS = new Set(['r', 'p']);

/** DDL of several engines at once on one catalog row can fail with "tuple concurrently updated": it is tried again. */
const DDL_ATTEMPTS = 3;

/**
 * The tables live queries read, watched for commits by anyone (issue 32.3): a statement-level trigger that NOTIFYs on
 * commit is installed on a table when its first live query starts and dropped when its last one ends; one database
 * session LISTENs. On PostgreSQL the notifications reach every engine on the database (32.6); on PGlite they are
 * delivered in-process.
 */
export class TableWatch {
  private session: Promise<Session> | null = null;
  private readonly counts = new Map<string, { table: TableRef; n: number }>();
  private readonly listening = new Set<string>();
  /** DDL runs one change at a time, in order: a drop never overtakes the install it follows. */
  private chain: Promise<void> = Promise.resolve();
  private functionReady = false;
  private closed = false;
  private actionLogOid: Promise<string | null> | null = null;

  constructor(private readonly db: Database, private readonly onChange: (oid: string) => void, private readonly onError: (e: unknown) => void) {}

  /** Counts one more reader of each table; the first installs the trigger and listens. */
  watch(tables: Iterable<TableRef>): Promise<void> {
    const added: TableRef[] = [];
    for (const t of tables) {
      const c = this.counts.get(t.oid);
      if (c) c.n++;
      else {
        this.counts.set(t.oid, { table: t, n: 1 });
        added.push(t);
      }
    }
    return this.enqueue(async () => {
      for (const t of added) if (this.counts.has(t.oid)) await this.install(t);
    });
  }

  /** Counts one reader less; the last drops the trigger (the channel stays listened: it stays quiet). */
  unwatch(tables: Iterable<TableRef>): Promise<void> {
    const removed: TableRef[] = [];
    for (const t of tables) {
      const c = this.counts.get(t.oid);
      if (!c) continue;
      if (--c.n === 0) {
        this.counts.delete(t.oid);
        removed.push(t);
      }
    }
    return this.enqueue(async () => {
      for (const t of removed) if (!this.counts.has(t.oid) && TRIGGERED_KINDS.has(t.kind)) await this.ddl(dropSql, t);
    });
  }

  /**
   * Tables named without an oid (the action log an async action's result is read from, issue 32.5) get theirs: a
   * worker's recording of the result is then a commit that wakes the cohort.
   */
  async resolve(tables: TableRef[]): Promise<TableRef[]> {
    if (tables.every((t) => t.oid !== '')) return tables;
    this.actionLogOid ??= this.db.query<{ oid: string | null }>("SELECT to_regclass('engine_catalog.action_log')::oid::text AS oid")
      .then(([r]) => r?.oid ?? null, (e: unknown) => { this.actionLogOid = null; throw e; });
    const oid = await this.actionLogOid;
    return tables.flatMap((t) => (t.oid !== '' ? [t] : oid ? [{ ...t, oid }] : []));
  }

  /** The tables watched now (tests, metrics). */
  watched(): string[] {
    return [...this.counts.keys()];
  }

  /**
   * Installs again the triggers of every watched table (the fallback timer calls it): another engine on the same
   * database may have dropped one when its own last reader left.
   */
  refresh(): Promise<void> {
    return this.enqueue(async () => {
      for (const { table } of this.counts.values()) if (TRIGGERED_KINDS.has(table.kind)) await this.ddl(createSql, table);
    });
  }

  /** Drops every trigger this engine installed and closes the session. */
  async close(): Promise<void> {
    const tables = [...this.counts.values()].map((c) => c.table);
    this.counts.clear();
    await this.enqueue(async () => {
      for (const t of tables) if (TRIGGERED_KINDS.has(t.kind)) await this.ddl(dropSql, t);
    });
    this.closed = true;
    const s = this.session;
    this.session = null;
    if (s) await (await s).close().catch(() => {});
  }

  private enqueue(fn: () => Promise<void>): Promise<void> {
    const next = this.chain.then(() => (this.closed ? undefined : fn())).catch((e: unknown) => this.onError(e));
    this.chain = next;
    return next;
  }

  private async install(t: TableRef): Promise<void> {
    if (!this.listening.has(t.oid)) {
      this.session ??= this.db.openSession();
      const s = await this.session;
      await s.listen(channelOf(t.oid), () => this.onChange(t.oid));
      this.listening.add(t.oid);
    }
    if (!TRIGGERED_KINDS.has(t.kind)) return;
    if (!this.functionReady) {
      await this.retry(() => this.db.query(FUNCTION_DDL));
      this.functionReady = true;
    }
    await this.ddl(createSql, t);
  }

  private async ddl(make: string, t: TableRef): Promise<void> {
    // Identifiers are quoted by PostgreSQL's format(%I), never by string building here.
    const [row] = await this.db.query<{ sql: string }>(make, [LIVE_TRIGGER, t.schema, t.name]);
    if (row) await this.retry(() => this.db.runScript(row.sql));
  }

  private async retry<T>(fn: () => Promise<T>): Promise<T> {
    for (let i = 1; ; i++) {
      try {
        return await fn();
      } catch (e) {
        if (i >= DDL_ATTEMPTS) throw e;
      }
    }
  }
}

/** CREATE OR REPLACE TRIGGER needs PostgreSQL 14; the engine's minimum is above it. */
const createSql = `SELECT format('CREATE OR REPLACE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I.%I '
  'FOR EACH STATEMENT EXECUTE FUNCTION engine_catalog.live_query_notify()', $1::text, $2::text, $3::text) AS sql
  WHERE to_regclass(format('%I.%I', $2::text, $3::text)) IS NOT NULL`;
const dropSql = `SELECT format('DROP TRIGGER IF EXISTS %I ON %I.%I', $1::text, $2::text, $3::text) AS sql
  WHERE to_regclass(format('%I.%I', $2::text, $3::text)) IS NOT NULL`;
