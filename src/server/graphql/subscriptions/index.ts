import type { IncomingHttpHeaders } from 'node:http';
import type { Database } from '../../../db/database.js';
import type { Authenticator } from '../../auth/index.js';
import { figures, type SubscriptionFigures } from '../../../probes.js';
import { Connection, type SocketLimits, type Socket } from './connection.js';
import { LiveQueries, type Runner } from './live.js';
import { CLOSE, type Protocol } from './protocol.js';

export { chooseProtocol, LEGACY, MODERN, type Protocol } from './protocol.js';
export { LIVE_TRIGGER } from './notify.js';
export type { Runner, Socket, SocketLimits };
export { REFRESH } from './connection.js';
export type { SubscriptionFigures } from '../../../probes.js';
export type { LivePlan } from './live.js';
export { explainedSubscription, type ExplainedRequest } from './explain.js';
export { multiplexSql } from './multiplex.js';

/** The default of `--live-queries-refetch-interval` (ms), as the incumbent's. */
export const DEFAULT_REFETCH_INTERVAL_MS = 1000;

/** What `engine serve` may set of subscriptions (flags and variables, issue 32.7); unset ones keep the defaults. */
export interface SubscriptionSettings {
  /** Legacy protocol keep-alive (`ka`) interval, ms; 0: none. */
  keepAliveMs?: number;
  /** How long a socket may stay without connection_init, ms; 0: no limit. */
  initTimeoutMs?: number;
  /** Most cohorts in one multiplexed statement (the incumbent's batch size, 100). */
  batchSize?: number;
  limits?: Partial<ServerLimits>;
}

export interface SubscriptionOptions {
  db: Database;
  auth: Authenticator;
  runner: Runner;
  onError(e: unknown): void;
  /** The fallback refetch (ms); 0 disables it. */
  refetchIntervalMs?: number;
  /** Legacy protocol keep-alive (`ka`) interval, ms; default 5 s as the incumbent. */
  keepAliveMs?: number;
  /** How long a socket may stay without connection_init, ms; default 10 s. */
  initTimeoutMs?: number;
  /** Limits (issue 32.7); each defaults to DEFAULT_LIMITS'. */
  limits?: Partial<ServerLimits>;
  /** Most cohorts in one multiplexed statement; default MAX_BATCH. */
  batchSize?: number;
}

export interface ServerLimits extends SocketLimits {
  /** Sockets at once; one more is closed at once with 1013 (try again later). */
  connections: number;
}

/**
 * Defaults sized for the figures (10,000 live subscribers on one engine) with room: a client that opens
 * more than a page of an application could use is the one the limit stops.
 */
export const DEFAULT_LIMITS: ServerLimits = { perConnection: 1000, perServer: 100_000, connections: 20_000, sendBuffer: 4 * 1024 * 1024 };

/** The WebSocket side of `/v1/graphql` (issue 32): connections and the live queries they share. */
export class Subscriptions {
  readonly live: LiveQueries;
  readonly limits: ServerLimits;
  private readonly connections = new Set<Connection>();
  /** What the limits refused, by reason (metrics). */
  readonly refusals = { connections: 0, subscriptions_per_connection: 0, subscriptions_per_server: 0, slow_consumer: 0 };
  private readonly reader = (): SubscriptionFigures => this.figures();

  constructor(private readonly opts: SubscriptionOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.live = new LiveQueries({
      db: opts.db, runner: opts.runner, refetchIntervalMs: opts.refetchIntervalMs ?? DEFAULT_REFETCH_INTERVAL_MS, onError: opts.onError,
      ...(opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {}),
    });
    // The metrics read these when scraped; one engine per process serves (src/probes.ts).
    figures.subscriptions = this.reader;
  }


  /** The figures metrics expose (issue 32.7). */
  figures(): SubscriptionFigures {
    const { statements, rounds, batches } = this.live.stats;
    return {
      connections: this.connections.size, subscribers: this.live.subscribers, cohorts: this.live.cohortCount, streams: this.live.streamCount,
      watchedTables: this.live.watchedTables().length, statements, rounds, streamBatches: batches, refused: { ...this.refusals },
    };
  }

  /** Serves one upgraded socket speaking `protocol`; `headers` are the upgrade request's. */
  connect(ws: Socket, protocol: Protocol, headers: IncomingHttpHeaders): void {
    if (this.connections.size >= this.limits.connections) {
      this.refusals.connections++;
      ws.close(CLOSE.tryAgainLater, `Too many connections: the limit is ${this.limits.connections}`);
      return;
    }
    const c = new Connection(ws, protocol, headers, {
      auth: this.opts.auth, runner: this.opts.runner, live: this.live, onError: this.opts.onError,
      keepAliveMs: this.opts.keepAliveMs ?? 5000, initTimeoutMs: this.opts.initTimeoutMs ?? 10_000,
      limits: this.limits, refused: (reason) => { this.refusals[reason]++; },
    });
    this.connections.add(c);
    ws.on('close', () => this.connections.delete(c));
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** A stop closes every socket with 1001 (going away) and drops the live queries' triggers. */
  async stop(): Promise<void> {
    for (const c of this.connections) c.close(CLOSE.goingAway, 'server stopping');
    this.connections.clear();
    if (figures.subscriptions === this.reader) delete figures.subscriptions;
    await this.live.stop();
  }
}
