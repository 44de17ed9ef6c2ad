/**
 * How long an HTTP answer may be reused (RFC 9111, the subset that matters for a JWKS and an auth hook):
 * `no-store`/`no-cache` → not at all, `max-age` wins over `Expires`, neither → `fallbackMs`.
 */
export function freshForMs(headers: Record<string, string | string[] | undefined>, now: number, fallbackMs: number): number {
  const one = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  const cc = (one('cache-control') ?? '').toLowerCase();
  if (/(?:^|[,\s])(?:no-store|no-cache)(?:$|[,\s=])/.test(cc)) return 0;
  const maxAge = /(?:^|[,\s])max-age\s*=\s*"?(\d+)"?/.exec(cc);
  if (maxAge) return Math.min(Number(maxAge[1]), 365 * 24 * 3600) * 1000;
  const expires = one('expires');
  if (expires !== undefined) {
    const at = Date.parse(expires);
    return Number.isNaN(at) ? 0 : Math.max(0, at - now);
  }
  return fallbackMs;
}
