import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/logger.js';
import { startTracing, type Tracing } from '../../src/server/tracing/index.js';
import type { TraceSettings } from '../../src/server/tracing/settings.js';

/**
 * Issue 31.4: spans through the OpenTelemetry SDK's batch processor and OTLP/HTTP exporter, against a real receiver:
 * the encoding the receiver gets, and what a failed export does (a warning naming the endpoint without its key).
 */

interface Receiver { url: string; posts: { headers: Record<string, unknown>; body: any }[]; close(): Promise<void> } // eslint-disable-line @typescript-eslint/no-explicit-any
const open: Receiver[] = [];
let tracing: Tracing | undefined;
afterEach(async () => {
  await tracing?.stop();
  tracing = undefined;
  for (const r of open.splice(0)) await r.close();
});

async function receiver(status = 200): Promise<Receiver> {
  const r: Receiver = { url: '', posts: [], close: async () => {} };
  const s: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => {
      r.posts.push({ headers: req.headers, body: JSON.parse(body) });
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', () => ok()));
  r.url = `http://127.0.0.1:${(s.address() as { port: number }).port}/v1/traces`;
  r.close = () => new Promise((ok) => s.close(() => ok()));
  open.push(r);
  return r;
}

const settings = (endpoint: string): TraceSettings => ({
  endpoint, headers: { 'x-api-key': 'k-1' }, resource: { 'service.name': 'svc' }, ratio: 1, parentBased: true, delayMs: 60_000, batch: 512, queue: 2048, timeoutMs: 5000,
});

function collect(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { lines, logger: { debug: () => {}, info: () => {}, warn: (m) => lines.push(m), error: (m) => lines.push(m) } };
}

async function until(what: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!what()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('spans exported over OTLP/HTTP', () => {
  it('as OTLP/JSON with the headers and resource; hex ids, kinds, typed attributes, a failure as status 2, long values cut', async () => {
    const r = await receiver();
    tracing = startTracing(settings(r.url), collect().logger);
    let traceId = '';
    await tracing.tracer.span('outer', 'server', { str: 'v', int: 200, dbl: 0.5, yes: true, none: undefined, long: 'x'.repeat(5000) }, async () => {
      traceId = tracing?.tracer.outbound()?.traceparent.split('-')[1] ?? '';
      await expect(tracing?.tracer.span('inner', 'client', {}, () => Promise.reject(new Error('HTTP 500')), 'child')).rejects.toThrow('HTTP 500');
    });
    await tracing.stop();
    tracing = undefined;
    expect(r.posts).toHaveLength(1);
    const post = r.posts[0] as Receiver['posts'][number];
    expect(post.headers).toMatchObject({ 'x-api-key': 'k-1', 'content-type': 'application/json' });
    const rs = post.body.resourceSpans[0];
    expect(rs.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'svc' } });
    expect(rs.scopeSpans[0].scope).toMatchObject({ name: 'engine', version: expect.any(String) });
    const spans = rs.scopeSpans[0].spans as { name: string; traceId: string; spanId: string; parentSpanId?: string; kind: number; status: unknown; attributes: { key: string; value: Record<string, unknown> }[] }[];
    const outer = spans.find((s) => s.name === 'outer');
    const inner = spans.find((s) => s.name === 'inner');
    expect(outer?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(outer?.traceId).toBe(traceId);
    expect(inner).toMatchObject({ traceId, parentSpanId: outer?.spanId, kind: 3, status: { code: 2, message: 'HTTP 500' } });
    expect(outer?.kind).toBe(2);
    const attr = (k: string) => outer?.attributes.find((a) => a.key === k)?.value;
    expect([attr('str'), attr('dbl'), attr('yes')]).toEqual([{ stringValue: 'v' }, { doubleValue: 0.5 }, { boolValue: true }]);
    expect(Number(attr('int')?.['intValue'])).toBe(200);
    expect(attr('none')).toBeUndefined();
    expect(String(attr('long')?.['stringValue'])).toHaveLength(4096);
  });

  it('a receiver that refuses: the spans are dropped and one warning names the endpoint without its key', async () => {
    const r = await receiver(500);
    const log = collect();
    tracing = startTracing(settings(`${r.url}?key=secret-q`), log.logger);
    await tracing.tracer.span('one', 'internal', {}, async () => {});
    await tracing.tracer.span('two', 'internal', {}, async () => {});
    await tracing.stop();
    tracing = undefined;
    await until(() => log.lines.length > 0);
    expect(r.posts.length).toBeGreaterThan(0);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatch(new RegExp(`^traces: exporting spans to ${r.url.replace(/[.?]/g, '\\$&')} failed \\(.+\\); spans are dropped until it answers$`));
    expect(log.lines.join('\n')).not.toContain('secret-q');
  });

  it('a receiver that is not there: a warning with the connection error', async () => {
    const r = await receiver();
    await r.close();
    open.splice(0);
    const log = collect();
    tracing = startTracing(settings(r.url), log.logger);
    await tracing.tracer.span('one', 'internal', {}, async () => {});
    await tracing.stop();
    tracing = undefined;
    await until(() => log.lines.length > 0);
    expect(log.lines[0]).toContain(`traces: exporting spans to ${r.url} failed (`);
    expect(log.lines[0]).toMatch(/ECONNREFUSED|connect/);
  });
});
