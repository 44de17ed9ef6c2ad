import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../logger.js';
import type { Database } from '../../db/database.js';
import type { Authenticator } from '../auth/index.js';
import type { GraphqlService } from '../graphql/service.js';
import type { Subscriptions, SubscriptionSettings } from '../graphql/subscriptions/index.js';

/** What `/v1/graphql`'s WebSocket side needs of the server. */
export interface WebSocketOptions extends SubscriptionSettings {
  db: Database;
  graphql: GraphqlService;
  auth: Authenticator;
  logger: Logger;
  /** `--live-queries-refetch-interval` in ms; 0 disables the fallback refetch. */
  refetchIntervalMs?: number;
}

/** The subscriptions of each HTTP server, made when first needed (tests read their statistics). */
const served = new WeakMap<Server, () => Promise<Subscriptions>>();

/** The server's subscriptions, loaded and made now if no client has connected yet. */
export function subscriptionsOf(server: Server): Promise<Subscriptions> | undefined {
  return served.get(server)?.();
}

type WsModule = typeof import('ws');
interface SubscriptionsModule {
  m: typeof import('../graphql/subscriptions/index.js');
  subs: Subscriptions;
}

/**
 * Answers WebSocket upgrades of `/v1/graphql` (issue 32.1); any other path's upgrade is refused with 404. `ws` is
 * loaded at the first upgrade, so that a server without WebSocket clients (and every other command) never loads it.
 * The server's close() first closes the sockets with 1001: an upgraded socket would otherwise hold it open.
 */
export function attachWebSockets(server: Server, opts: WebSocketOptions): void {
  // The subscriptions' modules load with the first WebSocket client, not at every engine's start (issue 28).
  let loading: Promise<SubscriptionsModule> | null = null;
  const loadSubs = (): Promise<SubscriptionsModule> => (loading ??= import('../graphql/subscriptions/index.js').then((m) => ({
    m,
    subs: new m.Subscriptions({
      db: opts.db, auth: opts.auth, runner: opts.graphql,
      onError: (e) => opts.logger.error(`subscriptions: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
      ...(opts.refetchIntervalMs !== undefined ? { refetchIntervalMs: opts.refetchIntervalMs } : {}),
      ...(opts.limits ? { limits: opts.limits } : {}),
      ...(opts.keepAliveMs !== undefined ? { keepAliveMs: opts.keepAliveMs } : {}),
      ...(opts.initTimeoutMs !== undefined ? { initTimeoutMs: opts.initTimeoutMs } : {}),
      ...(opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {}),
    }),
  })));
  served.set(server, () => loadSubs().then((l) => l.subs));
  let wss: Promise<InstanceType<WsModule['WebSocketServer']>> | null = null;
  const load = (): Promise<InstanceType<WsModule['WebSocketServer']>> => (wss ??= Promise.all([import('ws'), loadSubs()]).then(([{ WebSocketServer }, { m }]) => new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => m.chooseProtocol(offered),
    // The largest message a client may send: a document with its variables, as an HTTP body may be.
    maxPayload: 16 * 1024 * 1024,
  })));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/v1/graphql') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    socket.on('error', () => socket.destroy());
    Promise.all([load(), loadSubs()]).then(([w, { m, subs: s }]) => w.handleUpgrade(req, socket, head, (ws) => {
      // A client that names no sub-protocol gets the legacy one, as the incumbent's default.
      s.connect(ws, ws.protocol === '' ? m.LEGACY : m.chooseProtocol([ws.protocol]) || m.LEGACY, req.headers);
    }), (e: unknown) => {
      opts.logger.error(`websocket upgrade failed: ${e instanceof Error ? e.message : String(e)}`);
      socket.destroy();
    });
  });
  const close = server.close.bind(server);
  server.close = ((cb?: (err?: Error) => void) => {
    // The triggers are dropped before the caller, told the server closed, closes the database.
    const stopping = (loading ? loading.then((l) => l.subs.stop()) : Promise.resolve()).catch((e: unknown) => opts.logger.error(`subscriptions: ${String(e)}`));
    return close((err) => void stopping.then(() => cb?.(err)));
  }) as Server['close'];
}
