import { request } from 'undici';

export interface ServerVersion {
  version: string | null;
  error: { code: string; message: string } | null;
}

/** GET /v1/version; never throws: a missing server is an answer, not a failure. */
export async function fetchServerVersion(endpoint: string, timeoutMs: number): Promise<ServerVersion> {
  try {
    const res = await request(`${endpoint}/v1/version`, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    const text = await res.body.text();
    const body = JSON.parse(text) as { version?: unknown };
    if (res.statusCode === 200 && typeof body.version === 'string') return { version: body.version, error: null };
    return { version: null, error: { code: 'invalid-response', message: `unexpected response: HTTP ${res.statusCode}` } };
  } catch (e) {
    const code = (e as { code?: string }).code;
    const message = code === 'ECONNREFUSED' ? `cannot connect to the engine at ${endpoint} (connection refused)` : e instanceof Error ? e.message : String(e);
    return { version: null, error: { code: 'network-error', message } };
  }
}
