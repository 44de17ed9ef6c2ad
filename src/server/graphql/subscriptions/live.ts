import { createHash } from 'node:crypto';
import type { GraphQLSchema } from 'graphql';
import type { Database } from '../../../db/database.js';
import type { Caller } from '../../auth/index.js';
import { tablesRead, type TableRef } from './document.js';
import { TableWatch } from './notify.js';
import { MAX_BATCH, runBatch, type LivePlan } from './multiplex.js';

export type { LivePlan } from './multiplex.js';

/** What runs a live query's operation once: the GraphQL service (same validation, permissions, SQL and plan cache). */
export interface Runner {
  handle(input: { text: string }, caller: Caller, http: { rawHeaders: string[]; setCookies: string[] }): Promise<string | Buffer>;
  schemaFor(role: string): Promise<GraphQLSchema>;
  /** The compiled statements and bound parameters of a live query, for multiplexing; null: run it through handle. */
  livePlan(text: string, caller: Caller): Promise<LivePlan | null>;
}


export interface LiveOptions {
  db: Database;
  runner: Runner;
  /** The fallback refetch of every cohort (ms); 0: none, only commits wake cohorts. */
  refetchIntervalMs: number;
  onError(e: unknown): void;
  /** How many cohorts run at once in one refetch. */
  concurrency?: number;
}

/** A live query's request as the service runs it: its JSON text and what it reads. */
export interface LiveRequest {
  text: string;
  request: { query: string; operationName: string | null };
}

/** Receives each new result body of a live query (the first at once). */
export type Sink = (body: string) => void;

/**
 * Subscribers with the same role, session variables and request (document, operation, variables) share one cohort:
 * one execution per refetch, one result hash; a result is sent only when its hash changed.
 */
interface Cohort {
  key: string;
  text: string;
  caller: Caller;
  tables: TableRef[];
  sinks: Set<Sink>;
  hash: string | null;
  body: string | null;
  dirty: boolean;
  /** Its statements and parameters, planned once and kept until a batch finds them stale; null: run through handle. */
  plan?: LivePlan | null;
}

const DEFAULT_CONCURRENCY = 8;

export const cohortKey = (caller: Caller, text: string): string => {
  const vars = Object.entries(caller.sessionVariables).map(([k, v]) => [k.toLowerCase(), v]).sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
  return JSON.stringify([caller.role, caller.backendOnly === true, vars, text]);
};

/**
 * The live queries of one engine (issue 32.2, 32.3): cohorts refetched when a commit touched a table they read
 * (TableWatch's notifications), when the engine itself wrote (wakeAll), and on the fallback timer.
 */
export class LiveQueries {
  private readonly cohorts = new Map<string, Cohort>();
  private readonly watch: TableWatch;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /**
   * Statements run for live queries (a multiplexed batch counts one per root field, whatever its cohorts), cohorts run
   * alone through the service (not multiplexable, or their batch failed), and refetch rounds.
   */
  readonly stats = { statements: 0, single: 0, rounds: 0 };

  constructor(private readonly opts: LiveOptions) {
    this.watch = new TableWatch(opts.db, (oid) => this.wake(oid), opts.onError);
    if (opts.refetchIntervalMs > 0) {
      this.timer = setInterval(() => this.fallback(), opts.refetchIntervalMs);
      this.timer.unref();
    }
  }

  /** Subscribers now, over every cohort. */
  get subscribers(): number {
    let n = 0;
    for (const c of this.cohorts.values()) n += c.sinks.size;
    return n;
  }

  get cohortCount(): number {
    return this.cohorts.size;
  }

  /** Tables whose commits wake cohorts now (their triggers are installed). */
  watchedTables(): string[] {
    return this.watch.watched();
  }

  /** Adds a subscriber: it receives the cohort's last result at once, or the first one when it is computed. */
  async subscribe(req: LiveRequest, caller: Caller, sink: Sink): Promise<() => void> {
    const key = cohortKey(caller, req.text);
    let c = this.cohorts.get(key);
    if (!c) {
      const schema = await this.opts.runner.schemaFor(caller.role);
      const tables = [...tablesRead(schema, req.request.query, req.request.operationName).values()];
      c = this.cohorts.get(key);
      if (!c) {
        c = { key, text: req.text, caller, tables, sinks: new Set(), hash: null, body: null, dirty: true };
        this.cohorts.set(key, c);
        // Installed before the first result is read: a commit after that read always wakes the cohort.
        await this.watch.watch(tables);
      }
    }
    const cohort = c;
    cohort.sinks.add(sink);
    if (cohort.body !== null) sink(cohort.body);
    else this.schedule();
    return () => this.unsubscribe(cohort, sink);
  }

  /** A commit touched the table (`oid`): the cohorts reading it are refetched. */
  wake(oid: string): void {
    let any = false;
    for (const c of this.cohorts.values()) {
      if (c.tables.some((t) => t.oid === oid)) {
        c.dirty = true;
        any = true;
      }
    }
    if (any) this.schedule();
  }

  /** Every cohort is refetched (the engine wrote, or the fallback timer). */
  wakeAll(): void {
    for (const c of this.cohorts.values()) c.dirty = true;
    if (this.cohorts.size > 0) this.schedule();
  }

  /** Ends every cohort and drops the triggers installed for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.cohorts.clear();
    await this.running;
    await this.watch.close();
  }

  private fallback(): void {
    if (this.cohorts.size === 0) return;
    void this.watch.refresh();
    this.wakeAll();
  }

  private unsubscribe(c: Cohort, sink: Sink): void {
    if (!c.sinks.delete(sink) || c.sinks.size > 0) return;
    if (this.cohorts.get(c.key) !== c) return;
    this.cohorts.delete(c.key);
    void this.watch.unwatch(c.tables);
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  /** Refetches dirty cohorts until none is left; a wake during a round makes another round. */
  private async loop(): Promise<void> {
    // The wakes of one commit (several tables) and of one tick come together into one round.
    await new Promise<void>((resolve) => setImmediate(resolve));
    do {
      this.again = false;
      const dirty = [...this.cohorts.values()].filter((c) => c.dirty);
      if (dirty.length === 0) break;
      this.stats.rounds++;
      for (const c of dirty) c.dirty = false;
      await this.runRound(dirty);
    } while ((this.again || [...this.cohorts.values()].some((c) => c.dirty)) && !this.stopped);
  }

  /**
   * One round: cohorts planned to the same statements (the plan cache's shared plans) go in batches of MAX_BATCH,
   * one statement per root field per batch; the others, and the cohorts of a failed batch, run alone.
   */
  private async runRound(dirty: Cohort[]): Promise<void> {
    const groups = new Map<LivePlan['plans'], { lp: LivePlan; cohorts: Cohort[] }>();
    const alone: Cohort[] = [];
    for (const c of dirty) {
      if (c.sinks.size === 0) continue;
      if (c.plan === undefined) c.plan = await this.opts.runner.livePlan(c.text, c.caller);
      if (!c.plan) {
        alone.push(c);
        continue;
      }
      const g = groups.get(c.plan.plans);
      if (g) g.cohorts.push(c);
      else groups.set(c.plan.plans, { lp: c.plan, cohorts: [c] });
    }
    const tasks: (() => Promise<void>)[] = alone.map((c) => () => this.refetch(c));
    for (const { lp, cohorts } of groups.values()) {
      for (let i = 0; i < cohorts.length; i += MAX_BATCH) {
        const batch = cohorts.slice(i, i + MAX_BATCH);
        tasks.push(async () => {
          let bodies: string[] | null = null;
          try {
            this.stats.statements += lp.plans.length;
            bodies = await runBatch(lp, batch.map((c) => (c.plan as LivePlan).args));
          } catch {
            // A statement failed for one cohort's values (a data exception): each cohort runs alone, to its own answer.
          }
          if (bodies === null) {
            for (const c of batch) c.plan = undefined;
            for (const c of batch) await this.refetch(c);
            return;
          }
          for (const [j, c] of batch.entries()) this.deliver(c, bodies[j] as string);
        });
      }
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < tasks.length && !this.stopped) await (tasks[next++] as () => Promise<void>)();
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency ?? DEFAULT_CONCURRENCY, tasks.length) }, worker));
  }

  private async refetch(c: Cohort): Promise<void> {
    if (c.sinks.size === 0) return;
    let body: string;
    try {
      this.stats.statements++;
      this.stats.single++;
      body = String(await this.opts.runner.handle({ text: c.text }, c.caller, { rawHeaders: [], setCookies: [] }));
    } catch (e) {
      this.opts.onError(e);
      body = JSON.stringify({ errors: [{ message: 'unexpected error', extensions: { path: '$', code: 'unexpected' } }] });
    }
    this.deliver(c, body);
  }

  /** Sends the cohort's result to its subscribers when it differs from the last one sent. */
  private deliver(c: Cohort, body: string): void {
    const hash = createHash('sha256').update(body).digest('base64');
    if (hash === c.hash) return;
    c.hash = hash;
    c.body = body;
    for (const sink of [...c.sinks]) sink(body);
  }
}
