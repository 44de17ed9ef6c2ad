import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/logger.js';
import { OtlpExporter } from '../../src/server/tracing/exporter.js';
import type { TraceSettings } from '../../src/server/tracing/settings.js';
import { Span } from '../../src/server/tracing/span.js';

/** Issue 31.4: the OTLP/HTTP JSON exporter against a real receiver: batches, the span encoding, and failed exports. */

interface Receiver { url: string; posts: { headers: Record<string, unknown>; body: any }[]; close(): Promise<void> } // eslint-disable-line @typescript-eslint/no-explicit-any
const open: Receiver[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

async function receiver(status = 200): Promise<Receiver> {
  const r: Receiver = { url: '', posts: [], close: async () => {} };
  const s: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => {
      r.posts.push({ headers: req.headers, body: JSON.parse(body) });
      res.statusCode = status;
      res.end('{}');
    });
  });
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', () => ok()));
  r.url = `http://127.0.0.1:${(s.address() as { port: number }).port}/v1/traces`;
  r.close = () => new Promise((ok) => s.close(() => ok()));
  open.push(r);
  return r;
}

const settings = (endpoint: string, more: Partial<TraceSettings> = {}): TraceSettings => ({
  endpoint, headers: { 'x-api-key': 'k-1' }, resource: { 'service.name': 'svc' }, ratio: 1, parentBased: true, delayMs: 60_000, batch: 2, queue: 10, timeoutMs: 5000, ...more,
});

function collect(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { lines, logger: { debug: () => {}, info: () => {}, warn: (m) => lines.push(m), error: (m) => lines.push(m) } };
}

let n = 0;
function span(attributes: Record<string, string | number | boolean | undefined> = {}): Span {
  n++;
  const s = new Span({ traceId: 'a'.repeat(31) + (n % 10), spanId: 'b'.repeat(15) + (n % 10), sampled: true }, 'c'.repeat(16), `s${n}`, 'client', attributes);
  s.end = s.start + 1.5;
  return s;
}

describe('the OTLP/HTTP exporter', () => {
  it('sends full batches at once and the rest at a flush, as OTLP/JSON with its headers and resource', async () => {
    const r = await receiver();
    const x = new OtlpExporter(settings(r.url), collect().logger);
    for (let i = 0; i < 5; i++) x.add(span());
    await x.flush();
    expect(r.posts.map((p) => p.body.resourceSpans[0].scopeSpans[0].spans.length)).toEqual([2, 2, 1]);
    expect(r.posts[0]?.headers).toMatchObject({ 'x-api-key': 'k-1', 'content-type': 'application/json' });
    expect(r.posts[0]?.body.resourceSpans[0].resource).toEqual({ attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] });
    expect(r.posts[0]?.body.resourceSpans[0].scopeSpans[0].scope).toEqual({ name: 'engine', version: expect.any(String) });
    expect([x.exported, x.dropped]).toEqual([5, 0]);
  });

  it('encodes ids as hex, times as decimal nanoseconds, typed attributes, a failure as status 2; long values are cut', async () => {
    const r = await receiver();
    const x = new OtlpExporter(settings(r.url, { batch: 1 }), collect().logger);
    const s = span({ str: 'v', int: 200, dbl: 0.5, yes: true, none: undefined, long: 'x'.repeat(5000) });
    s.fail('HTTP 500');
    x.add(s);
    await x.flush();
    const out = r.posts[0]?.body.resourceSpans[0].scopeSpans[0].spans[0];
    expect(out).toMatchObject({ traceId: s.ctx.traceId, spanId: s.ctx.spanId, parentSpanId: 'c'.repeat(16), name: s.name, kind: 3, status: { code: 2, message: 'HTTP 500' } });
    // 1.5 ms, to the nanosecond (each time rounded on its own).
    expect(Math.abs(Number(BigInt(out.endTimeUnixNano) - BigInt(out.startTimeUnixNano)) - 1_500_000)).toBeLessThanOrEqual(1);
    // Wall-clock time, within a minute of now.
    expect(Math.abs(Number(BigInt(out.startTimeUnixNano) / 1_000_000n) - Date.now())).toBeLessThan(60_000);
    expect(out.attributes.slice(0, 4)).toEqual([
      { key: 'str', value: { stringValue: 'v' } }, { key: 'int', value: { intValue: '200' } }, { key: 'dbl', value: { doubleValue: 0.5 } }, { key: 'yes', value: { boolValue: true } },
    ]);
    expect(out.attributes[4].value.stringValue).toBe(`${'x'.repeat(4096)}…`);
    expect(out.attributes).toHaveLength(5);
  });

  it('drops what a receiver refuses and warns once a minute, naming the endpoint without its key', async () => {
    const r = await receiver(500);
    const log = collect();
    const x = new OtlpExporter(settings(`${r.url}?key=secret-q`, { batch: 1 }), log.logger);
    x.add(span());
    x.add(span());
    await x.flush();
    expect(r.posts).toHaveLength(2);
    expect([x.exported, x.dropped]).toEqual([0, 2]);
    expect(log.lines).toEqual([`traces: exporting 1 span(s) to ${r.url} failed (HTTP 500); 1 span(s) dropped so far`]);
  });

  it('a receiver that is not there: the connection error, and the spans dropped', async () => {
    const r = await receiver();
    await r.close();
    const log = collect();
    const x = new OtlpExporter(settings(r.url), log.logger);
    x.add(span());
    await x.flush();
    expect(x.dropped).toBe(1);
    expect(log.lines).toEqual([`traces: exporting 1 span(s) to ${r.url} failed (ECONNREFUSED); 1 span(s) dropped so far`]);
  });

  it('a full queue drops the newest spans and counts them', async () => {
    const x = new OtlpExporter(settings('http://127.0.0.1:9/v1/traces', { batch: 3, queue: 3 }), collect().logger);
    // A batch going out holds the queue's first three; while it is in flight, three more fill the queue.
    for (let i = 0; i < 8; i++) x.add(span());
    expect(x.dropped).toBe(2);
    await x.flush();
  });
});
