import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { createTestDatabase, EXTERNAL_URL } from '../helpers/engine.js';
import { eventually } from '../helpers/webhook.js';

// A pooled connection the server ends while the work holding it is between two queries (a database dropped WITH
// (FORCE), a server restart): the work fails, the connection is retired, and nothing is left unhandled (vitest fails
// the run on an uncaught 'error'), whichever kind of work held it.

describe.skipIf(!EXTERNAL_URL)('a connection ended by the server between two queries', () => {
  let url: string;
  let drop: () => Promise<void> = async () => {};
  let admin: pg.Client;
  beforeAll(async () => {
    const t = await createTestDatabase();
    await t.db.close();
    url = t.url as string;
    drop = t.drop;
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await drop();
  });

  /** Ends the backend `pid` and waits until it is gone. */
  const terminate = async (pid: number) => {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await eventually(async () => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0, 10_000, 'backend gone');
    // The FATAL message reaches the client after the backend is gone: give its socket a turn.
    await new Promise((r) => setTimeout(r, 50));
  };

  it('in a transaction, in a query outside one, and the pool serves the next work', async () => {
    const db = await PostgresDatabase.connect(url, { max: 1 });
    try {
      await expect(db.transaction(async (tx) => {
        const [row] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await terminate(row!.pid);
        return tx.query('SELECT 1');
      })).rejects.toThrow();
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      await expect(db.transaction(async (tx) => {
        const [row] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await terminate(row!.pid);
      })).rejects.toThrow();
      expect(await db.query('SELECT 2 AS two')).toEqual([{ two: 2 }]);
    } finally {
      await db.close();
    }
  });
});
