import pg from 'pg';
import { BatchError, ROW_COMMANDS, transactionSetup, type BatchOptions, type BatchStatement, type Database, type Queryable, type QueryOptions, type Row, type ScriptResult, type Session, type TransactionOptions } from './database.js';

const textTypes = { getTypeParser: () => (v: string) => v };

function queryable(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T extends Row>(sql: string, params: unknown[] = [], opts: QueryOptions = {}): Promise<T[]> {
      const r = opts.name ? await client.query<T>({ name: opts.name, text: sql, values: params }) : await client.query<T>(sql, params);
      return r.rows;
    },
    async runScript(sql: string): Promise<ScriptResult> {
      const r = (await client.query({ text: sql, rowMode: 'array', types: textTypes })) as unknown as pg.QueryArrayResult | pg.QueryArrayResult[];
      const last = Array.isArray(r) ? r[r.length - 1] : r;
      const fields = last?.fields?.map((f) => f.name) ?? [];
      const hasRows = fields.length > 0 || ROW_COMMANDS.has(last?.command ?? '');
      return { hasRows, fields, rows: (last?.rows ?? []) as (string | null)[][] };
    },
  };
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
  private readonly q: Queryable;

  private readonly url: string;

  private constructor(pool: pg.Pool, url: string) {
    this.pool = pool;
    this.url = url;
    this.q = queryable(pool);
  }

  /** Connects, proving the server answers within `timeoutMs`. */
  static async connect(url: string, timeoutMs = 10_000, max = 10): Promise<PostgresDatabase> {
    // Pipelining (pg ≥ 8.20) lets `batch` send a request's statements without waiting for each answer; code that
    // awaits every query behaves as without it.
    const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: timeoutMs, max, pipeline: true } as pg.PoolConfig);
    // An idle client's network error must not crash the process; the next checkout reports it.
    pool.on('error', () => {});
    try {
      await pool.query('SELECT 1');
    } catch (e) {
      await pool.end().catch(() => {});
      throw e;
    }
    return new PostgresDatabase(pool, url);
  }

  query<T extends Row = Row>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]> {
    return this.q.query<T>(sql, params, opts);
  }

  runScript(sql: string): Promise<ScriptResult> {
    return this.q.runScript(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      // One round trip (simple protocol) begins the transaction and sets its options.
      await client.query(['BEGIN', ...transactionSetup(opts)].join('; '));
      const out = await fn(queryable(client));
      await client.query('COMMIT');
      return out;
    } catch (e) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw e;
    } finally {
      client.release(broken);
    }
  }

  async batch(statements: BatchStatement[], opts: BatchOptions): Promise<Row[][]> {
    const client = await this.pool.connect();
    let broken = false;
    // A read-only snapshot commits in the same round trip: a stale plan found afterwards has changed nothing.
    const commitWith = opts.readOnlySnapshot === true || opts.commitWith === true;
    try {
      const socket = socketOf(client);
      socket?.cork();
      let begin: Promise<pg.QueryResult<Row> | pg.QueryResult<Row>[]>;
      let sent: Promise<pg.QueryResult<Row>>[];
      let commit: Promise<unknown> | null;
      try {
        // Pipelined: each query is written as it is submitted, without waiting for the previous answer.
        begin = client.query(['BEGIN', ...transactionSetup(opts)].join('; ')) as unknown as typeof begin;
        sent = statements.map((st) => (st.name ? client.query<Row>({ name: st.name, text: st.sql, values: st.params }) : client.query<Row>(st.sql, st.params)));
        commit = commitWith ? client.query('COMMIT') : null;
      } finally {
        socket?.uncork();
      }
      // Every answer is awaited: a failure aborts the transaction and fails the statements after it.
      const [b, ...done] = await Promise.allSettled([begin, ...sent, ...(commit ? [commit] : [])]);
      const ended = commitWith;
      try {
        if (b?.status !== 'fulfilled') throw b?.reason;
        const first = Array.isArray(b.value) ? b.value[b.value.length - 1]?.rows ?? [] : b.value.rows;
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
        return results;
      } catch (e) {
        if (!ended) {
          try {
            await client.query('ROLLBACK');
          } catch {
            broken = true;
          }
        }
        throw e;
      }
    } finally {
      client.release(broken);
    }
  }

  /** The connection URL, for tools run beside the pool (pg_dump, src/db/dump.ts). */
  get connectionUrl(): string {
    return this.url;
  }

  /** A dedicated connection outside the pool: LISTEN and session advisory locks live as long as it does. */
  async openSession(): Promise<Session> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 10_000 });
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
    const q = queryable(client as unknown as pg.PoolClient);
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

  async close(): Promise<void> {
    await this.pool.end();
  }
}
