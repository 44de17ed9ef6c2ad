import type { FastifyCorsOptions } from '@fastify/cors';

/**
 * CORS as the incumbent (issue 31.1): `--cors-domain` is `*` (any origin, no credentials) or a comma list of origins
 * with scheme, host and optional port, where a host may start with `*.` for any subdomain; listed origins are
 * echoed with credentials allowed. `--disable-cors` answers no preflight and adds no header.
 */
export type CorsSetting = { disabled: true } | { disabled?: false; origins: '*' | readonly string[] };

export const DEFAULT_CORS: CorsSetting = { origins: '*' };

const ORIGIN = /^(https?):\/\/(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?$/i;

/** The origins of a `--cors-domain` value, or the entry that is not one (as `{ bad }`). */
export function parseCorsDomain(text: string): { origins: '*' | string[] } | { bad: string } {
  const entries = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (entries.length === 0 || (entries.length === 1 && entries[0] === '*')) return { origins: '*' };
  for (const e of entries) if (!ORIGIN.test(e)) return { bad: e };
  return { origins: entries.map((e) => e.toLowerCase()) };
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether an origin matches a listed one: equal, or under a `*.` wildcard. */
function matcher(origin: string): (o: string) => boolean {
  const m = ORIGIN.exec(origin);
  if (!m?.[2]) return (o) => o === origin;
  const port = m[4] ? `:${m[4]}` : '';
  const re = new RegExp(`^${escape(m[1] as string)}://[a-z0-9-]+(?:\\.[a-z0-9-]+)*\\.${escape(m[3] as string)}${escape(port)}$`);
  return (o) => re.test(o);
}

type Delegator = (req: { headers: { origin?: string | undefined } }, cb: (e: Error | null, o: FastifyCorsOptions) => void) => void;

/**
 * The plugin's per-request options: prebuilt objects, chosen by the request's origin (the plugin then adds
 * `Vary: Origin` to every answer). A listed origin is echoed with credentials; any other gets no CORS header and its
 * preflight a 404.
 */
export function corsDelegator(origins: '*' | readonly string[]): Delegator {
  const common = {
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    exposedHeaders: ['X-Request-Id', 'X-Engine-Resource-Version'],
    // The incumbent's value: 20 days.
    maxAge: 1_728_000,
    strictPreflight: false,
  };
  if (origins === '*') {
    const any: FastifyCorsOptions = { ...common, origin: '*', credentials: false };
    return (_req, cb) => cb(null, any);
  }
  const listed: FastifyCorsOptions = { ...common, origin: true, credentials: true };
  const refused: FastifyCorsOptions = { origin: false };
  const tests = origins.map(matcher);
  // An origin seen once is remembered (bounded): the per-request cost is one lookup.
  const known = new Map<string, boolean>();
  return (req, cb) => {
    const origin = req.headers.origin;
    if (origin === undefined) return cb(null, refused);
    let ok = known.get(origin);
    if (ok === undefined) {
      ok = tests.some((t) => t(origin.toLowerCase()));
      if (known.size < 1000) known.set(origin, ok);
    }
    cb(null, ok ? listed : refused);
  };
}
