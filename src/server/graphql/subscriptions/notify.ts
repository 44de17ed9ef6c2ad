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

/** The first key of the two-key advisory locks that mark a table watched ("liv"); the second is the table's oid. */
export const WATCH_LOCK_NS = 0x6c6976;

/**
 * The tables live queries read, watched for commits by anyone (issue 32.3): a statement-level trigger that NOTIFYs on
 * commit is installed on a table when its first live query starts and dropped when its last one ends; one database
 * session LISTENs. On PostgreSQL the notifications reach every engine on the database (32.6); on PGlite they are
 * delivered in-process.
 *
 * Several engines share a table's trigger: each holds a shared advisory lock (WATCH_LOCK_NS, oid) in its listening
 * session while it watches the table, and takes it before installing the trigger. The last one to leave drops the
 * trigger only when it gets the exclusive lock, that is when no other engine watches: a leaving engine never cuts
 * another off, and an engine that starts watching while one drops waits for the drop, then installs. An engine killed
 * with `kill -9` loses its session, and with it its locks; its triggers are swept by the next engine that listens.
 */
export class TableWatch {
  private session: Promise<Session> | null = null;
  private readonly counts = new Map<string, { table: TableRef; n: number }>();
  private readonly listening = new Set<string>();
  /** Tables whose shared lock this engine's session holds. */
  private readonly locked = new Set<string>();
  /** DDL runs one change at a time, in order: a drop never overtakes the install it follows. */
  private chain: Promise<void> = Promise.resolve();
  private functionReady = false;
  private closed = false;
  private actionLogOid: Promise<string | null> | null = null;
  /** Triggers dropped by the sweep of triggers no engine watches (tests). */
  swept = 0;

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

  /** Counts one reader less; the last drops the trigger unless another engine watches (the channel stays listened: it stays quiet). */
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
      for (const t of removed) if (!this.counts.has(t.oid)) await this.leave(t);
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

  /** Drops the triggers no other engine watches and closes the session. */
  async close(): Promise<void> {
    const tables = [...this.counts.values()].map((c) => c.table);
    this.counts.clear();
    await this.enqueue(async () => {
      for (const t of tables) await this.leave(t);
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

  /**
   * The listening session, opened at the first watch. Its first act is the sweep; when its connection is lost (its
   * locks and LISTENs with it), the next change opens another, and every watched table is installed again on it.
   */
  private listener(): Promise<Session> {
    this.session ??= (async () => {
      const s = await this.db.openSession();
      s.onLost(() => {
        this.session = null;
        this.listening.clear();
        this.locked.clear();
        void this.enqueue(async () => {
          for (const { table } of [...this.counts.values()]) await this.install(table);
          // Commits while no session listened went unheard.
          for (const oid of this.counts.keys()) this.onChange(oid);
        });
      });
      await this.sweep(s);
      return s;
    })();
    return this.session;
  }

  private async install(t: TableRef): Promise<void> {
    const s = await this.listener();
    if (!this.listening.has(t.oid)) {
      await s.listen(channelOf(t.oid), () => this.onChange(t.oid));
      this.listening.add(t.oid);
    }
    if (!TRIGGERED_KINDS.has(t.kind)) return;
    if (!this.functionReady) {
      await this.retry(() => this.db.query(FUNCTION_DDL));
      this.functionReady = true;
    }
    if (!this.locked.has(t.oid)) {
      // Waits while another engine drops the trigger (it holds the exclusive lock), then installs it again.
      await s.query('SELECT pg_advisory_lock_shared($1::int, $2::oid::int)', [WATCH_LOCK_NS, t.oid]);
      this.locked.add(t.oid);
    }
    await this.ddl(createSql, t);
  }

  /** This engine stops watching `t`: the trigger goes when no other engine watches it. */
  private async leave(t: TableRef): Promise<void> {
    if (!TRIGGERED_KINDS.has(t.kind) || !this.session) return;
    const s = await this.session;
    if (this.locked.delete(t.oid)) await s.query('SELECT pg_advisory_unlock_shared($1::int, $2::oid::int)', [WATCH_LOCK_NS, t.oid]);
    await this.dropUnwatched(s, t);
  }

  /** Drops the trigger of `t` when no engine holds its shared lock. */
  private async dropUnwatched(s: Session, t: Pick<TableRef, 'oid' | 'schema' | 'name'>): Promise<boolean> {
    const [row] = await s.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::oid::int) AS ok', [WATCH_LOCK_NS, t.oid]);
    if (!row?.ok) return false;
    try {
      await this.ddl(dropSql, t);
    } finally {
      await s.query('SELECT pg_advisory_unlock($1::int, $2::oid::int)', [WATCH_LOCK_NS, t.oid]);
    }
    return true;
  }

  /**
   * Drops the triggers left by engines gone without cleaning up (`kill -9`, a lost connection): those of tables no
   * engine watches now. Tables this engine is about to watch are left to install.
   */
  private async sweep(s: Session): Promise<void> {
    const rows = await s.query<{ oid: string; schema: string; name: string }>(
      `SELECT c.oid::text AS oid, n.nspname AS schema, c.relname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE t.tgname = $1 AND NOT t.tgisinternal`, [LIVE_TRIGGER]);
    for (const r of rows) {
      if (this.counts.has(r.oid)) continue;
      if (await this.dropUnwatched(s, r)) this.swept++;
    }
  }

  private async ddl(make: string, t: Pick<TableRef, 'schema' | 'name'>): Promise<void> {
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
