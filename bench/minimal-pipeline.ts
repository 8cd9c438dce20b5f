// The least every Gatehouse API request must do, on bare Fastify: a request id in X-Request-Id, the
// bearer token hashed and looked up (401 otherwise), a permission check, and the request observed in
// a prom-client histogram labelled as Gatehouse's — with nothing else (no validation, no logging, no
// rate limit, no cache revision). Served by bench/serve-bare.ts on its own, and by
// bench/serve-gatehouse.ts inside Gatehouse's process (BENCH_INPROCESS_REFERENCE), so the read path's
// distance can be split into what Gatehouse's steps cost and what the process they run in costs.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Histogram, Registry } from 'prom-client';
import { newRequestId } from '../src/lib/random.js';
import { hashSecret } from '../src/lib/secrets.js';

export function addMinimalPipeline(app: FastifyInstance, token: string): void {
  const principals = new Map([[hashSecret(token), { roles: new Set(['admin']) }]]);
  const observe = requestDurationObserver();
  const BEARER = /^Bearer ([^\s]+)$/i;
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    const match = BEARER.exec(request.headers.authorization ?? '');
    const principal = match ? principals.get(hashSecret(match[1] as string)) : undefined;
    if (!principal?.roles.has('admin')) {
      reply.code(401).send({ title: 'unauthenticated' });
      return;
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    observe(request, reply);
    done();
  });
}

/** The request-duration histogram as Gatehouse labels it, and what observes one answered request. */
export function requestDurationObserver(): (request: FastifyRequest, reply: FastifyReply) => void {
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'request duration',
    labelNames: ['method', 'route', 'status', 'listener'],
    registers: [new Registry()],
  });
  return (request, reply) =>
    histogram.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        listener: 'auth',
      },
      reply.elapsedTime / 1000,
    );
}

/**
 * A Fastify server answering GET /v1/agents with `body`; with `token`, behind the minimal pipeline.
 * Listens on a free loopback port; resolves with the app and its base URL.
 */
export async function serveList(body: string, token?: string): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false, ...(token ? { genReqId: newRequestId } : {}) });
  if (token) addMinimalPipeline(app, token);
  app.get('/v1/agents', async (_request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8');
    return body;
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}` };
}
