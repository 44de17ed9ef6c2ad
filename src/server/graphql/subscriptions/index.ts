import type { IncomingHttpHeaders } from 'node:http';
import type { Database } from '../../../db/database.js';
import type { Authenticator } from '../../auth/index.js';
import { Connection, type Socket } from './connection.js';
import { LiveQueries, type Runner } from './live.js';
import { CLOSE, type Protocol } from './protocol.js';

export { chooseProtocol, LEGACY, MODERN, type Protocol } from './protocol.js';
export { LIVE_TRIGGER } from './notify.js';
export type { Runner, Socket };
export type { LivePlan } from './live.js';

/** The default of `--live-queries-refetch-interval` (ms), as the incumbent's. */
export const DEFAULT_REFETCH_INTERVAL_MS = 1000;

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
}

/** The WebSocket side of `/v1/graphql` (issue 32): connections and the live queries they share. */
export class Subscriptions {
  readonly live: LiveQueries;
  private readonly connections = new Set<Connection>();

  constructor(private readonly opts: SubscriptionOptions) {
    this.live = new LiveQueries({ db: opts.db, runner: opts.runner, refetchIntervalMs: opts.refetchIntervalMs ?? DEFAULT_REFETCH_INTERVAL_MS, onError: opts.onError });
  }

  /** Serves one upgraded socket speaking `protocol`; `headers` are the upgrade request's. */
  connect(ws: Socket, protocol: Protocol, headers: IncomingHttpHeaders): void {
    const c = new Connection(ws, protocol, headers, {
      auth: this.opts.auth, runner: this.opts.runner, live: this.live, onError: this.opts.onError,
      keepAliveMs: this.opts.keepAliveMs ?? 5000, initTimeoutMs: this.opts.initTimeoutMs ?? 10_000,
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
    await this.live.stop();
  }
}
