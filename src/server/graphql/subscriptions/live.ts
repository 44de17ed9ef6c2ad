import { createHash } from 'node:crypto';
import type { GraphQLSchema } from 'graphql';
import type { Database } from '../../../db/database.js';
import type { Caller } from '../../auth/index.js';
import { callerOf, cohortKey, sessionKey, type Cohort, type Sink } from './cohort.js';
import { refusedRootField, schemasOf, tablesRead, type Schemas } from './document.js';
import { TableWatch } from './notify.js';
import { MAX_BATCH, runBatch, type LivePlan } from './multiplex.js';
import { batchesOf, runTasks } from './round.js';
import { nextBatch, planStream } from './stream.js';

export type { LivePlan } from './multiplex.js';
export type { Sink } from './cohort.js';

/** What runs a live query's operation once: the GraphQL service (same validation, permissions, SQL and plan cache). */
export interface Runner {
  /** `live`: on the role's live schema (subscriptions), else its schema (queries and mutations over the socket). */
  handle(input: { text: string }, caller: Caller, http: { rawHeaders: string[]; setCookies: string[]; live?: boolean }): Promise<string | Buffer>;
  /** The role's schema: its query, mutation and subscription roots. */
  schemaFor(role: string): Promise<GraphQLSchema>;
  /** The compiled statements and bound parameters of a live query (on the live schema), for multiplexing; null: run it through handle. */
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
  /** Most cohorts in one multiplexed statement; default MAX_BATCH (`--live-queries-batch-size`). */
  batchSize?: number;
}

/** A live query's request as the service runs it: its JSON text and what it reads. */
export interface LiveRequest {
  text: string;
  request: { query: string; variables: Record<string, unknown>; operationName: string | null };
}

const DEFAULT_CONCURRENCY = 8;
/** A live query runs on the role's live schema (its subscription root fields as a query root). */
const LIVE_HTTP = (): { rawHeaders: string[]; setCookies: string[]; live: true } => ({ rawHeaders: [], setCookies: [], live: true });


/**
 * The live queries and streams of one engine (issue 32.2–32.4): cohorts refetched when a commit touched a table they
 * read (TableWatch's notifications), when the engine itself wrote (wakeAll), and on the fallback timer.
 */
export class LiveQueries {
  private readonly cohorts = new Map<string, Cohort>();
  /** Each subscriber's cohort now: a split or a stream's move takes subscribers to another one. */
  private readonly homes = new Map<Sink, Cohort>();
  private readonly watch: TableWatch;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private subscriberCount = 0;
  /**
   * Statements run for live queries (a multiplexed batch counts one per root field, whatever its cohorts), cohorts run
   * alone through the service (not multiplexable, or their batch failed), refetch rounds, stream batches sent.
   */
  readonly stats = { statements: 0, single: 0, rounds: 0, batches: 0 };

  constructor(private readonly opts: LiveOptions) {
    this.watch = new TableWatch(opts.db, (oid) => this.wake(oid), opts.onError);
    if (opts.refetchIntervalMs > 0) {
      this.timer = setInterval(() => this.fallback(), opts.refetchIntervalMs);
      this.timer.unref();
    }
  }

  /** Subscribers now, over every cohort. */
  get subscribers(): number {
    return this.subscriberCount;
  }

  get cohortCount(): number {
    return this.cohorts.size;
  }

  /** Cohorts that are streams (a part of cohortCount). */
  get streamCount(): number {
    let n = 0;
    for (const c of this.cohorts.values()) if (c.stream) n++;
    return n;
  }

  /** Tables whose commits wake cohorts now (their triggers are installed). */
  watchedTables(): string[] {
    return this.watch.watched();
  }

  /** Adds a subscriber: it receives the cohort's last result at once, or the first one when it is computed. */
  async subscribe(req: LiveRequest, caller: Caller, sink: Sink): Promise<() => void> {
    let schemas: Schemas | null = null;
    const load = async (): Promise<Schemas> => (schemas ??= schemasOf(await this.opts.runner.schemaFor(caller.role)));
    // A subscription names only the role's subscription_root fields (its select permissions' subscription_root_fields).
    const refused = async (): Promise<boolean> => {
      const body = refusedRootField((await load()).shown, req.request);
      if (body !== null) sink(body);
      return body !== null;
    };
    let text = req.text;
    let stream: Cohort['stream'];
    let checked = false;
    // Only a document naming a `_stream` field can be a stream: the others skip reading it twice.
    if (req.request.query.includes('_stream')) {
      if (await refused()) return () => {};
      checked = true;
      const s = planStream((await load()).live, req.request);
      if (s.kind === 'error') {
        sink(s.body);
        return () => {};
      }
      if (s.kind === 'stream') {
        stream = { spec: s.spec, cursor: s.spec.initial };
        text = s.spec.after(s.spec.initial);
      }
    }
    const plan = await this.opts.runner.livePlan(text, caller);
    const key = cohortKey(caller, text, plan, stream !== undefined);
    let c = this.cohorts.get(key);
    if (!c) {
      // A cohort's subscribers have the role and request of its first one, which was checked.
      if (!checked && await refused()) return () => {};
      const { live } = await load();
      // A stream reads what its rewritten query reads.
      const query = stream ? (JSON.parse(text) as { query: string }).query : req.request.query;
      const tables = await this.watch.resolve([...tablesRead(live, query, req.request.operationName).values()]);
      c = this.cohorts.get(key);
      if (!c) {
        c = { key, text, members: new Map(), tables, hash: null, body: null, dirty: true, plan, ...(stream ? { stream } : {}) };
        this.cohorts.set(key, c);
        // Installed before the first result is read: a commit after that read always wakes the cohort.
        await this.watch.watch(tables);
      }
    }
    const cohort = c;
    cohort.members.set(sink, caller);
    this.homes.set(sink, cohort);
    this.subscriberCount++;
    if (cohort.body !== null && !cohort.stream) sink(cohort.body);
    else this.schedule();
    return () => this.unsubscribe(sink);
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
    this.homes.clear();
    this.subscriberCount = 0;
    await this.running;
    await this.watch.close();
  }

  private fallback(): void {
    if (this.cohorts.size === 0) return;
    this.wakeAll();
  }

  private unsubscribe(sink: Sink): void {
    const c = this.homes.get(sink);
    this.homes.delete(sink);
    if (!c?.members.delete(sink)) return;
    this.subscriberCount--;
    if (c.members.size > 0) return;
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
      // A cohort made dirty after the loop's last check, before this ran, found it still running: it goes now.
      if (!this.stopped && this.due().length > 0) this.schedule();
    });
  }

  /** Refetches dirty cohorts until none is left; a wake during a round makes another round. */
  private async loop(): Promise<void> {
    // The wakes of one commit (several tables) and of one tick come together into one round.
    await new Promise<void>((resolve) => setImmediate(resolve));
    do {
      this.again = false;
      const dirty = this.due();
      if (dirty.length === 0) break;
      this.stats.rounds++;
      for (const c of dirty) c.dirty = false;
      await this.runRound(dirty);
    } while ((this.again || this.due().length > 0) && !this.stopped);
  }

  /**
   * The dirty cohorts with subscribers. A cohort just made has none until its trigger is installed: it stays dirty
   * for the round after its first subscriber joins.
   */
  private due(): Cohort[] {
    return [...this.cohorts.values()].filter((c) => c.dirty && c.members.size > 0);
  }

  /**
   * One round: cohorts planned to the same statements (the plan cache's shared plans) go in batches of MAX_BATCH (or the batch size set),
   * one statement per root field per batch; the others, and the cohorts of a failed batch, run alone.
   */
  private async runRound(dirty: Cohort[]): Promise<void> {
    const ready: Cohort[] = [];
    for (const c of dirty) {
      if (c.members.size === 0 || this.cohorts.get(c.key) !== c) continue;
      if (c.plan === undefined && !(await this.replan(c))) continue;
      ready.push(c);
    }
    const { batches, alone } = batchesOf(ready, this.opts.batchSize ?? MAX_BATCH);
    const tasks: (() => Promise<void>)[] = alone.map((c) => () => this.refetch(c));
    for (const { lp, cohorts: batch } of batches) {
      tasks.push(async () => {
        let bodies: string[] | null = null;
        let failed = false;
        try {
          this.stats.statements += lp.plans.length;
          bodies = await runBatch(lp, batch.map((c) => (c.plan as LivePlan).args));
        } catch {
          // A statement failed for one cohort's values (a data exception): each cohort runs alone, to its own answer.
          failed = true;
        }
        if (bodies === null) {
          for (const c of batch) c.plan = undefined;
          // Stale plans are planned again in the next round (the cohort may split); failed ones run alone now.
          if (failed) for (const c of batch) await this.refetch(c);
          else for (const c of batch) c.dirty = true;
          return;
        }
        for (const [j, c] of batch.entries()) await this.settle(c, bodies[j] as string);
      });
    }
    await runTasks(tasks, this.opts.concurrency ?? DEFAULT_CONCURRENCY, () => this.stopped);
  }

  /**
   * Plans a cohort again (its plan went stale, or its stream's cursor moved). Its subscribers are planned per distinct
   * session: when the statements now bind different values for them (a permission changed), the cohort splits, so
   * that nobody is ever answered with another's values. False when the cohort went away (merged into another).
   */
  private async replan(c: Cohort): Promise<boolean> {
    const sessions = new Map<string, { caller: Caller; sinks: Sink[] }>();
    for (const [sink, caller] of c.members) {
      const k = sessionKey(caller);
      const s = sessions.get(k);
      if (s) s.sinks.push(sink);
      else sessions.set(k, { caller, sinks: [sink] });
    }
    const byKey = new Map<string, { plan: LivePlan | null; sinks: Sink[]; caller: Caller }>();
    for (const { caller, sinks } of sessions.values()) {
      const plan = await this.opts.runner.livePlan(c.text, caller);
      const key = cohortKey(caller, c.text, plan, c.stream !== undefined);
      const g = byKey.get(key);
      if (g) g.sinks.push(...sinks);
      else byKey.set(key, { plan, sinks, caller });
    }
    if (this.cohorts.get(c.key) !== c || c.members.size === 0) return false;
    let kept = false;
    for (const [key, g] of byKey) {
      if (!kept) {
        kept = true;
        c.plan = g.plan;
        if (!this.rekey(c, key)) return false;
        continue;
      }
      // A new cohort for the others, starting from what they were last sent.
      const members = new Map<Sink, Caller>();
      for (const sink of g.sinks) {
        const caller = c.members.get(sink);
        if (caller === undefined) continue;
        c.members.delete(sink);
        members.set(sink, caller);
      }
      const other = this.cohorts.get(key);
      if (other) {
        this.join(other, members, c.hash);
      } else {
        const split: Cohort = { ...c, key, members, plan: g.plan, dirty: true, ...(c.stream ? { stream: { ...c.stream } } : {}) };
        this.cohorts.set(key, split);
        for (const sink of members.keys()) this.homes.set(sink, split);
        await this.watch.watch(c.tables);
      }
      this.again = true;
    }
    return true;
  }

  /** Files the cohort under `key`; when another cohort is there, its subscribers join it (false: `c` is gone). */
  private rekey(c: Cohort, key: string): boolean {
    if (key === c.key) return true;
    if (this.cohorts.get(c.key) === c) this.cohorts.delete(c.key);
    const other = this.cohorts.get(key);
    if (!other) {
      c.key = key;
      this.cohorts.set(key, c);
      return true;
    }
    this.join(other, new Map(c.members), c.hash);
    c.members.clear();
    this.again = true;
    void this.watch.unwatch(c.tables);
    return false;
  }

  /** Subscribers that were sent the result `hash` join `other`: they get its last result when it differs. */
  private join(other: Cohort, members: Map<Sink, Caller>, hash: string | null): void {
    for (const [sink, caller] of members) {
      other.members.set(sink, caller);
      this.homes.set(sink, other);
      if (other.body !== null && other.hash !== hash && !other.stream) sink(other.body);
    }
    other.dirty = true;
  }

  private async refetch(c: Cohort): Promise<void> {
    if (c.members.size === 0) return;
    await this.settle(c, await this.runAlone(c, c.text));
  }

  private async runAlone(c: Cohort, text: string): Promise<string> {
    try {
      this.stats.statements++;
      this.stats.single++;
      return String(await this.opts.runner.handle({ text }, callerOf(c), LIVE_HTTP()));
    } catch (e) {
      this.opts.onError(e);
      return JSON.stringify({ errors: [{ message: 'unexpected error', extensions: { path: '$', code: 'unexpected' } }] });
    }
  }

  /** A cohort's new answer: a live query's is sent when it changed; a stream's batch is sent and moves its cursor. */
  private async settle(c: Cohort, body: string): Promise<void> {
    if (!c.stream) return this.deliver(c, body);
    const { spec } = c.stream;
    const batch = await nextBatch(spec, body, (text) => this.runAlone(c, text));
    if (batch === 'error') return this.deliver(c, body);
    if (batch === 'empty' || c.members.size === 0) return;
    const { out, last } = batch;
    this.stats.batches++;
    c.hash = null;
    for (const sink of [...c.members.keys()]) sink(out);
    // The next batch starts after the last row sent, at once: more rows may be waiting.
    c.stream.cursor = last;
    c.text = spec.after(last);
    c.plan = undefined;
    c.dirty = true;
    this.again = true;
  }

  /** Sends the cohort's result to its subscribers when it differs from the last one sent. */
  private deliver(c: Cohort, body: string): void {
    const hash = createHash('sha256').update(body).digest('base64');
    if (hash === c.hash) return;
    c.hash = hash;
    c.body = c.stream ? null : body;
    for (const sink of [...c.members.keys()]) sink(body);
  }
}
