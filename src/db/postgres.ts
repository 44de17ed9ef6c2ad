import pg from 'pg';
import { ROW_COMMANDS, transactionSetup, type Database, type Queryable, type QueryOptions, type Row, type ScriptResult, type TransactionOptions } from './database.js';

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

/** An external PostgreSQL (13 or newer) through a connection pool. */
export class PostgresDatabase implements Database {
  readonly kind = 'external' as const;
  private readonly pool: pg.Pool;
  private readonly q: Queryable;

  private constructor(pool: pg.Pool) {
    this.pool = pool;
    this.q = queryable(pool);
  }

  /** Connects, proving the server answers within `timeoutMs`. */
  static async connect(url: string, timeoutMs = 10_000, max = 10): Promise<PostgresDatabase> {
    const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: timeoutMs, max });
    // An idle client's network error must not crash the process; the next checkout reports it.
    pool.on('error', () => {});
    try {
      await pool.query('SELECT 1');
    } catch (e) {
      await pool.end().catch(() => {});
      throw e;
    }
    return new PostgresDatabase(pool);
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

  async close(): Promise<void> {
    await this.pool.end();
  }
}
