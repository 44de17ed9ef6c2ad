import type { Logger } from '../../logger.js';
import { probes } from '../../probes.js';
import { OtlpExporter } from './exporter.js';
import type { TraceSettings } from './settings.js';
import { Tracer } from './tracer.js';

/**
 * Traces over OTLP/HTTP (issue 31.4), loaded by `engine serve` only when an endpoint is configured: the CLI's other
 * commands, `engine --version` among them, never import this folder. The official SDK
 * (@opentelemetry/sdk-trace-base with @opentelemetry/exporter-trace-otlp-http) is not a dependency: this is its
 * batch processor and JSON exporter in small, behind the same variables.
 */

export { tracedDatabase } from './database.js';
export { resolveTraceSettings, shownEndpoint, type TraceSettings } from './settings.js';
export { parseTraceparent, traceparent } from './span.js';

export interface Tracing {
  tracer: Tracer;
  exporter: OtlpExporter;
  /** Stops tracing new work and sends the spans still queued. */
  stop(): Promise<void>;
}

export function startTracing(settings: TraceSettings, logger: Logger): Tracing {
  const exporter = new OtlpExporter(settings, logger);
  const tracer = new Tracer(exporter, settings);
  probes.tracer = tracer;
  return {
    tracer, exporter,
    async stop() {
      if (probes.tracer === tracer) delete probes.tracer;
      await exporter.flush();
    },
  };
}
