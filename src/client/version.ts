import { Agent, request } from './http.js';
import { notThisEngine, tlsConnect, type TlsOptions } from './identity.js';

export interface ServerVersion {
  version: string | null;
  error: { code: string; message: string } | null;
}

const RETRY_DELAYS = [500, 1000, 2000];
const RETRY_STATUS = new Set([502, 503, 504]);
const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused', ENOTFOUND: 'host not found', EAI_AGAIN: 'host not found',
  ECONNRESET: 'connection reset', EHOSTUNREACH: 'host unreachable', ENETUNREACH: 'host unreachable',
};

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * GET /v1/version, a read: retried on connection errors and 502/503/504 (cli.md §3.6). Never throws: a missing
 * server is an answer for `engine version`, not a failure.
 */
export async function fetchServerVersion(endpoint: string, timeoutMs: number, tls?: TlsOptions): Promise<ServerVersion> {
  const dispatcher = new Agent({ connect: tlsConnect(tls) });
  try {
    return await fetchWith(endpoint, timeoutMs, dispatcher);
  } finally {
    await dispatcher.close();
  }
}

async function fetchWith(endpoint: string, timeoutMs: number, dispatcher: Agent): Promise<ServerVersion> {
  const url = `${endpoint}/v1/version`;
  let last: ServerVersion = { version: null, error: null };
  for (let attempt = 0; attempt <= RETRY_DELAYS.length; attempt++) {
    if (attempt > 0) await wait(RETRY_DELAYS[attempt - 1] as number);
    try {
      const res = await request(url, { method: 'GET', dispatcher, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      const text = await res.body.text();
      if (RETRY_STATUS.has(res.statusCode)) {
        last = { version: null, error: { code: 'invalid-response', message: `unexpected response from ${url}: HTTP ${res.statusCode}` } };
        continue;
      }
      let body: { version?: unknown } | null = null;
      try {
        body = JSON.parse(text) as { version?: unknown };
      } catch {
        body = null;
      }
      const other = notThisEngine(res.statusCode, res.headers, text);
      if (res.statusCode === 200 && body && typeof body.version === 'string' && other === null) return { version: body.version, error: null };
      if (other !== null && (res.statusCode === 200 || res.statusCode === 404)) {
        return { version: null, error: { code: 'invalid-response', message: `${endpoint} is not this engine (${other})` } };
      }
      const shown = text.length > 200 ? `${JSON.stringify(text.slice(0, 200))}…` : text ? JSON.stringify(text) : '(empty body)';
      return { version: null, error: { code: 'invalid-response', message: `unexpected response from ${url}: HTTP ${res.statusCode}: ${shown}` } };
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      const reason = CONNECTION_CODES[code];
      if (!reason) {
        const timedOut = code.startsWith('UND_ERR_') && code.includes('TIMEOUT');
        return timedOut
          ? { version: null, error: { code: 'timeout', message: `the engine at ${endpoint} did not respond within ${Math.round(timeoutMs / 1000)}s` } }
          : { version: null, error: { code: 'network-error', message: `cannot connect to the engine at ${endpoint} (${e instanceof Error ? e.message : String(e)})` } };
      }
      last = { version: null, error: { code: 'network-error', message: `cannot connect to the engine at ${endpoint} (${reason})` } };
      // Nothing listens there: waiting will not make it listen (issue 19).
      if (code === 'ECONNREFUSED') return last;
    }
  }
  return last;
}
