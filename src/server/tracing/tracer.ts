import type { IncomingMessage, RequestListener } from 'node:http';
import {
  context, defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, SpanKind as OtelKind, SpanStatusCode, trace, TraceFlags,
  type Attributes, type Span, type Tracer as OtelTracer,
} from '@opentelemetry/api';
import { hrTime, W3CTraceContextPropagator } from '@opentelemetry/core';
import type { SpanAttributes, SpanHandle, SpanKind, SpanParent, TraceProbe } from '../../probes.js';

/** What a span not recorded offers: nothing is kept; its context still propagates (flag 00). */
const unrecorded: SpanHandle = { set() {}, fail() {} };

const KINDS: Record<SpanKind, OtelKind> = { internal: OtelKind.INTERNAL, server: OtelKind.SERVER, client: OtelKind.CLIENT, consumer: OtelKind.CONSUMER };

/** Attributes without the absent ones (the engine's callers pass `undefined` for what a request lacks). */
function attributes(a: SpanAttributes): Attributes {
  const out: Attributes = {};
  for (const k in a) {
    const v = a[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The spans of issue 31.4 on the OpenTelemetry SDK. The current span follows the asynchronous work it started (the
 * SDK's AsyncLocalStorage context manager, enabled by startTracing), so that a statement or an outbound call made
 * anywhere under a request is its child without being handed the span.
 */
export class Tracer implements TraceProbe {
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly requests = new WeakMap<IncomingMessage, Span>();
  /** Spans this tracer ended: work still running under an answered request makes no child of it. */
  private readonly ended = new WeakSet<Span>();

  constructor(private readonly tracer: OtelTracer) {}

  private handle(span: Span): SpanHandle {
    if (!span.isRecording()) return unrecorded;
    return { set: (a) => span.setAttributes(attributes(a)), fail: (m) => span.setStatus({ code: SpanStatusCode.ERROR, message: m }) };
  }

  /**
   * Span times (here and at each start) come from one clock, the process's performance timeline: the SDK's own start
   * time is each span's Date.now(), whole milliseconds, so a child could seem to start before or end after its parent.
   */
  private end(span: Span): void {
    if (this.ended.has(span)) return;
    this.ended.add(span);
    span.end(hrTime());
  }

  async span<T>(name: string, kind: SpanKind, attrs: SpanAttributes, fn: (span: SpanHandle) => Promise<T>, parent: SpanParent = 'any'): Promise<T> {
    const up = parent === 'root' ? ROOT_CONTEXT : context.active();
    // A statement under no request (a worker's claim), or under a request already answered, is no one's child.
    if (parent === 'child') {
      const current = trace.getSpan(up);
      if (!current || this.ended.has(current)) return fn(unrecorded);
    }
    const span = this.tracer.startSpan(name, { kind: KINDS[kind], attributes: attributes(attrs), startTime: hrTime() }, up);
    return context.with(trace.setSpan(up, span), async () => {
      try {
        return await fn(this.handle(span));
      } catch (e) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: message(e) });
        throw e;
      } finally {
        this.end(span);
      }
    });
  }

  sync<T>(name: string, attrs: SpanAttributes, fn: (span: SpanHandle) => T): T {
    const up = context.active();
    const current = trace.getSpan(up);
    if (!current || this.ended.has(current) || !current.isRecording()) return fn(unrecorded);
    const span = this.tracer.startSpan(name, { kind: OtelKind.INTERNAL, attributes: attributes(attrs), startTime: hrTime() }, up);
    try {
      return fn(this.handle(span));
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: message(e) });
      throw e;
    } finally {
      this.end(span);
    }
  }

  annotate(attrs: SpanAttributes): void {
    const span = trace.getSpan(context.active());
    if (span && !this.ended.has(span)) span.setAttributes(attributes(attrs));
  }

  outbound(): { traceparent: string; tracestate?: string } | undefined {
    const active = context.active();
    if (!trace.getSpan(active)) return undefined;
    const carrier: Record<string, string> = {};
    this.propagator.inject(active, carrier, defaultTextMapSetter);
    const { traceparent, tracestate } = carrier;
    if (traceparent === undefined) return undefined;
    return { traceparent, ...(tracestate ? { tracestate } : {}) };
  }

  serve(handler: RequestListener): RequestListener {
    return (req, res) => {
      const h = req.headers;
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const method = req.method ?? 'GET';
      // The client's trace context, when it sends a valid one (W3C trace context); otherwise a trace of its own.
      const up = this.propagator.extract(ROOT_CONTEXT, h, defaultTextMapGetter);
      // The query string is left out: it may carry values (a REST endpoint's arguments).
      const span = this.tracer.startSpan(method, {
        kind: OtelKind.SERVER,
        startTime: hrTime(),
        attributes: attributes({
          'http.request.method': method, 'url.path': q < 0 ? url : url.slice(0, q), 'url.scheme': 'http',
          'network.protocol.version': req.httpVersion, 'client.address': req.socket.remoteAddress,
          'user_agent.original': typeof h['user-agent'] === 'string' ? h['user-agent'] : undefined,
        }),
      }, up);
      this.requests.set(req, span);
      // 'close' comes after the answer is sent, or when the client went away first.
      res.once('close', () => {
        span.setAttribute('http.response.status_code', res.statusCode);
        if (!res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the answer was sent' });
        else if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${res.statusCode}` });
        this.end(span);
      });
      context.with(trace.setSpan(up, span), () => handler(req, res));
    };
  }

  request(req: IncomingMessage, name: string, attrs: SpanAttributes): void {
    const span = this.requests.get(req);
    if (!span) return;
    span.updateName(name);
    span.setAttributes(attributes(attrs));
  }

  traceOf(req: IncomingMessage): string | undefined {
    const c = this.requests.get(req)?.spanContext();
    return c && (c.traceFlags & TraceFlags.SAMPLED) !== 0 ? c.traceId : undefined;
  }
}
