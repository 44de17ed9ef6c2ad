import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import { ROW_COMMANDS, transactionSetup, type Database, type Queryable, type Row, type ScriptResult, type TransactionOptions } from './database.js';

type Parsers = Record<number, (x: string) => string>;
const identity = (x: string): string => x;


type PgliteLike = Pick<PGlite, 'query' | 'exec'> | Transaction;

function queryable(q: PgliteLike, textParsers: () => Parsers): Queryable {
  return {
    async query<T extends Row>(sql: string, params: unknown[] = []): Promise<T[]> {
      const r = await q.query<T>(sql, params);
      return r.rows;
    },
    async runScript(sql: string): Promise<ScriptResult> {
      const results = await q.exec(sql, { rowMode: 'array', parsers: textParsers() });
      const last = results[results.length - 1] as (typeof results)[number] & { command?: string };
      const fields = last?.fields.map((f) => f.name) ?? [];
      const hasRows = fields.length > 0 || ROW_COMMANDS.has(last?.command ?? '');
      return { hasRows, fields, rows: (last?.rows ?? []) as (string | null)[][] };
    },
  };
}

export class PgliteDatabase implements Database {
  readonly kind = 'embedded' as const;
  private readonly db: PGlite;
  private readonly q: Queryable;
  private readonly textParsers: Parsers;

  private constructor(db: PGlite, textParsers: Parsers) {
    this.db = db;
    this.textParsers = textParsers;
    this.q = queryable(db, () => this.textParsers);
  }

  /** Opens (creating on first use) the embedded PostgreSQL stored in `dataDir`; in memory when undefined. */
  static async open(dataDir: string | undefined): Promise<PgliteDatabase> {
    const db = await PGlite.create(dataDir);
    // PGlite parses every type it knows (arrays included) into JS values; run_sql wants PostgreSQL's text
    // output, so every known type gets the identity parser (types created later have no parser: text already).
    const oids = await db.query<{ oid: number }>('SELECT oid::int AS oid FROM pg_type');
    const textParsers: Parsers = Object.fromEntries([...Object.keys(types.parsers).map(Number), ...oids.rows.map((r) => r.oid)].map((o) => [o, identity]));
    return new PgliteDatabase(db, textParsers);
  }

  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.q.query<T>(sql, params);
  }

  runScript(sql: string): Promise<ScriptResult> {
    return this.q.runScript(sql);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    return this.db.transaction(async (tx) => {
      const setup = transactionSetup(opts);
      if (setup.length > 0) await tx.exec(setup.join('; '));
      return fn(queryable(tx, () => this.textParsers));
    });
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
