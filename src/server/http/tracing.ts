import type { HttpApp } from './router.js';
import type { TraceProbe } from '../../probes.js';

/**
 * A request's server span (issue 31.4) is opened by the tracer around the whole handler (index.ts); once the route has
 * answered, it is named after its route (`POST /v1/graphql`, the low-cardinality name tracing backends group by) and
 * given what only the route knew: the request id, the role and the error code.
 */
export function registerTracing(app: HttpApp, tracer: TraceProbe): void {
  app.onResponse((request) => {
    const route = request.route;
    const method = request.method;
    tracer.request(request.raw, route ? `${method} ${route}` : method, {
      'http.route': route, 'engine.request_id': request.id, 'engine.role': request.role || undefined, 'engine.error_code': request.errorCode || undefined,
    });
  });
}
