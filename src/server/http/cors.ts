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

/** The part of a reply the CORS step writes: headers, and for an answered preflight the status and an empty body. */
export interface CorsReply {
  header(name: string, value: string): unknown;
}

/**
 * The CORS step of every request, run inside the server's one `onRequest` hook: headers prebuilt once, so that a
 * request costs a few header writes (the plugin, @fastify/cors, rebuilt its options per request and cost 7–25 % of a
 * cheap request on the peer benchmark: docs/decisions.md). Returns true when the request was a preflight it answered
 * (the caller sends 204); a preflight from an origin that is not listed falls through to the 404 of an unknown route.
 * A request without `Origin` (not from a browser's page on another origin) gets no CORS header, as the incumbent's
 * middleware passes it by; `Vary: Origin` is on every answer to one with it.
 */
export function corsStep(origins: '*' | readonly string[]): (origin: string | undefined, method: string, requestHeaders: string | undefined, reply: CorsReply) => boolean {
  const preflight = (reply: CorsReply, requestHeaders: string | undefined): true => {
    reply.header('access-control-allow-methods', METHODS);
    if (requestHeaders !== undefined) reply.header('access-control-allow-headers', requestHeaders);
    reply.header('vary', 'Origin, Access-Control-Request-Headers');
    reply.header('access-control-max-age', MAX_AGE);
    return true;
  };
  if (origins === '*') {
    return (origin, method, requestHeaders, reply) => {
      if (origin === undefined) return false;
      reply.header('vary', 'Origin');
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', EXPOSED);
      return method === 'OPTIONS' && preflight(reply, requestHeaders);
    };
  }
  const tests = origins.map(matcher);
  // An origin seen once is remembered (bounded): the per-request cost is one lookup.
  const known = new Map<string, boolean>();
  return (origin, method, requestHeaders, reply) => {
    if (origin === undefined) return false;
    reply.header('vary', 'Origin');
    let ok = known.get(origin);
    if (ok === undefined) {
      ok = tests.some((t) => t(origin.toLowerCase()));
      if (known.size < 1000) known.set(origin, ok);
    }
    if (!ok) return false;
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-credentials', 'true');
    reply.header('access-control-expose-headers', EXPOSED);
    return method === 'OPTIONS' && preflight(reply, requestHeaders);
  };
}

const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const EXPOSED = 'X-Request-Id, X-Engine-Resource-Version';
// The incumbent's value: 20 days.
const MAX_AGE = '1728000';
