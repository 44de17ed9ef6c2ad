// The embedded PostgreSQL's thread (src/db/pglite-remote.ts starts it): PGlite runs a statement synchronously inside
// its WebAssembly, so on the thread that serves HTTP one long statement would freeze every request. Here it blocks
// only this thread; the parent answers meanwhile and, to cancel a statement, terminates this thread.
import { parentPort, workerData } from 'node:worker_threads';
import type { Queryable } from './database.js';
import { PgliteDatabase } from './pglite.js';
import { serializeError, type Request, type WorkerData } from './pglite-protocol.js';

const port = parentPort;
if (!port) throw new Error('pglite-worker.js runs only as a worker thread');
const data = workerData as WorkerData;

let markSeeded: (error: unknown) => void = () => {};
const seeded = new Promise<void>((resolve, reject) => {
  markSeeded = (error) => (error === null ? resolve() : reject(Object.assign(new Error(String((error as { message?: unknown }).message)), error)));
});
seeded.catch(() => {});

/** Open transactions, by id: `end` settles the promise their callback waits for. */
const transactions = new Map<number, { tx: Queryable; end(commit: boolean): void }>();
const listeners = new Map<number, () => Promise<void>>();
let nextId = 1;

const reply = (id: number, value: unknown): void => port.postMessage({ id, ok: true, value });
const fail = (id: number, e: unknown): void => port.postMessage({ id, ok: false, error: serializeError(e) });

/** Rolls back a transaction that the parent ended without commit. */
class RolledBack extends Error {}

async function main(): Promise<void> {
  let db: PgliteDatabase;
  try {
    db = await PgliteDatabase.open(data.dataDir, undefined, { seeded });
  } catch (e) {
    port?.postMessage({ ready: false, error: serializeError(e) });
    return;
  }
  port?.postMessage({ ready: true });
  port?.on('message', (m: Request) => {
    if (m.op === 'seeded') return;
    void handle(db, m).then((v) => reply(m.id, v), (e: unknown) => fail(m.id, e));
  });
}

function on(db: PgliteDatabase, tx: number | undefined): Queryable {
  if (tx === undefined) return db;
  const t = transactions.get(tx);
  if (!t) throw new Error(`transaction ${tx} is not open`);
  return t.tx;
}

async function handle(db: PgliteDatabase, m: Request): Promise<unknown> {
  switch (m.op) {
    case 'query':
      return on(db, m.tx).query(m.sql, m.params);
    case 'script':
      return on(db, m.tx).runScript(m.sql);
    case 'batch': {
      let first: unknown[] = [];
      const results = await db.batch(m.statements, { ...m.opts, begun: (rows) => void (first = rows) });
      return { results, first };
    }
    case 'begin': {
      const id = nextId++;
      return new Promise((begun, failed) => {
        let started = false;
        const done = db.transaction((tx) => new Promise<void>((resolve, reject) => {
          started = true;
          transactions.set(id, { tx, end: (commit) => (commit ? resolve() : reject(new RolledBack())) });
          begun(id);
        }), m.opts);
        // How the transaction ended is the answer to `end`.
        ended.set(id, done.then(() => null, (e: unknown) => (e instanceof RolledBack ? null : e)));
        done.catch((e: unknown) => {
          if (!started) failed(e);
        });
      });
    }
    case 'end': {
      const t = transactions.get(m.tx);
      if (!t) throw new Error(`transaction ${m.tx} is not open`);
      t.end(m.commit);
      transactions.delete(m.tx);
      const error = await ended.get(m.tx);
      ended.delete(m.tx);
      if (error !== null && error !== undefined) throw error;
      return null;
    }
    case 'listen': {
      const id = nextId++;
      const channel = m.channel;
      listeners.set(id, await db.instance.listen(channel, () => port?.postMessage({ notify: channel, listener: id })));
      return id;
    }
    case 'unlisten': {
      const u = listeners.get(m.listener);
      listeners.delete(m.listener);
      await u?.();
      return null;
    }
    case 'dump': {
      const { dumpDatabase } = await import('./dump.js');
      return dumpDatabase(db, m.args);
    }
    case 'close':
      await db.close();
      return null;
    case 'seeded':
      return null;
  }
}

const ended = new Map<number, Promise<unknown>>();

port.on('message', (m: Request) => {
  if (m.op === 'seeded') markSeeded(m.error);
});
void main();
