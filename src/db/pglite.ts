import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import type { Database, Queryable, Row, ScriptResult } from './database.js';

/** Every built-in parser replaced by the identity: `run_sql` answers PostgreSQL's text output format. */
const TEXT_PARSERS: Record<number, (x: string) => string> = Object.fromEntries(
  Object.keys(types.parsers).map((oid) => [oid, (x: string) => x]),
);

type PgliteLike = Pick<PGlite, 'query' | 'exec'> | Transaction;

function queryable(q: PgliteLike): Queryable {
  return {
    async query<T extends Row>(sql: string, params: unknown[] = []): Promise<T[]> {
      const r = await q.query<T>(sql, params);
      return r.rows;
    },
    async runScript(sql: string): Promise<ScriptResult> {
      const results = await q.exec(sql, { rowMode: 'array', parsers: TEXT_PARSERS });
      const last = results[results.length - 1];
      const fields = last?.fields.map((f) => f.name) ?? [];
      return { hasRows: fields.length > 0, fields, rows: (last?.rows ?? []) as (string | null)[][] };
    },
  };
}

export class PgliteDatabase implements Database {
  readonly kind = 'embedded' as const;
  private readonly db: PGlite;
  private readonly q: Queryable;

  private constructor(db: PGlite) {
    this.db = db;
    this.q = queryable(db);
  }

  /** Opens (creating on first use) the embedded PostgreSQL stored in `dataDir`; in memory when undefined. */
  static async open(dataDir: string | undefined): Promise<PgliteDatabase> {
    const db = await PGlite.create(dataDir);
    return new PgliteDatabase(db);
  }

  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.q.query<T>(sql, params);
  }

  runScript(sql: string): Promise<ScriptResult> {
    return this.q.runScript(sql);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => fn(queryable(tx)));
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
