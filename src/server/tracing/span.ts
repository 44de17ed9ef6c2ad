import { randomFillSync } from 'node:crypto';
import type { SpanAttributes, SpanHandle, SpanKind } from '../../probes.js';

/** A span's identity as W3C trace context carries it (https://www.w3.org/TR/trace-context/). */
export interface SpanContext {
  traceId: string;
  spanId: string;
  sampled: boolean;
  traceState?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** A `traceparent` header's context; null when absent or malformed (the request then starts a new trace). */
export function parseTraceparent(header: string | string[] | undefined, tracestate?: string | string[]): SpanContext | null {
  if (typeof header !== 'string') return null;
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  // Version ff is invalid; version 00 has nothing after the flags; later versions may (and are read as 00).
  if (version === 'ff' || (version === '00' && rest !== undefined) || traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  const state = Array.isArray(tracestate) ? tracestate.join(',') : tracestate;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1, ...(state ? { traceState: state } : {}) };
}

export const traceparent = (c: SpanContext): string => `00-${c.traceId}-${c.spanId}-${c.sampled ? '01' : '00'}`;

/** Random ids from a pool refilled 4 KB at a time: one system call per 256 spans rather than one per id. */
const pool = Buffer.alloc(4096);
let offset = pool.length;

function randomHex(bytes: number): string {
  for (;;) {
    if (offset + bytes > pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    const hex = pool.toString('hex', offset, offset + bytes);
    offset += bytes;
    // An all-zero id is invalid.
    if (!/^0+$/.test(hex)) return hex;
  }
}

export const newTraceId = (): string => randomHex(16);
export const newSpanId = (): string => randomHex(8);

/** Wall-clock nanoseconds of a performance.now() reading, as OTLP wants them (a decimal string: beyond 2^53). */
const originNs = BigInt(Math.round(performance.timeOrigin * 1000)) * 1000n;
const nanos = (perfMs: number): string => (originNs + BigInt(Math.round(perfMs * 1e6))).toString();

const KINDS: Record<SpanKind, number> = { internal: 1, server: 2, client: 3, consumer: 5 };

/** Attribute values longer than this are cut (a statement's SQL): a span stays a few KB at most. */
const MAX_VALUE = 4096;

export class Span implements SpanHandle {
  readonly start = performance.now();
  end = -1;
  private readonly attributes: SpanAttributes;
  private error: string | null = null;

  constructor(readonly ctx: SpanContext, readonly parentSpanId: string | undefined, public name: string, readonly kind: SpanKind, attributes: SpanAttributes) {
    this.attributes = { ...attributes };
  }

  get ended(): boolean {
    return this.end >= 0;
  }

  set(attributes: SpanAttributes): void {
    Object.assign(this.attributes, attributes);
  }

  fail(message: string): void {
    this.error = message;
  }

  /** The span in OTLP/JSON (ids as hex, enums as numbers, times as decimal strings). */
  toOtlp(): object {
    const attributes = [];
    for (const [key, v] of Object.entries(this.attributes)) {
      if (v === undefined) continue;
      const value = typeof v === 'string' ? { stringValue: v.length > MAX_VALUE ? `${v.slice(0, MAX_VALUE)}…` : v }
        : typeof v === 'boolean' ? { boolValue: v }
        : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
      attributes.push({ key, value });
    }
    return {
      traceId: this.ctx.traceId, spanId: this.ctx.spanId, ...(this.parentSpanId ? { parentSpanId: this.parentSpanId } : {}),
      ...(this.ctx.traceState ? { traceState: this.ctx.traceState } : {}),
      name: this.name, kind: KINDS[this.kind], startTimeUnixNano: nanos(this.start), endTimeUnixNano: nanos(this.end), attributes,
      status: this.error === null ? { code: 0 } : { code: 2, message: this.error },
    };
  }
}
