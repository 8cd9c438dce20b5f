// Request duration for the API listeners: one histogram observation per request. The route label
// is the matched pattern (e.g. /v1/agents/:id), never the raw URL, so its cardinality is bounded
// by the route table; requests no route matched (404, 405) share the label "unmatched".

import type { Listener, Metrics } from '../../observability/metrics.js';
import type { App } from '../app-types.js';

export function installRequestMetrics(app: App, metrics: Pick<Metrics, 'httpRequestDuration'>, listener: Listener) {
  const histogram = metrics.httpRequestDuration;
  app.addHook('onResponse', (request, reply, done) => {
    histogram.observe(
      {
        method: request.method,
        route: request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched'),
        status: reply.statusCode,
        listener,
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
