import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A real webhook server on 127.0.0.1, port 0: it records every request and answers as `handler` says. */

export interface Received {
  headers: IncomingMessage['headers'];
  /** The request's path and query. */
  url: string;
  rawHeaders: string[];
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The body as sent. */
  text: string;
  at: number;
}

export type Handler = (req: Received, res: ServerResponse, n: number) => unknown;

export interface Webhook {
  url: string;
  received: Received[];
  handler: Handler;
  close(): Promise<void>;
}

export async function startWebhook(handler: Handler = (_, res) => void res.end('ok'), port = 0): Promise<Webhook> {
  const sockets = new Set<Socket>();
  const hook: Webhook = { url: '', received: [], handler, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch { /* kept as text */ }
      const r: Received = { headers: req.headers, url: req.url ?? '', rawHeaders: req.rawHeaders, body, text, at: Date.now() };
      hook.received.push(r);
      void Promise.resolve(hook.handler(r, res, hook.received.length)).catch(() => res.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  hook.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  hook.close = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  });
  return hook;
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
