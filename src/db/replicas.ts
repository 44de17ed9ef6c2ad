import type { BatchOptions, BatchStatement, Database, Queryable, QueryOptions, Row, ScriptResult, Session, TransactionOptions } from './database.js';

/**
 * Read replicas as one Database (issue 31 point 7): each piece of work goes to the next replica in turn. Only reads
 * are given to it (GraphQL queries); a replica refuses writes itself (read-only transaction, hot standby).
 */
export class ReplicaSet implements Database {
  readonly kind = 'external' as const;
  private next = 0;

  constructor(private readonly replicas: readonly Database[]) {
    if (replicas.length === 0) throw new Error('a replica set needs at least one replica');
  }

  get size(): number {
    return this.replicas.length;
  }

  private pick(): Database {
    const db = this.replicas[this.next % this.replicas.length] as Database;
    this.next = (this.next + 1) % this.replicas.length;
    return db;
  }

  query<T extends Row = Row>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]> {
    return this.pick().query<T>(sql, params, opts);
  }

  runScript(sql: string): Promise<ScriptResult> {
    return this.pick().runScript(sql);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>, opts?: TransactionOptions): Promise<T> {
    return this.pick().transaction(fn, opts);
  }

  batch(statements: BatchStatement[], opts: BatchOptions): Promise<Row[][]> {
    return this.pick().batch(statements, opts);
  }

  openSession(): Promise<Session> {
    return this.pick().openSession();
  }

  async cancelRunning(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.cancelRunning?.()));
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.close()));
  }
}
