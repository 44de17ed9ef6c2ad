import type { Logger } from '../../logger.js';
import { VERSION } from '../../version.js';
import { shownEndpoint, type TraceSettings } from './settings.js';
import type { Span } from './span.js';

/** Export failures are logged at most this often: a receiver that is down does not flood the log. */
const WARN_EVERY_MS = 60_000;

/**
 * The batch span processor and OTLP/HTTP JSON exporter of the OpenTelemetry SDK, in small: ended spans wait in a
 * bounded queue (spans beyond it are dropped and counted), and go out every `delayMs`, or as soon as a batch is full,
 * one request at a time. Requests are POSTs of ExportTraceServiceRequest as JSON
 * (https://opentelemetry.io/docs/specs/otlp/#otlphttp); a failed export is dropped, as the SDK's is.
 */
export class OtlpExporter {
  private queue: Span[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | null = null;
  private readonly resource: object;
  private lastWarning = -Infinity;
  /** Spans lost: the queue was full, or their export failed. */
  dropped = 0;
  exported = 0;

  constructor(private readonly settings: TraceSettings, private readonly logger: Logger) {
    this.resource = { attributes: Object.entries(settings.resource).map(([key, v]) => ({ key, value: { stringValue: v } })) };
  }

  add(span: Span): void {
    if (this.queue.length >= this.settings.queue) {
      this.dropped++;
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= this.settings.batch) this.send();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.send(), this.settings.delayMs);
      // Waiting spans never keep a stopping process alive: the stop flushes them.
      this.timer.unref();
    }
  }

  /** Sends everything queued now (a stop): resolves when every request has ended, sent or not. */
  async flush(): Promise<void> {
    while (this.sending || this.queue.length > 0) {
      if (!this.sending) this.send();
      await this.sending;
    }
  }

  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.sending || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.settings.batch);
    this.sending = this.post(batch).finally(() => {
      this.sending = null;
      if (this.queue.length >= this.settings.batch) this.send();
      else if (this.queue.length > 0 && !this.timer) {
        this.timer = setTimeout(() => this.send(), this.settings.delayMs);
        this.timer.unref();
      }
    });
  }

  private async post(batch: Span[]): Promise<void> {
    const body = JSON.stringify({
      resourceSpans: [{ resource: this.resource, scopeSpans: [{ scope: { name: 'engine', version: VERSION }, spans: batch.map((s) => s.toOtlp()) }] }],
    });
    try {
      const res = await fetch(this.settings.endpoint, {
        method: 'POST', headers: { ...this.settings.headers, 'content-type': 'application/json' }, body,
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      // The answer's body (a partial success, an error status) is read so that the connection is reused.
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      this.exported += batch.length;
    } catch (e) {
      this.dropped += batch.length;
      const now = performance.now();
      if (now - this.lastWarning >= WARN_EVERY_MS) {
        this.lastWarning = now;
        const cause = (e as { cause?: { code?: unknown } }).cause?.code;
        const why = e instanceof Error ? (e.name === 'TimeoutError' ? `no answer within ${this.settings.timeoutMs} ms` : typeof cause === 'string' ? cause : e.message) : String(e);
        this.logger.warn(`traces: exporting ${batch.length} span(s) to ${shownEndpoint(this.settings.endpoint)} failed (${why}); ${this.dropped} span(s) dropped so far`);
      }
    }
  }
}
