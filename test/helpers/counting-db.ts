import type { Database, Queryable } from '../../src/db/database.js';

/**
 * A Database that records every statement it sends, for the statement-count properties of graphql-api.md §7:
 * `BEGIN`/`COMMIT` mark transactions (the drivers send them), other entries are the statements' text.
 */
export function countingDatabase(inner: Database): { db: Database; log: string[]; params: unknown[][] } {
  const log: string[] = [];
  const params: unknown[][] = [];
  const wrap = (q: Queryable): Queryable => ({
    query: (sql, p, opts) => {
      log.push(sql);
      params.push(p ?? []);
      return q.query(sql, p, opts);
    },
    runScript: (sql) => {
      log.push(sql);
      return q.runScript(sql);
    },
  });
  const outer = wrap(inner);
  const db: Database = {
    kind: inner.kind,
    query: outer.query,
    runScript: outer.runScript,
    async transaction(fn, opts) {
      log.push('BEGIN');
      try {
        return await inner.transaction((tx) => fn(wrap(tx)), opts);
      } finally {
        log.push('COMMIT');
      }
    },
    batch(statements, opts) {
      // BEGIN's round trip carries `first` (the version check); the statements follow in order.
      log.push('BEGIN');
      if (opts.first) log.push(opts.first);
      for (const st of statements) {
        log.push(st.sql);
        params.push(st.params);
      }
      return inner.batch(statements, opts).finally(() => log.push('COMMIT'));
    },
    // The event processor's session is not counted: it is not a statement of the request.
    openSession: () => inner.openSession(),
    close: () => inner.close(),
  };
  return { db, log, params };
}
