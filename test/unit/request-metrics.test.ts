import * as prom from 'prom-client';
import { describe, expect, it } from 'vitest';
import { requestMetrics } from '../../src/server/http/request-metrics.js';

// Issue 31.3 with the counting moved out of prom-client's per-call label hashing: the exposition is what prom-client's
// own counter and histogram print (cumulative buckets, +Inf equal to the count, the sum).

describe('request metrics counted in plain numbers', () => {
  it('prints the requests counter and the latency histogram in Prometheus text format', async () => {
    const registry = new prom.Registry();
    const m = requestMetrics(prom, registry);
    m.observe('/v1/graphql', 200, 'query', 0.0004);
    m.observe('/v1/graphql', 200, 'query', 0.003);
    m.observe('/v1/graphql', 200, 'mutation', 0.2);
    m.observe('/v1/graphql', 400, '', 20);
    m.observe('/healthz', 200, '', 0.001);
    const text = await registry.metrics();
    const lines = text.split('\n');
    expect(lines).toContain('engine_http_requests_total{endpoint="/v1/graphql",status="200",operation_type="query"} 2');
    expect(lines).toContain('engine_http_requests_total{endpoint="/v1/graphql",status="400",operation_type=""} 1');
    expect(lines).toContain('# TYPE engine_http_request_duration_seconds histogram');
    expect(lines).toContain('engine_http_request_duration_seconds_bucket{le="0.001",endpoint="/v1/graphql"} 1');
    expect(lines).toContain('engine_http_request_duration_seconds_bucket{le="0.005",endpoint="/v1/graphql"} 2');
    expect(lines).toContain('engine_http_request_duration_seconds_bucket{le="0.25",endpoint="/v1/graphql"} 3');
    expect(lines).toContain('engine_http_request_duration_seconds_bucket{le="10",endpoint="/v1/graphql"} 3');
    expect(lines).toContain('engine_http_request_duration_seconds_bucket{le="+Inf",endpoint="/v1/graphql"} 4');
    expect(lines).toContain('engine_http_request_duration_seconds_count{endpoint="/v1/graphql"} 4');
    expect(lines).toContain('engine_http_request_duration_seconds_sum{endpoint="/v1/graphql"} 20.2034');
    // An answer on the bound falls in that bucket (le: less than or equal).
    expect(lines).toContain('engine_http_request_duration_seconds_bucket{le="0.001",endpoint="/healthz"} 1');
  });
});
