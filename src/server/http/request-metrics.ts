import type { Counter, Registry } from 'prom-client';

/**
 * The per-answer metrics (issue 31.3) counted in plain numbers and handed to prom-client when scraped: its `inc` and
 * `observe` hash the label set and check it at every call, most of what metrics cost a cheap request (issue 31's 3 %).
 */

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LATENCY = 'engine_http_request_duration_seconds';

interface Timing {
  /** Answers per bucket (not cumulative); the last is +Inf. */
  buckets: number[];
  sum: number;
  count: number;
}

export interface RequestCounts {
  /** Counts one answer; `op` is the GraphQL operation type or ''. */
  observe(endpoint: string, status: number, op: string, seconds: number): void;
}

/** Registers `engine_http_requests_total` and the latency histogram on `registry`, counted by the returned observe. */
export function requestMetrics(prom: typeof import('prom-client'), registry: Registry): RequestCounts {
  // Few series: endpoints are a fixed set, statuses and operation types a handful.
  const counted = new Map<string, Map<number, Map<string, { n: number }>>>();
  const timed = new Map<string, Timing>();
  new prom.Counter({
    name: 'engine_http_requests_total', help: 'HTTP requests answered, by endpoint, status and GraphQL operation type.',
    labelNames: ['endpoint', 'status', 'operation_type'] as const, registers: [registry],
    collect(this: Counter<'endpoint' | 'status' | 'operation_type'>) {
      this.reset();
      for (const [endpoint, byStatus] of counted) {
        for (const [status, byOp] of byStatus) for (const [op, c] of byOp) this.inc({ endpoint, status: String(status), operation_type: op }, c.n);
      }
    },
  });
  registry.registerMetric({
    name: LATENCY,
    help: 'Time to answer an HTTP request, by endpoint.',
    type: 'histogram',
    aggregator: 'sum',
    get: () => Promise.resolve({ name: LATENCY, help: 'Time to answer an HTTP request, by endpoint.', type: 'histogram', aggregator: 'sum', values: histogramValues(timed) }),
    reset: () => timed.clear(),
  } as unknown as Parameters<Registry['registerMetric']>[0]);
  return {
    observe(endpoint, status, op, seconds) {
      let byStatus = counted.get(endpoint);
      if (!byStatus) counted.set(endpoint, (byStatus = new Map()));
      let byOp = byStatus.get(status);
      if (!byOp) byStatus.set(status, (byOp = new Map()));
      const c = byOp.get(op);
      if (c) c.n++;
      else byOp.set(op, { n: 1 });
      let t = timed.get(endpoint);
      if (!t) timed.set(endpoint, (t = { buckets: new Array<number>(BOUNDS.length + 1).fill(0), sum: 0, count: 0 }));
      let b = 0;
      while (b < BOUNDS.length && seconds > (BOUNDS[b] as number)) b++;
      t.buckets[b] = (t.buckets[b] as number) + 1;
      t.sum += seconds;
      t.count++;
    },
  };
}

/** prom-client's shape of a histogram's values: cumulative buckets (`le`), then the sum and the count. */
function histogramValues(timed: Map<string, Timing>): { labels: Record<string, string | number>; value: number; metricName: string }[] {
  const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
  for (const [endpoint, t] of timed) {
    let acc = 0;
    t.buckets.forEach((n, i) => {
      acc += n;
      values.push({ labels: { le: i < BOUNDS.length ? (BOUNDS[i] as number) : '+Inf', endpoint }, value: acc, metricName: `${LATENCY}_bucket` });
    });
    values.push({ labels: { endpoint }, value: t.sum, metricName: `${LATENCY}_sum` });
    values.push({ labels: { endpoint }, value: t.count, metricName: `${LATENCY}_count` });
  }
  return values;
}
