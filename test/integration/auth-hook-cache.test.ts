import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHook } from '../../src/server/auth/hook.js';

// Issue 28 point 2: the auth hook's session cache is bounded by size, not only by its 10,000 entries: a hook that
// echoes a request header into a session variable (up to 128 KB of headers per request) must not make it hold
// 10,000 × 128 KB.

let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer({ maxHeaderSize: 256 * 1024 }, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
    res.end(JSON.stringify({ 'x-engine-role': 'user', 'x-engine-echo': req.headers['x-big'] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth`;
});
afterAll(() => new Promise<void>((r) => {
  server.close(() => r());
  server.closeAllConnections();
}));

describe('the auth hook cache under large distinct sessions', () => {
  it('holds at most 64 MB of its estimate: the oldest sessions are asked for again', async () => {
    const hook = new AuthHook({ url, mode: 'GET', timeoutSec: 10 });
    const big = (i: number) => `${String(i).padStart(5, '0')}${'x'.repeat(100 * 1024)}`;
    for (let i = 0; i < 700; i++) {
      const c = await hook.caller({ 'x-big': big(i) }, null);
      expect(c.sessionVariables['x-engine-echo']).toBe(big(i));
    }
    expect(hook.calls).toBe(700);
    expect(hook.bytes).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect(hook.bytes).toBeGreaterThan(60 * 1024 * 1024);
    await hook.caller({ 'x-big': big(699) }, null);
    expect(hook.calls).toBe(700);
    await hook.caller({ 'x-big': big(0) }, null);
    expect(hook.calls).toBe(701);
  });
});
