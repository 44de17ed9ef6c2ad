import type { Dispatcher } from './http.js';
import { request } from './http.js';
import { ENGINE_VERSION_HEADER } from '../version.js';

/** TLS settings for HTTPS endpoints (the incumbent's --insecure-skip-tls-verify and --certificate-authority). */
export interface TlsOptions {
  /** PEM text of the certificate authorities to trust instead of the system store. */
  ca?: string;
  /** false: accept any certificate (--insecure-skip-tls-verify). */
  rejectUnauthorized?: boolean;
}

/** undici's `connect` options for them (merged into the Agent's). */
export const tlsConnect = (tls: TlsOptions | undefined): { ca?: string; rejectUnauthorized?: boolean } => ({
  ...(tls?.ca !== undefined ? { ca: tls.ca } : {}),
  ...(tls?.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
});

/**
 * Why the answer to `GET /v1/version` shows that the endpoint is not this engine, or null when it is (or when that
 * cannot be told: a server that cannot be reached is reported as such elsewhere).
 */
export function notThisEngine(status: number, headers: Record<string, string | string[] | undefined>, text: string): string | null {
  if (status !== 200) return `GET /v1/version answered HTTP ${status}`;
  let version: unknown;
  try {
    version = (JSON.parse(text) as { version?: unknown }).version;
  } catch {
    return 'GET /v1/version did not answer JSON';
  }
  if (typeof version !== 'string') return 'GET /v1/version answered without a version';
  if (headers[ENGINE_VERSION_HEADER.toLowerCase()] === undefined) {
    return `GET /v1/version answered version ${JSON.stringify(version)} without the ${ENGINE_VERSION_HEADER} header: another server, perhaps the incumbent`;
  }
  return null;
}

/** One GET /v1/version (no retry): the reason the endpoint is not this engine, or null. */
export async function identify(endpoint: string, dispatcher: Dispatcher, timeoutMs: number): Promise<string | null> {
  try {
    const res = await request(`${endpoint}/v1/version`, { method: 'GET', dispatcher, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    return notThisEngine(res.statusCode, res.headers, await res.body.text());
  } catch {
    return null;
  }
}

export const NOT_THIS_ENGINE_HINT = "set --endpoint (or ENGINE_GRAPHQL_ENDPOINT, or endpoint in config.yaml) to the base URL of an 'engine serve'";
