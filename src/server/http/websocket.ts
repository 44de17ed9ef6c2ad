import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../logger.js';
import type { Database } from '../../db/database.js';
import type { Authenticator } from '../auth/index.js';
import type { GraphqlService } from '../graphql/service.js';
import { chooseProtocol, LEGACY, Subscriptions, type SubscriptionSettings } from '../graphql/subscriptions/index.js';

/** What `/v1/graphql`'s WebSocket side needs of the server. */
export interface WebSocketOptions extends SubscriptionSettings {
  db: Database;
  graphql: GraphqlService;
  auth: Authenticator;
  logger: Logger;
  /** `--live-queries-refetch-interval` in ms; 0 disables the fallback refetch. */
  refetchIntervalMs?: number;
}

/** The subscriptions served by each HTTP server (tests read their statistics). */
const served = new WeakMap<Server, Subscriptions>();

export function subscriptionsOf(server: Server): Subscriptions | undefined {
  return served.get(server);
}

type WsModule = typeof import('ws');

/**
 * Answers WebSocket upgrades of `/v1/graphql` (issue 32.1); any other path's upgrade is refused with 404. `ws` is
 * loaded at the first upgrade, so that a server without WebSocket clients (and every other command) never loads it.
 * The server's close() first closes the sockets with 1001: an upgraded socket would otherwise hold it open.
 */
export function attachWebSockets(server: Server, opts: WebSocketOptions): void {
  const subs = new Subscriptions({
    db: opts.db, auth: opts.auth, runner: opts.graphql,
    onError: (e) => opts.logger.error(`subscriptions: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
    ...(opts.refetchIntervalMs !== undefined ? { refetchIntervalMs: opts.refetchIntervalMs } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.keepAliveMs !== undefined ? { keepAliveMs: opts.keepAliveMs } : {}),
    ...(opts.initTimeoutMs !== undefined ? { initTimeoutMs: opts.initTimeoutMs } : {}),
    ...(opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {}),
  });
  served.set(server, subs);
  let wss: Promise<InstanceType<WsModule['WebSocketServer']>> | null = null;
  const load = (): Promise<InstanceType<WsModule['WebSocketServer']>> => (wss ??= import('ws').then(({ WebSocketServer }) => new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => chooseProtocol(offered),
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
    load().then((w) => w.handleUpgrade(req, socket, head, (ws) => {
      // A client that names no sub-protocol gets the legacy one, as the incumbent's default.
      subs.connect(ws, ws.protocol === '' ? LEGACY : chooseProtocol([ws.protocol]) || LEGACY, req.headers);
    }), (e: unknown) => {
      opts.logger.error(`websocket upgrade failed: ${e instanceof Error ? e.message : String(e)}`);
      socket.destroy();
    });
  });
  const close = server.close.bind(server);
  server.close = ((cb?: (err?: Error) => void) => {
    // The triggers are dropped before the caller, told the server closed, closes the database.
    const stopping = subs.stop().catch((e: unknown) => opts.logger.error(`subscriptions: ${String(e)}`));
    return close((err) => void stopping.then(() => cb?.(err)));
  }) as Server['close'];
}
