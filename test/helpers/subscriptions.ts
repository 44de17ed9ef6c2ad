import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { SubscriptionClient } from 'subscriptions-transport-ws';

// Real clients of both WebSocket protocols of /v1/graphql (issue 32), and a collector of what a subscription receives.

export const wsUrl = (httpUrl: string): string => `${httpUrl.replace(/^http/, 'ws')}/v1/graphql`;

/** Polls `check` until it returns a value other than undefined, or fails after `ms` (never a fixed sleep). */
export async function until<T>(check: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What one subscription received: results in order, the error, whether it completed. */
export class Received {
  results: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  error: unknown = undefined;
  done = false;
  /** Waits for a result that satisfies `pred` (the latest first), returning it. */
  next(pred: (r: any) => boolean, what = 'a result'): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    return until(() => [...this.results].reverse().find(pred), what);
  }
  get last(): any { // eslint-disable-line @typescript-eslint/no-explicit-any
    return this.results[this.results.length - 1];
  }
}

export interface ModernClient {
  client: Client;
  /** The close event's code and reason, once the socket closed. */
  closed: { code: number; reason: string } | null;
  subscribe(query: string, variables?: Record<string, unknown>): Received;
  dispose(): Promise<void>;
}

/** A graphql-ws (graphql-transport-ws) client that never retries; `headers` go in connection_init's payload. */
export function modernClient(url: string, headers: Record<string, string>): ModernClient {
  const out: ModernClient = {
    closed: null,
    client: createClient({
      url: wsUrl(url), webSocketImpl: WebSocket, connectionParams: { headers }, retryAttempts: 0, lazy: true,
      on: { closed: (ev) => { const e = ev as { code: number; reason: string }; out.closed = { code: e.code, reason: String(e.reason) }; } },
    }),
    subscribe(query, variables) {
      const r = new Received();
      out.client.subscribe({ query, ...(variables ? { variables } : {}) }, {
        next: (v) => r.results.push(v),
        error: (e) => { r.error = e; },
        complete: () => { r.done = true; },
      });
      return r;
    },
    dispose: async () => { await out.client.dispose(); },
  };
  return out;
}

export interface LegacyClient {
  client: SubscriptionClient;
  subscribe(query: string, variables?: Record<string, unknown>): Received;
  close(): void;
}

/** A subscriptions-transport-ws client (the legacy `graphql-ws` sub-protocol) that never reconnects. */
export function legacyClient(url: string, headers: Record<string, string>): LegacyClient {
  const client = new SubscriptionClient(wsUrl(url), { connectionParams: { headers }, reconnect: false }, WebSocket);
  return {
    client,
    subscribe(query, variables) {
      const r = new Received();
      client.request({ query, ...(variables ? { variables } : {}) }).subscribe({
        next: (v) => r.results.push(v),
        error: (e: unknown) => { r.error = e; },
        complete: () => { r.done = true; },
      });
      return r;
    },
    close: () => client.close(),
  };
}

/** A raw socket speaking `protocol`, for what the clients never send; collects messages and the close. */
export function rawSocket(url: string, protocol: string): { ws: WebSocket; messages: any[]; closed: { code: number; reason: string } | null; open: Promise<void> } { // eslint-disable-line @typescript-eslint/no-explicit-any
  const ws = new WebSocket(wsUrl(url), protocol);
  const out = { ws, messages: [] as any[], closed: null as { code: number; reason: string } | null, open: new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); }) }; // eslint-disable-line @typescript-eslint/no-explicit-any
  ws.on('message', (d) => out.messages.push(JSON.parse(String(d))));
  ws.on('close', (code, reason) => { out.closed = { code, reason: String(reason) }; });
  return out;
}
