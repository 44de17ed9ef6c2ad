import type { BatchOptions, BatchStatement, Database, Queryable, QueryOptions, Row, TransactionOptions } from '../../db/database.js';
import type { TraceProbe } from '../../probes.js';

/**
 * The database as traces see it (issue 31.4): each statement, batch and transaction made under a span is a client
 * span of its own, with the statement's text (parameters only, never their values; a `run_sql` script's text is not
 * recorded, as it may hold literals). Statements under no span (the workers' polling) make none.
 */

const operation = (sql: string): string => /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';

function tracedQueryable(q: Queryable, tracer: TraceProbe, system: Record<string, string>): Pick<Queryable, 'query' | 'runScript'> {
  return {
    query<T extends Row = Row>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]> {
      const op = operation(sql);
      return tracer.span(op, 'client', { ...system, 'db.operation.name': op, 'db.query.text': sql }, () => q.query<T>(sql, params, opts), 'child');
    },
    runScript(sql: string) {
      return tracer.span('SCRIPT', 'client', { ...system, 'db.operation.name': 'SCRIPT' }, () => q.runScript(sql), 'child');
    },
  };
}

/** `db` with its statements traced; every other member is the database's own. */
export function tracedDatabase(db: Database, tracer: TraceProbe): Database {
  const system = { 'db.system.name': 'postgresql', 'engine.database': db.kind };
  const own: Partial<Database> = {
    ...tracedQueryable(db, tracer, system),
    batch(statements: BatchStatement[], opts: BatchOptions): Promise<Row[][]> {
      return tracer.span('BATCH', 'client', {
        ...system, 'db.operation.name': 'BATCH', 'db.operation.batch.size': statements.length,
        'db.query.text': statements.map((s) => s.sql).join(';\n'),
      }, () => db.batch(statements, opts), 'child');
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>, opts?: TransactionOptions): Promise<T> {
      return tracer.span('TRANSACTION', 'client', { ...system, 'db.operation.name': 'TRANSACTION' },
        () => db.transaction((tx) => fn(tracedQueryable(tx, tracer, system)), opts), 'child');
    },
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(db, {
    get(target, key) {
      if (key in own) return own[key as keyof Database];
      const v: unknown = Reflect.get(target, key, target);
      if (typeof v !== 'function') return v;
      let b = bound.get(key);
      if (b === undefined) {
        b = (v as (...args: unknown[]) => unknown).bind(target);
        bound.set(key, b);
      }
      return b;
    },
  });
}
