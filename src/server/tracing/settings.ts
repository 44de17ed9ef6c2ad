import { CliError } from '../../errors.js';

/**
 * What turns traces on (issue 31.4) and how they are exported: the OpenTelemetry SDK's standard variables, read by
 * `engine serve` (src/project/config) before anything of tracing is loaded. The engine's own names come first.
 */
export interface TraceSettings {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  endpoint: string;
  /** Sent with each export (an API key of a hosted backend): never logged. */
  headers: Record<string, string>;
  /** Resource attributes; `service.name` among them. */
  resource: Record<string, string>;
  /** Share of new traces recorded (0 to 1); a request that sends a traceparent follows its sampled flag unless `parentBased` is false. */
  ratio: number;
  parentBased: boolean;
  /** The batch span processor: export every `delayMs`, at most `batch` spans a request, at most `queue` waiting. */
  delayMs: number;
  batch: number;
  queue: number;
  timeoutMs: number;
}

type Lookup = (name: string) => string | undefined;

/** The value is not repeated: an endpoint's URL or a header may hold a key. */
function invalid(variable: string, reason: string): CliError {
  return new CliError('config-invalid', `invalid value for ${variable}: ${reason}`, 1);
}

function first(get: Lookup, names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = get(name)?.trim();
    if (value !== undefined && value !== '') return { name, value };
  }
  return undefined;
}

/** `k=v,k2=v2`, URL-encoded values (the OTLP exporter specification's format for headers and resource attributes). */
function pairs(get: Lookup, names: string[]): Record<string, string> {
  const v = first(get, names);
  const out: Record<string, string> = {};
  if (!v) return out;
  for (const part of v.value.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? '' : part.slice(0, eq).trim();
    if (key === '') throw invalid(v.name, 'expected a comma list of key=value');
    try {
      out[key] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      throw invalid(v.name, `the value of "${key}" is not URL-encoded`);
    }
  }
  return out;
}

function count(get: Lookup, name: string, dflt: number, min: number): number {
  const v = get(name)?.trim();
  if (v === undefined || v === '') return dflt;
  if (!/^\d+$/.test(v) || Number(v) < min) throw invalid(name, `expected an integer ≥ ${min}`);
  return Number(v);
}

function httpUrl(name: string, value: string): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw invalid(name, 'expected an http or https URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalid(name, 'expected an http or https URL');
  return u;
}

/** The traces endpoint: a signal URL as given, or a base URL with `v1/traces` appended (as the OTLP exporters do). */
function endpoint(get: Lookup): string | undefined {
  const own = first(get, ['ENGINE_GRAPHQL_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
  if (own) return httpUrl(own.name, own.value).toString();
  const base = first(get, ['ENGINE_GRAPHQL_OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']);
  if (!base) return undefined;
  const u = httpUrl(base.name, base.value);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/v1/traces`;
  return u.toString();
}

function sampler(get: Lookup): { ratio: number; parentBased: boolean } {
  const name = (get('OTEL_TRACES_SAMPLER') ?? '').trim() || 'parentbased_always_on';
  const arg = get('OTEL_TRACES_SAMPLER_ARG')?.trim();
  const ratio = (): number => {
    if (arg === undefined || arg === '') return 1;
    const r = Number(arg);
    if (!Number.isFinite(r) || r < 0 || r > 1) throw invalid('OTEL_TRACES_SAMPLER_ARG', 'expected a number from 0 to 1');
    return r;
  };
  switch (name) {
    case 'always_on': return { ratio: 1, parentBased: false };
    case 'always_off': return { ratio: 0, parentBased: false };
    case 'traceidratio': return { ratio: ratio(), parentBased: false };
    case 'parentbased_always_on': return { ratio: 1, parentBased: true };
    case 'parentbased_always_off': return { ratio: 0, parentBased: true };
    case 'parentbased_traceidratio': return { ratio: ratio(), parentBased: true };
    default: throw invalid('OTEL_TRACES_SAMPLER', 'expected always_on, always_off, traceidratio or their parentbased_ forms');
  }
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Undefined when traces are off: no endpoint, or OTEL_SDK_DISABLED=true. */
export function resolveTraceSettings(get: Lookup, serviceVersion: string): TraceSettings | undefined {
  if ((get('OTEL_SDK_DISABLED') ?? '').trim().toLowerCase() === 'true') return undefined;
  const url = endpoint(get);
  if (url === undefined) return undefined;
  const protocol = first(get, ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']);
  if (protocol && protocol.value !== 'http/json') {
    throw invalid(protocol.name, 'the engine exports traces as OTLP/HTTP JSON only: expected http/json (or unset)');
  }
  // fetch refuses a URL with user info: it goes as Basic authentication, unless the headers set their own.
  const u = new URL(url);
  const headers = pairs(get, ['OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'OTEL_EXPORTER_OTLP_HEADERS']);
  if (u.username !== '' || u.password !== '') {
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) {
      headers['authorization'] = `Basic ${Buffer.from(`${decoded(u.username)}:${decoded(u.password)}`).toString('base64')}`;
    }
    u.username = '';
    u.password = '';
  }
  const resource = { 'service.name': 'engine', 'service.version': serviceVersion, ...pairs(get, ['OTEL_RESOURCE_ATTRIBUTES']) };
  const service = get('OTEL_SERVICE_NAME')?.trim();
  if (service) resource['service.name'] = service;
  const timeout = first(get, ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT']);
  const batch = count(get, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1);
  return {
    endpoint: u.toString(),
    headers,
    resource,
    ...sampler(get),
    delayMs: count(get, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 1),
    batch,
    queue: Math.max(batch, count(get, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1)),
    timeoutMs: timeout ? count(get, timeout.name, 10_000, 1) : 10_000,
  };
}

/** The endpoint as logs show it: no user info, query or fragment. */
export function shownEndpoint(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}
