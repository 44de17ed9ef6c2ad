import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, RequestListener } from 'node:http';
import type { SpanAttributes, SpanHandle, SpanKind, SpanParent, TraceProbe } from '../../probes.js';
import type { OtlpExporter } from './exporter.js';
import type { TraceSettings } from './settings.js';
import { newSpanId, newTraceId, parseTraceparent, Span, traceparent, type SpanContext } from './span.js';

/** What a span not sampled offers: nothing is recorded, its context still propagates (flag 00). */
const unrecorded: SpanHandle = { set() {}, fail() {} };

/**
 * The spans of issue 31.4. The current span follows the asynchronous work it started (AsyncLocalStorage), so that a
 * statement or an outbound call made anywhere under a request is its child without being handed the span.
 */
export class Tracer implements TraceProbe {
  private readonly current = new AsyncLocalStorage<Span>();
  private readonly requests = new WeakMap<IncomingMessage, Span>();

  constructor(private readonly exporter: OtlpExporter, private readonly sampling: Pick<TraceSettings, 'ratio' | 'parentBased'>) {}

  private sampled(parent: SpanContext | null): boolean {
    if (parent && this.sampling.parentBased) return parent.sampled;
    return this.sampling.ratio >= 1 || (this.sampling.ratio > 0 && Math.random() < this.sampling.ratio);
  }

  /** A new span under `parent` (a local span or a remote context), or the first of a new trace. */
  private open(name: string, kind: SpanKind, attributes: SpanAttributes, parent: SpanContext | null): Span {
    const ctx: SpanContext = parent
      ? { traceId: parent.traceId, spanId: newSpanId(), sampled: this.sampled(parent), ...(parent.traceState ? { traceState: parent.traceState } : {}) }
      : { traceId: newTraceId(), spanId: newSpanId(), sampled: this.sampled(null) };
    return new Span(ctx, parent?.spanId, name, kind, attributes);
  }

  private close(span: Span): void {
    if (span.ended) return;
    span.end = performance.now();
    if (span.ctx.sampled) this.exporter.add(span);
  }

  async span<T>(name: string, kind: SpanKind, attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>, parent: SpanParent = 'any'): Promise<T> {
    const up = parent === 'root' ? undefined : this.current.getStore();
    // A statement under no request (a worker's claim), or under a request already answered, is no one's child.
    if (parent === 'child' && (!up || up.ended)) return fn(unrecorded);
    const span = this.open(name, kind, attributes, up?.ctx ?? null);
    return this.current.run(span, async () => {
      try {
        return await fn(span.ctx.sampled ? span : unrecorded);
      } catch (e) {
        span.fail(e instanceof Error ? e.message : String(e));
        throw e;
      } finally {
        this.close(span);
      }
    });
  }

  sync<T>(name: string, attributes: SpanAttributes, fn: (span: SpanHandle) => T): T {
    const up = this.current.getStore();
    if (!up || up.ended || !up.ctx.sampled) return fn(unrecorded);
    const span = this.open(name, 'internal', attributes, up.ctx);
    try {
      return fn(span);
    } catch (e) {
      span.fail(e instanceof Error ? e.message : String(e));
      throw e;
    } finally {
      this.close(span);
    }
  }

  annotate(attributes: SpanAttributes): void {
    const span = this.current.getStore();
    if (span && !span.ended) span.set(attributes);
  }

  outbound(): { traceparent: string; tracestate?: string } | undefined {
    const span = this.current.getStore();
    if (!span) return undefined;
    return { traceparent: traceparent(span.ctx), ...(span.ctx.traceState ? { tracestate: span.ctx.traceState } : {}) };
  }

  serve(handler: RequestListener): RequestListener {
    return (req, res) => {
      const h = req.headers;
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const method = req.method ?? 'GET';
      // The query string is left out: it may carry values (a REST endpoint's arguments).
      const span = this.open(method, 'server', {
        'http.request.method': method, 'url.path': q < 0 ? url : url.slice(0, q), 'url.scheme': 'http',
        'network.protocol.version': req.httpVersion, 'client.address': req.socket.remoteAddress,
        'user_agent.original': typeof h['user-agent'] === 'string' ? h['user-agent'] : undefined,
      }, parseTraceparent(h.traceparent, h.tracestate));
      this.requests.set(req, span);
      // 'close' comes after the answer is sent, or when the client went away first.
      res.once('close', () => {
        span.set({ 'http.response.status_code': res.statusCode });
        if (!res.writableFinished) span.fail('the connection closed before the answer was sent');
        else if (res.statusCode >= 500) span.fail(`HTTP ${res.statusCode}`);
        this.close(span);
      });
      this.current.run(span, () => handler(req, res));
    };
  }

  request(req: IncomingMessage, name: string, attributes: SpanAttributes): void {
    const span = this.requests.get(req);
    if (!span) return;
    span.name = name;
    span.set(attributes);
  }

  traceOf(req: IncomingMessage): string | undefined {
    const span = this.requests.get(req);
    return span?.ctx.sampled ? span.ctx.traceId : undefined;
  }
}
