// A proxy-only instance's /v1 (and the console's /webapi/session): forwarded to the auth tier with
// health-checked round robin (cluster/auth-client.ts). The caller's address travels in
// X-Forwarded-For with the cluster token, which is what makes auth believe it; the proxy itself
// believes a client's X-Forwarded-For only from trusted_proxies (Fastify's trustProxy). A request
// whose connection was refused goes to the next auth server (nothing was sent); one that failed
// later is retried only when its method is idempotent, so a POST is never applied twice.
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AuthPool, CLUSTER_TOKEN_HEADER, connectionFailure } from '../cluster/auth-client.js';
import { GatehouseError } from '../lib/errors.js';
import { sendProblem } from './plugins/error-handler.js';

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** Hop-by-hop and proxy-set headers a client may not pass through (auth trusts them from us only). */
const STRIPPED = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded', CLUSTER_TOKEN_HEADER];

export async function forwardToAuth(
  app: FastifyInstance,
  pool: AuthPool,
  opts: { tls: boolean; bodyLimit: number },
): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(replyFrom, { undici: { connections: 64, pipelining: 1 }, disableRequestLogging: true });
    // The body is passed on as received (the auth tier parses and validates it), bounded as on auth.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: opts.bodyLimit }, (_req, body, done) =>
      done(null, body),
    );

    const forward = (request: FastifyRequest, reply: FastifyReply, attempt: number): void => {
      const base = pool.pick();
      const body = request.body as Buffer | undefined;
      reply.from(undefined, {
        getUpstream: () => base,
        ...(body && request.method !== 'GET' && request.method !== 'HEAD'
          ? { body, contentType: request.headers['content-type'] ?? 'application/octet-stream' }
          : {}),
        rewriteRequestHeaders: (req, headers) => {
          const out: Record<string, string | string[] | undefined> = { ...headers };
          for (const h of STRIPPED) delete out[h];
          out['x-forwarded-for'] = req.ip;
          out['x-forwarded-proto'] = opts.tls ? 'https' : 'http';
          out[CLUSTER_TOKEN_HEADER] = pool.token;
          return out as typeof headers;
        },
        onError: (r0, { error }) => {
          const r = r0 as unknown as FastifyReply;
          const cause = (error as { cause?: unknown }).cause ?? error;
          if (connectionFailure(cause) || connectionFailure(error)) {
            pool.markDown(base);
            const refused = (cause as { code?: string }).code === 'ECONNREFUSED';
            if (attempt + 1 < pool.servers().length && (refused || IDEMPOTENT.has(request.method))) {
              forward(request, r, attempt + 1);
              return;
            }
          }
          request.log.warn({ err: error, auth: base }, 'forwarding to the auth tier failed');
          sendProblem(
            r,
            request,
            new GatehouseError('unavailable', 'no auth server answered this request; retry', {
              headers: { 'retry-after': '1' },
            }),
          );
        },
      });
    };

    const handler = (request: FastifyRequest, reply: FastifyReply) => {
      forward(request, reply, 0);
      return reply;
    };
    for (const url of ['/v1/*', '/webapi/session', '/webapi/session/*']) {
      scope.route({ method: [...METHODS], url, handler });
    }
  });
}
