import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { eventually } from '../helpers/webhook.js';
import { tempDir } from './cli-helpers.js';
import { externalDatabase, finished, run, serve, stopAll } from './process-helpers.js';

// Issue 31.4: `engine serve` with OTEL_EXPORTER_OTLP_ENDPOINT exports its spans to a receiver of the test's own; a bad
// setting stops it before anything starts; nothing of tracing is loaded unless it is on.

afterEach(stopAll);

const KEY = 'otlp-key-52be07';

async function database(cwd: string): Promise<string[]> {
  return EXTERNAL_URL ? ['--database-url', await externalDatabase('engine_traces')] : ['--data-dir', `${cwd}/data`];
}

async function receiver(): Promise<{ url: string; posts: { path: string; key: unknown; body: string }[]; close: () => Promise<void> }> {
  const posts: { path: string; key: unknown; body: string }[] = [];
  const s: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => {
      posts.push({ path: req.url ?? '', key: req.headers['x-api-key'], body });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(s.address() as { port: number }).port}`, posts, close: () => new Promise((r) => s.close(() => r())) };
}

describe('engine serve with traces', () => {
  it('exports each request\'s spans to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces with OTEL_EXPORTER_OTLP_HEADERS; says so at start-up, without the key', async () => {
    const r = await receiver();
    try {
      const cwd = await tempDir();
      const { p, url } = await serve(cwd, [...await database(cwd), '--log-format', 'json'], {
        OTEL_EXPORTER_OTLP_ENDPOINT: r.url.replace('http://', `http://user:${KEY}@`), OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${KEY}`,
        OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'my-engine',
      });
      const traceId = '0af7651916cd43dd8448eb211c80319c';
      const res = await fetch(`${url}/v1/version`, { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } });
      expect(res.status).toBe(200);
      const sent = await eventually(() => r.posts.find((x) => x.body.includes(traceId)), 15_000, 'the request\'s span');
      expect(sent.path).toBe('/v1/traces');
      expect(sent.key).toBe(KEY);
      const body = JSON.parse(sent.body) as { resourceSpans: { resource: { attributes: unknown[] }; scopeSpans: { spans: { name: string; traceId: string; parentSpanId?: string }[] }[] }[] };
      expect(body.resourceSpans[0]?.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'my-engine' } });
      const span = body.resourceSpans.flatMap((x) => x.scopeSpans.flatMap((s) => s.spans)).find((s) => s.traceId === traceId);
      expect(span).toMatchObject({ name: 'GET /v1/version', parentSpanId: 'b7ad6b7169203331' });
      const lines = () => p.out().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type: string; detail: Record<string, unknown> });
      // Lines are written in chunks (at least every 100 ms): read until the start-up line is there.
      const startup = await eventually(() => lines().find((d) => d.type === 'startup'), 10_000, 'the startup line');
      expect(startup.detail['traces']).toEqual({ endpoint: `${r.url}/v1/traces`, service_name: 'my-engine' });
      // The request's http-log line names its trace.
      const logged = await eventually(() => lines().find((d) => d.type === 'http-log' && d.detail['path'] === '/v1/version'), 10_000, 'the http-log line');
      expect(logged.detail['trace_id']).toBe(traceId);
      expect((await post(`${url}/v1/graphql`, { query: '{ __typename }' })).status).toBe(200);
      expect(p.out() + p.err()).not.toContain(KEY);
    } finally {
      await r.close();
    }
  }, 90_000);

  it('refuses a bad setting before starting: exit 1, config-invalid, the value not repeated', async () => {
    const cwd = await tempDir();
    const p = run(['serve', '--port', '0', '--data-dir', `${cwd}/data`], cwd, { OTEL_EXPORTER_OTLP_ENDPOINT: `ftp://${KEY}@collector` });
    expect(await finished(p)).toBe(1);
    expect(p.err()).toContain('invalid value for OTEL_EXPORTER_OTLP_ENDPOINT: expected an http or https URL');
    expect(p.out() + p.err()).not.toContain(KEY);
  });
});

describe('the bundle', () => {
  it('loads tracing only through a dynamic import: no chunk the CLI imports statically holds it', () => {
    const dir = fileURLToPath(new URL('../../dist/bundle/', import.meta.url));
    const files = readdirSync(dir).filter((f) => f.endsWith('.js'));
    const text = (f: string) => readFileSync(join(dir, f), 'utf8');
    // The chunk of src/server/tracing: the only one that imports the OpenTelemetry SDK (kept outside the bundle).
    const holder = files.filter((f) => text(f).includes('@opentelemetry/sdk-trace-base'));
    expect(holder).toHaveLength(1);
    // The chunks main.js loads before running anything: its static imports, and theirs.
    const seen = new Set<string>();
    const walk = (f: string): void => {
      if (seen.has(f)) return;
      seen.add(f);
      for (const m of text(f).matchAll(/^import\s*(?:[^'"]*?from\s*)?["']\.\/([^"']+)["'];?$/gm)) walk(m[1] as string);
    };
    walk('main.js');
    expect(seen.size).toBeGreaterThan(1);
    expect([...seen].filter((f) => holder.includes(f))).toEqual([]);
  });
});
