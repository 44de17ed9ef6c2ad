import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { loggingErrorHandler, setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../../logger.js';
import { probes } from '../../probes.js';
import { VERSION } from '../../version.js';
import { shownEndpoint, type TraceSettings } from './settings.js';
import { Tracer } from './tracer.js';

/**
 * Traces over OTLP/HTTP (issue 31.4) on the OpenTelemetry SDK (its batch span processor and OTLP/HTTP JSON exporter),
 * loaded by `engine serve` only when an endpoint is configured: the CLI's other commands, `engine --version` among
 * them, never import this folder.
 */

export { tracedDatabase } from './database.js';
export { resolveTraceSettings, shownEndpoint, type TraceSettings } from './settings.js';

export interface Tracing {
  tracer: Tracer;
  /** Sends the spans ended so far. */
  flush(): Promise<void>;
  /** Stops tracing new work and sends the spans still queued. */
  stop(): Promise<void>;
}

/** Export failures are logged at most this often: a receiver that is down does not flood the log. */
const WARN_EVERY_MS = 60_000;

/** Attribute values longer than this are cut (a statement's SQL): a span stays a few KB at most. */
const MAX_VALUE = 4096;

function sampler(s: TraceSettings): Sampler {
  const root = s.ratio >= 1 ? new AlwaysOnSampler() : s.ratio <= 0 ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(s.ratio);
  return s.parentBased ? new ParentBasedSampler({ root }) : root;
}

/** Why an export failed, without the endpoint's query string or headers (they may hold a key). */
function why(e: unknown): string {
  const x = e as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  if (typeof x.cause?.code === 'string') return x.cause.code;
  if (typeof x.code === 'string') return x.code;
  if (typeof x.code === 'number') return `HTTP ${x.code}`;
  return typeof x.message === 'string' ? x.message : String(e);
}

export function startTracing(settings: TraceSettings, logger: Logger): Tracing {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  let lastWarning = -Infinity;
  const failed = (e: unknown): void => {
    const now = performance.now();
    if (now - lastWarning < WARN_EVERY_MS) return;
    lastWarning = now;
    logger.warn(`traces: exporting spans to ${shownEndpoint(settings.endpoint)} failed (${why(e)}); spans are dropped until it answers`);
  };
  // The batch processor reports a failed scheduled export here; the last flush at a stop rejects instead (below).
  setGlobalErrorHandler(failed);
  const exporter = new OTLPTraceExporter({ url: settings.endpoint, headers: settings.headers, timeoutMillis: settings.timeoutMs });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(settings.resource),
    sampler: sampler(settings),
    spanLimits: { attributeValueLengthLimit: MAX_VALUE },
    spanProcessors: [new BatchSpanProcessor(exporter, {
      maxQueueSize: settings.queue, maxExportBatchSize: Math.min(settings.batch, settings.queue), scheduledDelayMillis: settings.delayMs,
      exportTimeoutMillis: settings.timeoutMs,
    })],
  });
  const tracer = new Tracer(provider.getTracer('engine', VERSION));
  probes.tracer = tracer;
  return {
    tracer,
    flush: () => provider.forceFlush().catch(failed),
    async stop() {
      if (probes.tracer === tracer) probes.tracer = undefined;
      await provider.shutdown().catch(failed);
      setGlobalErrorHandler(loggingErrorHandler());
      context.disable();
    },
  };
}
