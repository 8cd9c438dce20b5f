// A bare Fastify server with one route that returns a precomputed JSON body: the ceiling the
// Gatehouse read path is compared with. Usage: node --import tsx bench/serve-bare.ts <body-file>
//
// With BENCH_BARE_MINIMAL_TOKEN=<bearer token> it also does the least every Gatehouse API request
// must: a request id in X-Request-Id, the bearer token hashed and looked up (401 otherwise), a
// permission check, and the request observed in a prom-client histogram labelled as Gatehouse's —
// with nothing else (no validation, no logging, no rate limit, no cache revision). What separates
// it from bare Fastify is what that work costs on Fastify done about as simply as it can be; what
// separates Gatehouse from it is Gatehouse's own.
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import { Histogram, Registry } from 'prom-client';
import { newRequestId } from '../src/lib/random.js';
import { hashSecret } from '../src/lib/secrets.js';
import { announceReady, exitOnParentGone, isStopping } from './child-protocol.js';

function addMinimalPipeline(app: FastifyInstance, token: string): void {
  const principals = new Map([[hashSecret(token), { roles: new Set(['admin']) }]]);
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'request duration',
    labelNames: ['method', 'route', 'status', 'listener'],
    registers: [new Registry()],
  });
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
    histogram.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        listener: 'auth',
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}

async function main(): Promise<void> {
  const bodyFile = process.argv[2];
  if (!bodyFile) throw new Error('usage: serve-bare.ts <body-file>');
  const body = readFileSync(bodyFile, 'utf8');
  JSON.parse(body); // refuse to serve something that is not JSON

  const minimalToken = process.env.BENCH_BARE_MINIMAL_TOKEN;
  const app = Fastify({ logger: false, ...(minimalToken ? { genReqId: newRequestId } : {}) });
  if (minimalToken) addMinimalPipeline(app, minimalToken);
  app.get('/v1/agents', async (_request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8');
    return body;
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  exitOnParentGone(() => app.close());
  announceReady({ url: `http://127.0.0.1:${port}` });
}

main().catch((e: unknown) => {
  if (isStopping()) return; // shutting down mid-setup: the shutdown handler exits
  process.stderr.write(`serve-bare: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
