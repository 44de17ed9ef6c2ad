// Load by autocannon against one GraphQL endpoint. GraphQL errors are HTTP 200, and autocannon counts only non-2xx:
// a sample request is checked first (an errors body → the figure is "n/a (error: …)", no load is run), and during the
// run every body is checked too (verifyBody: a body with "errors" counts as a mismatch, not a success).
import autocannon from 'autocannon';

/**
 * A query: `body(i)` gives the JSON request body and `headers(i)` the extra headers of the i-th request of a
 * connection, so that a run can spread over rows (i is random).
 */
export function request(q, rnd) {
  const i = rnd();
  return { body: JSON.stringify(q.body(i)), headers: { 'content-type': 'application/json', ...(q.headers?.(i) ?? {}) } };
}

// Anywhere in the body: PostGraphile puts a field's errors after the data (partial success), at the end of a long list.
const isError = (text) => text.includes('"errors":[');

/** One request; null when it answered data, otherwise the error (first message, shortened). */
export async function sampleError(url, q) {
  const { body, headers } = request(q, () => 1);
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  if (res.status === 200 && !isError(text)) return null;
  let msg = text;
  try {
    const j = JSON.parse(text);
    msg = j.errors?.[0] ? `${j.errors[0].extensions?.code ? `${j.errors[0].extensions.code}: ` : ''}${j.errors[0].message}` : text;
  } catch {
    // not JSON: the text itself
  }
  return `HTTP ${res.status}, ${msg}`.slice(0, 160);
}

function percentile(sorted, p) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/**
 * Runs `q` against `url` for `seconds` at `connections`, after `warmup` seconds unmeasured. Returns successful
 * requests/s, p50/p99 latency in ms (over every response, to 0.001 ms: autocannon's own histogram is whole ms) and
 * the count of failed requests (error bodies, non-2xx, socket errors).
 */
export async function load(url, q, { seconds, warmup, connections, measured }) {
  const once = async (duration, latencies) => {
    const rnd = q.random ?? (() => 1);
    const inst = autocannon({
      url, method: 'POST', connections, duration,
      requests: [{ setupRequest: (req) => ({ ...req, method: 'POST', ...request(q, rnd) }) }],
      verifyBody: (text) => !isError(text),
    });
    if (latencies) inst.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
    return inst;
  };
  if (warmup > 0) await once(warmup, null);
  const latencies = [];
  // `measured` (optional) brackets the measured part only, e.g. to read a server's CPU time around it.
  const mark = measured?.();
  const r = await once(seconds, latencies);
  const cpu = mark?.();
  const failed = r.mismatches + r.non2xx + r.errors + r.timeouts;
  latencies.sort((a, b) => a - b);
  return {
    rps: (r.requests.total - r.mismatches - r.non2xx) / r.duration,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    failed,
    total: r.requests.total,
    ...(cpu !== undefined ? { cpuPerRequestUs: cpu / Math.max(1, r.requests.total) } : {}),
  };
}
