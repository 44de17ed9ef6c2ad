import { describe, expect, it } from 'vitest';
import { useTestEngine, type TestEngine } from '../helpers/engine.js';

// The headers of an answer (issues 28 and 31): every answer carries its request id and its own headers once; CORS
// headers go only to requests with an Origin, as the incumbent's middleware passes the others by.

const e: TestEngine = useTestEngine();

const headersOf = (r: Response): Record<string, string> => Object.fromEntries(r.headers);
const graphql = (headers: Record<string, string> = {}) =>
  fetch(`${e.url}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: '{ __typename }' }) });

describe('answer headers', () => {
  it('without Origin: the request id, the body\'s type and length, and no CORS header', async () => {
    const r = await graphql();
    const h = headersOf(r);
    expect(await r.text()).toBe('{"data":{"__typename":"query_root"}}');
    expect(h['content-type']).toBe('application/json; charset=utf-8');
    expect(h['content-length']).toBe('36');
    expect(h['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(h).filter((k) => k.startsWith('access-control-') || k === 'vary')).toEqual([]);
  });

  it('with Origin: the CORS headers of the default (any origin), each once', async () => {
    const r = await graphql({ origin: 'http://example.test' });
    const h = headersOf(r);
    expect([h['access-control-allow-origin'], h['vary'], h['access-control-expose-headers']]).toEqual(['*', 'Origin', 'X-Request-Id, X-Engine-Resource-Version']);
    expect(h['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a client\'s request id is echoed; the version and resource-version headers keep their names', async () => {
    const r = await graphql({ 'x-request-id': 'abc-123' });
    expect(r.headers.get('x-request-id')).toBe('abc-123');
    const v = await fetch(`${e.url}/v1/version`);
    expect(v.headers.get('x-engine-version')).toMatch(/^\d+\.\d+\.\d+/);
    const q = await e.query({ type: 'export_metadata', args: {} });
    expect(q.status).toBe(200);
    const m = await fetch(`${e.url}/v1/query`, { method: 'POST', body: JSON.stringify({ type: 'export_metadata', args: {} }) });
    expect(m.headers.get('x-engine-resource-version')).toMatch(/^\d+$/);
  });
});
