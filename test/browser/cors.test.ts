import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CorsSetting } from '../../src/server/http/cors.js';
import { createTestDatabase, startOn } from '../helpers/engine.js';

// Issue 31.1: CORS as the incumbent, seen by a real browser. A page served on one port calls engines on other ports
// (other origins) with fetch, as a browser application would; Debian's chromium, driven by playwright-core.

const CHROMIUM = '/usr/bin/chromium';
const SECRET = 'cors-admin-secret';

let browser: Browser;
let page: Server;
let pageOrigin = '';
const engines: { url: string; close: () => Promise<void> }[] = [];

async function engine(cors: CorsSetting): Promise<string> {
  const t = await createTestDatabase();
  const s = await startOn(t.db, SECRET, { http: { cors } });
  engines.push({ url: s.url, close: async () => {
    s.server.closeAllConnections();
    await new Promise<void>((r) => s.server.close(() => r()));
    await t.db.close();
    await t.drop();
  } });
  return s.url;
}

let anyOrigin = '';
let listed = '';
let wildcard = '';
let disabled = '';

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does`);
  page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'));
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  anyOrigin = await engine({ origins: '*' });
  listed = await engine({ origins: ['http://example.test', pageOrigin] });
  // 127.0.0.1 has no subdomain: `localhost` pages are used for the wildcard, as *.localhost resolves to loopback.
  wildcard = await engine({ origins: ['http://*.localhost:' + (page.address() as AddressInfo).port] });
  disabled = await engine({ disabled: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  for (const e of engines.splice(0)) await e.close();
  await new Promise<void>((r) => (page ? page.close(() => r()) : r()));
});

interface Outcome { ok: boolean; status?: number; text?: string; requestId?: string | null; error?: string }

/** fetch from a page at `origin`, with a JSON body and the admin secret header (so a preflight comes first). */
async function call(origin: string, url: string, path: string, body: unknown, credentials: 'include' | 'same-origin' | 'omit' = 'same-origin'): Promise<Outcome> {
  const tab = await browser.newPage();
  try {
    await tab.goto(`${origin}/`);
    return await tab.evaluate(async ({ url, path, body, credentials, secret }) => {
      try {
        const r = await fetch(url + path, {
          method: 'POST', credentials, body: JSON.stringify(body),
          headers: { 'content-type': 'application/json', 'x-engine-admin-secret': secret },
        });
        return { ok: true, status: r.status, text: await r.text(), requestId: r.headers.get('x-request-id') };
      } catch (e) {
        return { ok: false, error: String(e) };
      }
    }, { url, path, body, credentials, secret: SECRET });
  } finally {
    await tab.close();
  }
}

const typename = { query: '{ __typename }' };
const sql = { type: 'run_sql', args: { sql: 'select 1 as one' } };

describe('CORS in a real browser', { timeout: 60_000 }, () => {
  it('default *: /v1/graphql and /v1/query answer another origin; X-Request-Id is readable', async () => {
    const g = await call(pageOrigin, anyOrigin, '/v1/graphql', typename);
    expect(g).toMatchObject({ ok: true, status: 200, text: '{"data":{"__typename":"query_root"}}', requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const q = await call(pageOrigin, anyOrigin, '/v1/query', sql);
    expect(q).toMatchObject({ ok: true, status: 200, text: '{"result_type":"TuplesOk","result":[["one"],["1"]]}' });
  });

  it('default *: a request with credentials is refused by the browser (no credentials for any origin)', async () => {
    const r = await call(pageOrigin, anyOrigin, '/v1/graphql', typename, 'include');
    expect(r).toEqual({ ok: false, error: 'TypeError: Failed to fetch' });
  });

  it('a listed origin may send credentials; an unlisted one is refused', async () => {
    expect(await call(pageOrigin, listed, '/v1/graphql', typename, 'include')).toMatchObject({ ok: true, status: 200 });
    const other = `http://localhost:${(page.address() as AddressInfo).port}`;
    expect(await call(other, listed, '/v1/graphql', typename)).toEqual({ ok: false, error: 'TypeError: Failed to fetch' });
  });

  it('a *. wildcard admits subdomains, not the bare domain', async () => {
    const port = (page.address() as AddressInfo).port;
    expect(await call(`http://app.localhost:${port}`, wildcard, '/v1/graphql', typename, 'include')).toMatchObject({ ok: true, status: 200 });
    expect(await call(`http://localhost:${port}`, wildcard, '/v1/graphql', typename)).toEqual({ ok: false, error: 'TypeError: Failed to fetch' });
  });

  it('--disable-cors: the browser refuses every cross-origin call', async () => {
    expect(await call(pageOrigin, disabled, '/v1/graphql', typename)).toEqual({ ok: false, error: 'TypeError: Failed to fetch' });
  });
});

describe('CORS headers', () => {
  const preflight = (url: string, path: string, origin: string) => fetch(`${url}${path}`, {
    method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-engine-admin-secret' },
  });

  it.each(['/v1/graphql', '/v1/query', '/v1beta1/relay', '/api/rest/anything'])('preflight of %s is answered, with Vary: Origin', async (path) => {
    const r = await preflight(anyOrigin, path, 'http://a.test');
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-methods')).toContain('POST');
    expect(r.headers.get('access-control-allow-headers')).toBe('content-type,x-engine-admin-secret');
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    expect(r.headers.get('vary')).toMatch(/Origin/);
  });

  it('listed origins: echoed with credentials; others get no CORS header and a 404 preflight', async () => {
    const ok = await preflight(listed, '/v1/graphql', 'http://example.test');
    expect([ok.status, ok.headers.get('access-control-allow-origin'), ok.headers.get('access-control-allow-credentials')]).toEqual([204, 'http://example.test', 'true']);
    const no = await preflight(listed, '/v1/graphql', 'http://evil.test');
    expect(no.status).toBe(404);
    expect(await no.text()).toBe('{"path":"$","error":"resource does not exist","code":"not-found"}');
    expect(no.headers.get('access-control-allow-origin')).toBeNull();
    expect(no.headers.get('access-control-allow-credentials')).toBeNull();
    expect(no.headers.get('vary')).toMatch(/Origin/);
  });

  it('--disable-cors: no header, preflight 404', async () => {
    const r = await preflight(disabled, '/v1/graphql', 'http://a.test');
    expect(r.status).toBe(404);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});
