import pg from 'pg';
import { connectionString, DEFAULT_POOL, noSslOnServer, poolBusy, POOL_TIMEOUT, poolConfig, sslOptional, withoutSsl, type PoolSettings } from './postgres-config.js';
import { BatchError, beginTransaction, StatementCancelled, ROW_COMMANDS, transactionSetup, type BatchOptions, type BatchStatement, type Database, type PoolStats, type Queryable, type QueryOptions, type Row, type ScriptResult, type Session, type TransactionOptions } from './database.js';
import type { CancelSignal } from './cancel.js';

import { probes } from '../probes.js';

const textTypes = { getTypeParser: () => (v: string) => v };

export type { PoolSettings } from './postgres-config.js';

/** `prepared` false: statements are unnamed (a pooler in transaction mode hands each transaction another server session). */
function queryable(client: pg.PoolClient | pg.Client, prepared = true): Queryable {
  return {
    async query<T extends Row>(sql: string, params: unknown[] = [], opts: QueryOptions = {}): Promise<T[]> {
      probes.statements?.(1);
      const r = opts.name && prepared ? await client.query<T>({ name: opts.name, text: sql, values: params }) : await client.query<T>(sql, params);
      return r.rows;
    },
    async runScript(sql: string): Promise<ScriptResult> {
      // A script may set the session's time zone itself.
      zones.set(client, 'unknown');
      const r = (await client.query({ text: sql, rowMode: 'array', types: textTypes })) as unknown as pg.QueryArrayResult | pg.QueryArrayResult[];
      const last = Array.isArray(r) ? r[r.length - 1] : r;
      const fields = last?.fields?.map((f) => f.name) ?? [];
      const hasRows = fields.length > 0 || ROW_COMMANDS.has(last?.command ?? '');
      return { hasRows, fields, rows: (last?.rows ?? []) as (string | null)[][] };
    },
  };
}

/**
 * The time zone of a pooled connection's session, as far as this module knows it; 'pending' while work holds the
 * connection (a script run inside makes it 'unknown').
 */
type Zone = 'utc' | 'default' | 'unknown' | 'pending';
const zones = new WeakMap<object, Zone>();

/** Clients that failed while checked out: released as broken. */
const lost = new WeakSet<object>();

/**
 * The statement that gives a pooled session the zone a piece of work asks for (GraphQL: UTC; everything else: the
 * database's own), or null when it has it already. A connection keeps its zone, so the change is paid when the kind of
 * work changes, not per transaction: `SET LOCAL TIME ZONE` in every GraphQL transaction cost PostgreSQL ≈ 60 µs, a fifth
 * of an update's whole work. A session whose zone is in doubt (failed work, a script) is 'unknown' and is set again.
 */
function zoneFor(client: object, utc: boolean, timeoutMs: number | null, sessionState: boolean): string | null {
  // Behind a pooler in transaction mode a session setting would stay with a server session other work gets next.
  if (!sessionState) return utc ? (timeoutMs === null ? "SET LOCAL TIME ZONE 'UTC'" : `SET LOCAL TIME ZONE 'UTC'; SET LOCAL statement_timeout = ${timeoutMs}`) : null;
  const z = zones.get(client) ?? 'default';
  // The time limit of GraphQL work rides with its zone: a statement_timeout for the session while it does such work.
  if (utc) return z === 'utc' ? null : timeoutMs === null ? "SET TIME ZONE 'UTC'" : `SET TIME ZONE 'UTC'; SET statement_timeout = ${timeoutMs}`;
  return z === 'default' ? null : timeoutMs === null ? 'RESET TIME ZONE' : 'RESET TIME ZONE; RESET statement_timeout';
}

/** Rejects with StatementCancelled once `signal` aborts (never when it is absent); `off` stops listening. */
function whenAborted(signal: CancelSignal | undefined): { aborted: Promise<never>; off(): void } {
  if (!signal) return { aborted: new Promise<never>(() => {}), off: () => {} };
  let off = (): void => {};
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(new StatementCancelled(signal.reason));
    const on = (): void => reject(new StatementCancelled(signal.reason));
    signal.addEventListener('abort', on, { once: true });
    off = () => signal.removeEventListener('abort', on);
  });
  aborted.catch(() => {});
  return { aborted, off: () => off() };
}

/**
 * The client's socket, corked while a batch is submitted: pg writes each protocol message on its own (a prepared
 * statement is Bind, Describe, Execute, Sync), and every write is a system call that may wake the server for a part of
 * the request; corked, the whole batch leaves in one write. Absent (null) if pg's internals ever change.
 */
function socketOf(client: pg.PoolClient): { cork(): void; uncork(): void } | null {
  const stream = (client as unknown as { connection?: { stream?: { cork?: unknown; uncork?: unknown } } }).connection?.stream;
  return stream && typeof stream.cork === 'function' && typeof stream.uncork === 'function' ? stream as { cork(): void; uncork(): void } : null;
}

/** An external PostgreSQL (13 or newer) through a connection pool. */
export class PostgresDatabase implements Database {
  readonly kind = 'external' as const;
  private readonly pool: pg.Pool;

  /** The URL as given (pg_dump reads it itself) and as pg is given it (libpq's sslmode, a `prefer` that fell back). */
  private readonly url: string;
  private readonly clientUrl: string;
  /** The statement_timeout of GraphQL work (ms), or null for none. */
  private readonly statementTimeoutMs: number | null;
  /** How long a checkout waits for a connection (ms; 0: no limit). */
  private readonly acquireTimeoutMs: number;
  /** Named prepared statements and session settings (false behind a pooler in transaction mode). */
  private readonly prepared: boolean;
  /** Connections checked out now, by backend pid: what a stop cancels. */
  private readonly busy = new Map<pg.PoolClient, number>();

  private constructor(pool: pg.Pool, url: string, clientUrl: string, settings: PoolSettings) {
    this.pool = pool;
    this.url = url;
    this.clientUrl = clientUrl;
    this.statementTimeoutMs = settings.statementTimeoutMs ?? null;
    this.prepared = settings.preparedStatements !== false;
    this.acquireTimeoutMs = settings.acquireTimeoutMs ?? DEFAULT_POOL.acquireTimeoutMs;
  }

  /**
   * Connects, proving the server answers within the acquire timeout. `statementTimeoutMs`: the statement_timeout of
   * GraphQL work (batches and transactions with `utc`), the request's time limit.
   */
  static async connect(url: string, settings: PoolSettings = {}): Promise<PostgresDatabase> {
    const open = async (at: string): Promise<pg.Pool> => {
      const pool = new pg.Pool(poolConfig(at, settings));
      // An idle client's network error must not crash the process; the next checkout reports it.
      pool.on('error', () => {});
      // A checked-out client's error (the server ended it between two queries of the work: a database dropped WITH
      // (FORCE), a restart) would otherwise be unhandled and end the process; such a client is not reused. One listener
      // for the client's life, not one per checkout.
      pool.on('connect', (client) => client.on('error', () => lost.add(client)));
      try {
        await pool.query('SELECT 1');
        return pool;
      } catch (e) {
        await pool.end().catch(() => {});
        throw e;
      }
    };
    try {
      return new PostgresDatabase(await open(url), url, connectionString(url), settings);
    } catch (e) {
      // libpq's `prefer`: without encryption when the server offers none.
      if (!sslOptional(url) || !noSslOnServer(e)) throw e;
      const plain = withoutSsl(url);
      return new PostgresDatabase(await open(plain), url, connectionString(plain), settings);
    }
  }

  /**
   * A pooled connection for one piece of work in the zone it asks for (`zone`: the statement that sets it, or null).
   * The pool listens for errors of idle connections only: one that the server ends between two queries of the work (a
   * database dropped WITH (FORCE), a restart) would emit an unhandled 'error' and end the process. `done` records the
   * zone the work left (in doubt unless it succeeded without a script) and retires a connection that failed so.
   */
  private async checkout(utc: boolean, signal?: CancelSignal): Promise<{ client: pg.PoolClient; zone: string | null; done(ok: boolean, broken?: boolean): void }> {
    const connecting = this.pool.connect().catch((e: unknown) => {
      throw e instanceof Error && e.message === POOL_TIMEOUT ? poolBusy(this.acquireTimeoutMs) : e;
    });
    let client: pg.PoolClient;
    // With a connection idle the wait is a tick: the caller checks the signal right after (batch), so no race is set up.
    if (signal && this.pool.idleCount === 0) {
      // A request whose time runs out while every connection is busy stops waiting; the connection it would have had
      // goes back to the pool.
      const { aborted, off } = whenAborted(signal);
      try {
        client = await Promise.race([connecting, aborted]);
      } catch (e) {
        connecting.then((c) => c.release(), () => {});
        throw e;
      } finally {
        off();
      }
    } else client = await connecting;
    const zone = zoneFor(client, utc, this.statementTimeoutMs, this.prepared);
    const busy = this.busy;
    busy.set(client, (client as unknown as { processID: number }).processID);
    zones.set(client, 'pending');
    return {
      client,
      zone,
      done(ok, broken = false) {
        zones.set(client, ok && zones.get(client) === 'pending' ? (utc ? 'utc' : 'default') : 'unknown');
        busy.delete(client);
        client.release(broken || lost.has(client));
      },
    };
  }

  query<T extends Row = Row>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]> {
    return this.onClient((q) => q.query<T>(sql, params, opts));
  }

  runScript(sql: string): Promise<ScriptResult> {
    return this.onClient((q) => q.runScript(sql));
  }

  /** Work outside a transaction, on a connection in the database's own time zone. */
  private async onClient<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const { client, zone, done } = await this.checkout(false);
    try {
      if (zone) await client.query(zone);
      const out = await fn(queryable(client, this.prepared));
      done(true);
      return out;
    } catch (e) {
      // A server's error leaves the connection usable; anything else (a lost socket) retires it.
      done(false, !(e instanceof pg.DatabaseError));
      throw e;
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    const { client, zone, done } = await this.checkout(opts.utc === true);
    try {
      // One round trip (simple protocol) begins the transaction and sets its options.
      await client.query(beginTransaction(opts, zone));
      const out = await fn(queryable(client, this.prepared));
      await client.query('COMMIT');
      done(true);
      return out;
    } catch (e) {
      let broken = false;
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      done(false, broken);
      throw e;
    }
  }

  /**
   * Cancels the statement a connection runs, from a connection of its own (the pool may have none to spare). A cancel
   * may land after the statement ended: the caller retires the connection, so that it never hits later work.
   */
  private async cancelBackend(pid: number): Promise<void> {
    // Behind a pooler the pid is the pooler's, not a server's: the connection is retired instead, and statement_timeout
    // still ends the statement.
    if (!this.prepared) return;
    const c = new pg.Client({ connectionString: this.clientUrl, connectionTimeoutMillis: 10_000 });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.query('SELECT pg_cancel_backend($1)', [pid]);
    } catch {
      // The server is gone or refuses: statement_timeout still ends the statement.
    } finally {
      await c.end().catch(() => {});
    }
  }

  async cancelRunning(): Promise<void> {
    await Promise.all([...new Set(this.busy.values())].map((pid) => this.cancelBackend(pid)));
  }

  async batch(statements: BatchStatement[], opts: BatchOptions): Promise<Row[][]> {
    probes.statements?.(statements.length);
    const { client, zone, done: release } = await this.checkout(opts.utc === true, opts.signal);
    let ok = false;
    let broken = false;
    let cancelled: Promise<void> | null = null;
    const onAbort = (): void => {
      broken = true;
      cancelled = this.cancelBackend((client as unknown as { processID: number }).processID);
    };
    if (opts.signal?.aborted) {
      release(false);
      throw new StatementCancelled(opts.signal.reason);
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const setup = transactionSetup(opts, zone);
    const beginWith = beginTransaction(opts, zone);
    // A read-only snapshot commits in the same round trip: a stale plan found afterwards has changed nothing.
    const commitWith = opts.readOnlySnapshot === true || opts.commitWith === true;
    // One statement that needs no option is its own transaction: PostgreSQL commits it alone (or rolls it back), so
    // BEGIN and COMMIT would be two more commands for the server and nothing more for atomicity.
    const implicit = statements.length === 1 && opts.commitWith === true && setup.length === 0;
    try {
      const socket = socketOf(client);
      socket?.cork();
      let begin: Promise<pg.QueryResult<Row> | pg.QueryResult<Row>[]> | null;
      let sent: Promise<pg.QueryResult<Row>>[];
      let commit: Promise<unknown> | null;
      try {
        // Pipelined: each query is written as it is submitted, without waiting for the previous answer.
        begin = implicit ? null : client.query(beginWith) as unknown as Promise<pg.QueryResult<Row>>;
        sent = statements.map((st) => (st.name && this.prepared ? client.query<Row>({ name: st.name, text: st.sql, values: st.params }) : client.query<Row>(st.sql, st.params)));
        commit = commitWith && !implicit ? client.query('COMMIT') : null;
      } finally {
        socket?.uncork();
      }
      // Every answer is awaited: a failure aborts the transaction and fails the statements after it.
      const done = await Promise.allSettled([...(begin ? [begin] : []), ...sent, ...(commit ? [commit] : [])]);
      const b = begin ? done.shift() : undefined;
      const ended = commitWith;
      try {
        if (b !== undefined && b.status !== 'fulfilled') throw b.reason;
        const value = b?.status === 'fulfilled' ? b.value as pg.QueryResult<Row> | pg.QueryResult<Row>[] : null;
        const first = Array.isArray(value) ? value[value.length - 1]?.rows ?? [] : value?.rows ?? [];
        opts.begun?.(opts.first ? first : []);
        const results: Row[][] = [];
        for (let i = 0; i < statements.length; i++) {
          const r = done[i];
          // A pipelined COMMIT after a failed statement ends the aborted transaction with a rollback.
          if (r?.status !== 'fulfilled') throw new BatchError(i, r?.reason);
          results.push((r.value as pg.QueryResult<Row>).rows);
        }
        const c = commit ? done[statements.length] : undefined;
        // A deferred constraint fails at COMMIT: it is the last statement's failure.
        const last = Math.max(0, statements.length - 1);
        if (c && c.status !== 'fulfilled') throw new BatchError(last, c.reason);
        if (!ended) await client.query('COMMIT').catch((e: unknown) => {
          throw new BatchError(last, e);
        });
        ok = true;
        return results;
      } catch (e) {
        if (!ended) {
          try {
            await client.query('ROLLBACK');
          } catch {
            broken = true;
          }
        }
        if (opts.signal?.aborted) throw new StatementCancelled(opts.signal.reason);
        throw e;
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      if (cancelled) await cancelled;
      release(ok, broken);
    }
  }

  /** The connection URL, for tools run beside the pool (pg_dump, src/db/dump.ts). */
  get connectionUrl(): string {
    return this.url;
  }

  /** A dedicated connection outside the pool: LISTEN and session advisory locks live as long as it does. */
  async openSession(): Promise<Session> {
    const client = new pg.Client({ connectionString: this.clientUrl, connectionTimeoutMillis: 10_000 });
    const lost: ((err: Error) => void)[] = [];
    let closing = false;
    let reported = false;
    const report = (err: Error) => {
      if (closing || reported) return;
      reported = true;
      for (const cb of lost) cb(err);
    };
    client.on('error', report);
    client.on('end', () => report(new Error('the database connection ended')));
    await client.connect();
    const channels = new Map<string, () => void>();
    client.on('notification', (m) => channels.get(m.channel)?.());
    const q = queryable(client as unknown as pg.PoolClient, this.prepared);
    return {
      query: q.query,
      runScript: q.runScript,
      async listen(channel, onNotify) {
        channels.set(channel, onNotify);
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      },
      onLost: (cb) => void lost.push(cb),
      async close() {
        closing = true;
        await client.end().catch(() => {});
      },
    };
  }

  poolStats(): PoolStats {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
