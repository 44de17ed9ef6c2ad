import { Worker } from 'node:worker_threads';
import { probes } from '../probes.js';
import { StatementCancelled, type BatchOptions, type BatchStatement, type Database, type Queryable, type Row, type ScriptResult, type Session, type TransactionOptions } from './database.js';
import type { DataDirSetup } from './pglite.js';
import { takePrestartedWorker, workerFile } from './pglite-prestart.js';
import { seedDataDir } from './pglite-template.js';
import { deserializeError, type Message, type Request, type WorkerData } from './pglite-protocol.js';
import type { CancelSignal } from './cancel.js';

/** Requests as sent: the id is given by `send`. */
type Body = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** A new worker for `dataDir`, or the one started for it before (prestartPgliteWorker). */
function workerFor(dataDir: string): Worker {
  const data: WorkerData = { dataDir };
  return takePrestartedWorker(dataDir) ?? new Worker(workerFile(), { workerData: data });
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

/**
 * The embedded PostgreSQL (PGlite) on a thread of its own (pglite-worker.ts), behind the same Database interface: a
 * long statement blocks that thread, not the one serving HTTP. PGlite has one session and runs one thing at a time, so
 * this side queues the work (a transaction holds the queue until it ends) and the worker never has two things at once.
 * A statement cannot be interrupted inside PGlite's WebAssembly: cancelling one terminates the worker and opens the
 * data directory again in a new one (PostgreSQL's crash recovery; a cancelled statement committed nothing).
 */
export class PgliteWorkerDatabase implements Database {
  readonly kind = 'embedded' as const;
  private worker: Worker | null = null;
  private ready: Promise<void> = Promise.resolve();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** The tail of the queue: each piece of work waits for the one before. */
  private queue: Promise<void> = Promise.resolve();
  /** Work sent to the worker and not answered yet. */
  private inFlight = 0;
  private stopped = false;
  private readonly listeners = new Map<number, () => void>();
  private readonly sessionsLost = new Set<(err: Error) => void>();

  private constructor(private readonly dataDir: string) {}

  /** Opens (creating on first use) the embedded PostgreSQL stored in `dataDir`, as PgliteDatabase.open does. */
  static async open(dataDir: string, setup?: DataDirSetup): Promise<PgliteWorkerDatabase> {
    // The template is copied here while PGlite starts in the worker; it reads the directory once told (SeedingNodeFS).
    // PGlite's module is loaded here only when a template must be built: it runs in the worker.
    const seeded = seedDataDir(dataDir, setup && {
      key: setup.key,
      ...(setup.onBuild ? { onBuild: setup.onBuild } : {}),
      run: async (t) => (await import('./pglite.js')).templateSetup(setup)?.run(t),
    });
    seeded.catch(() => {});
    const db = new PgliteWorkerDatabase(dataDir);
    db.start(seeded);
    try {
      await db.ready;
    } catch (e) {
      await db.worker?.terminate();
      throw e;
    }
    return db;
  }

  private start(seeded: Promise<unknown>): void {
    const worker = workerFor(this.dataDir);
    this.worker = worker;
    const post = (m: Request): void => worker.postMessage(m);
    seeded.then(() => post({ op: 'seeded', id: 0, error: null }), (e: unknown) => post({ op: 'seeded', id: 0, error: { message: e instanceof Error ? e.message : String(e) } }));
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (m: Message) => {
        if ('ready' in m) {
          if (m.ready) resolve();
          else reject(deserializeError(m.error));
        } else if ('notify' in m) this.listeners.get(m.listener)?.();
        else this.answer(m);
      });
      worker.on('error', (e) => {
        reject(e);
        if (this.worker === worker) this.lose(e);
      });
      worker.on('exit', (code) => {
        const e = new Error(`the embedded database stopped (exit code ${code})`);
        reject(e);
        if (this.worker === worker) this.lose(e);
      });
    });
    this.ready.catch(() => {});
  }

  private answer(m: Extract<Message, { id: number }>): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(deserializeError(m.error));
  }

  /** The worker is gone: everything sent to it fails with `e`, and the sessions (their listeners) are lost. */
  private lose(e: unknown): void {
    this.worker = null;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.listeners.clear();
    const lost = [...this.sessionsLost];
    this.sessionsLost.clear();
    const err = e instanceof Error ? e : new Error(String(e));
    for (const cb of lost) cb(err);
  }

  private async send(body: Body): Promise<unknown> {
    await this.ready;
    const worker = this.worker;
    if (!worker || this.stopped) throw new Error('the embedded database is closed');
    const id = this.nextId++;
    this.inFlight++;
    try {
      return await new Promise((resolve, reject) => {
        this.pending.set(id, { resolve, reject });
        worker.postMessage({ ...body, id });
      });
    } finally {
      this.inFlight--;
    }
  }

  /** Runs `fn` when the work queued before it is done; gives up its place when `signal` aborts first. */
  private async exclusive<T>(fn: () => Promise<T>, signal?: CancelSignal): Promise<T> {
    const before = this.queue;
    let release = (): void => {};
    this.queue = new Promise<void>((r) => (release = r));
    if (!signal) {
      try {
        await before;
        return await fn();
      } finally {
        release();
      }
    }
    let onAbort = (): void => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new StatementCancelled(signal.reason));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([before, aborted]);
    } catch (e) {
      // The work before still holds the database: the next in the queue waits for it, not for this.
      void before.then(release);
      throw e;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    try {
      return await fn();
    } finally {
      release();
    }
  }

  query<T extends Row = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    probes.statements?.(1);
    return this.exclusive(() => this.send({ op: 'query', sql, params }) as Promise<T[]>);
  }

  runScript(sql: string): Promise<ScriptResult> {
    return this.exclusive(() => this.send({ op: 'script', sql }) as Promise<ScriptResult>);
  }

  batch(statements: BatchStatement[], opts: BatchOptions): Promise<Row[][]> {
    probes.statements?.(statements.length);
    const { begun, signal, ...rest } = opts;
    return this.exclusive(async () => {
      const sent = this.send({ op: 'batch', statements, opts: rest }) as Promise<{ results: Row[][]; first: Row[] }>;
      const onAbort = (): void => this.restart(new StatementCancelled(signal?.reason));
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const { results, first } = await sent;
        // As on PostgreSQL, after the statements: a read-only snapshot or a batch that committed with them has changed
        // nothing that a stale plan could regret.
        begun?.(opts.first ? first : []);
        return results;
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    }, signal);
  }

  /** Cancels what runs: terminates the worker (its work fails with `e`) and opens the data directory again. */
  private restart(e: unknown): void {
    const old = this.worker;
    if (!old || this.stopped) return;
    this.lose(e);
    // The new worker opens the data directory once the old one has stopped: never two PostgreSQLs on one directory.
    this.ready = old.terminate().catch(() => 0).then(() => {
      this.start(Promise.resolve());
      return this.ready;
    });
    this.ready.catch(() => {});
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    return this.exclusive(async () => {
      const tx = await this.send({ op: 'begin', opts }) as number;
      const q: Queryable = {
        query: <R extends Row>(sql: string, params: unknown[] = []) => this.send({ op: 'query', sql, params, tx }) as Promise<R[]>,
        runScript: (sql: string) => this.send({ op: 'script', sql, tx }) as Promise<ScriptResult>,
      };
      let out: T;
      try {
        out = await fn(q);
      } catch (e) {
        await this.send({ op: 'end', tx, commit: false }).catch(() => {});
        throw e;
      }
      await this.send({ op: 'end', tx, commit: true });
      return out;
    });
  }

  /** PGlite has one connection, so the session is the database itself; a restarted worker loses it (onLost). */
  async openSession(): Promise<Session> {
    const mine: number[] = [];
    const lost: ((err: Error) => void)[] = [];
    const onLost = (err: Error): void => {
      for (const cb of lost) cb(err);
    };
    this.sessionsLost.add(onLost);
    return {
      query: (sql, params) => this.query(sql, params),
      runScript: (sql) => this.runScript(sql),
      listen: async (channel, onNotify) => {
        const id = await this.exclusive(() => this.send({ op: 'listen', channel })) as number;
        this.listeners.set(id, onNotify);
        mine.push(id);
      },
      onLost: (cb) => void lost.push(cb),
      close: async () => {
        this.sessionsLost.delete(onLost);
        for (const id of mine.splice(0)) {
          if (!this.listeners.delete(id)) continue;
          await this.exclusive(() => this.send({ op: 'unlisten', listener: id })).catch(() => {});
        }
      },
    };
  }

  /** The database as SQL by PGlite's pg_dump, run in the worker (src/db/dump.ts). */
  dump(args: string[]): Promise<string> {
    return this.exclusive(() => this.send({ op: 'dump', args }) as Promise<string>);
  }

  /** Whether the worker is running something now (it answers nothing else meanwhile). */
  get running(): boolean {
    return this.inFlight > 0 && this.worker !== null;
  }

  /** Alive while it runs a statement (it answers nothing else then); otherwise it answers a query. */
  async ping(): Promise<void> {
    if (this.running) return;
    await this.query('SELECT 1');
  }

  /** Terminates the worker, failing what runs; the database is closed after this. */
  async cancelRunning(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.inFlight === 0) return;
    this.stopped = true;
    this.lose(new StatementCancelled('the engine is stopping'));
    await worker.terminate();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.stopped) return;
    try {
      await this.exclusive(() => this.send({ op: 'close' }));
    } finally {
      this.stopped = true;
      this.worker = null;
      await worker.terminate();
    }
  }
}
