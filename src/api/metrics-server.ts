// The metrics listener: GET /metrics in the Prometheus text format, 405 for other methods there,
// problem+json 404 for anything else; every answer has X-Request-Id, as on the other listeners.
// A small Fastify instance of its own, so scrapes never share a port or hooks with the API.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { GatehouseError } from '../lib/errors.js';
import { newRequestId } from '../lib/random.js';
import { METRICS_CONTENT_TYPE, type Metrics } from '../observability/metrics.js';
import { installErrorHandler, sendProblem } from './plugins/error-handler.js';

export async function buildMetricsServer(
  metrics: Pick<Metrics, 'scrape'>,
  opts: { logger: FastifyBaseLogger; https?: { cert: Buffer; key: Buffer } },
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: newRequestId,
    return503OnClosing: true,
    ...(opts.https ? { https: opts.https } : {}),
  }) as unknown as FastifyInstance;
  installErrorHandler(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.get('/metrics', async (_request, reply) => {
    const body = await metrics.scrape();
    return reply.type(METRICS_CONTENT_TYPE).header('cache-control', 'no-store').send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    if (path === '/metrics' || path === '/metrics/') {
      reply.header('allow', 'GET, HEAD');
      return sendProblem(
        reply,
        request,
        new GatehouseError('method_not_allowed', `${request.method} is not supported on /metrics; use GET`),
      );
    }
    return sendProblem(
      reply,
      request,
      new GatehouseError('not_found', `${request.method} ${path}: this listener serves GET /metrics only`),
    );
  });
  await app.ready();
  return app;
}
