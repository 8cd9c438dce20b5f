// A proxy-only instance's /v1 (and the console's /webapi/session): forwarded to the auth tier with
// health-checked round robin (cluster/auth-client.ts), over undici's pooled keep-alive connections.
// The caller's address travels in X-Forwarded-For with the proxy's credential, which is what makes auth
// believe it; the proxy itself believes a client's X-Forwarded-For only from trusted_proxies
// (Fastify's trustProxy). A request whose connection was refused goes to the next auth server
// (nothing was sent); one that failed later is resent only when its method is idempotent, so a POST
// is never applied twice. Answers with a known small length are passed on whole (cheaper than a
// stream for the common JSON answer); the rest (NDJSON export, recordings) stream with backpressure.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Agent } from 'undici';
import { GatehouseError } from '../lib/errors.js';
import {
  type AuthPool,
  CLUSTER_TOKEN_HEADER,
  connectionFailure,
  INSTANCE_HEADER,
  PROXY_CREDENTIAL_HEADER,
} from '../net/auth-client.js';
import { REVISION_HEADER } from './plugins/cluster-peer.js';

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** Hop-by-hop headers (RFC 9110 §7.6.1) and what only this proxy may tell auth. */
const REQUEST_DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'forwarded',
  CLUSTER_TOKEN_HEADER,
  PROXY_CREDENTIAL_HEADER,
  INSTANCE_HEADER,
]);
const RESPONSE_DROPPED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'trailer',
  'upgrade',
  REVISION_HEADER,
]);
const WHOLE_MAX = 256 * 1024;

/**
 * The reads a proxy answers from its own state cache: lists and records of cluster state. Not the
 * ones that write (a kubeconfig issues a token), read the audit store, or stream a recording.
 */
const LOCAL_READS = new Set([
  '/v1/users',
  '/v1/users/:id',
  '/v1/users/:id/api-keys',
  '/v1/users/:id/ssh-keys',
  '/v1/roles',
  '/v1/roles/:id',
  '/v1/resources',
  '/v1/databases',
  '/v1/servers',
  '/v1/apps',
  '/v1/resources/:id',
  '/v1/agents',
  '/v1/agents/:id',
  '/v1/agents/:id/credentials',
  '/v1/agents/:id/delegations',
  '/v1/agents/:id/ssh-keys',
  '/v1/webhooks',
  '/v1/webhooks/:id',
  '/v1/webhooks/:id/deliveries',
  '/v1/sessions',
  '/v1/sessions/:id',
  '/v1/auth/ssh-ca',
  '/.well-known/jwks.json',
]);

/**
 * The API's route modules, registering only LOCAL_READS: every other route of the same modules is
 * left to the forwarding routes (find-my-way routes per method, so GET /v1/users is answered here
 * and POST /v1/users goes to the auth tier).
 */
export function localReadsOnly<T extends object>(app: T): T {
  const skip: T = new Proxy(app, {
    get(target, prop, receiver) {
      const call = (name: string, ...args: unknown[]) =>
        (target as unknown as Record<string, (...a: unknown[]) => unknown>)[name]?.(...args);
      if (prop === 'get') {
        return (url: string, ...rest: unknown[]) => {
          if (LOCAL_READS.has(url)) call('get', url, ...rest);
          return skip;
        };
      }
      if (['post', 'put', 'patch', 'delete', 'head', 'options', 'all'].includes(String(prop))) return () => skip;
      if (prop === 'route') {
        return (o: { method: string | string[]; url: string }) => {
          const methods = Array.isArray(o.method) ? o.method : [o.method];
          if (methods.every((m) => m === 'GET' || m === 'HEAD') && LOCAL_READS.has(o.url)) call('route', o);
          return skip;
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return skip;
}

export async function forwardToAuth(
  app: FastifyInstance,
  pool: AuthPool,
  opts: { tls: boolean; bodyLimit: number; awaitRevision?: (revision: number) => Promise<void> },
): Promise<void> {
  const agent = new Agent({ connections: 128, keepAliveTimeout: 30_000, headersTimeout: 60_000, bodyTimeout: 0 });
  app.addHook('onClose', async () => agent.close());
  const proto = opts.tls ? 'https' : 'http';

  await app.register(async (scope) => {
    // The body is passed on as received (the auth tier parses and validates it), bounded as on auth.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: opts.bodyLimit }, (_req, body, done) =>
      done(null, body),
    );

    const headersFor = (request: FastifyRequest): Record<string, string | string[]> => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined && !REQUEST_DROPPED.has(name)) out[name] = value;
      }
      out['x-forwarded-for'] = request.ip;
      out['x-forwarded-proto'] = proto;
      Object.assign(out, pool.peerHeaders());
      return out;
    };

    async function handler(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
      const body =
        request.method === 'GET' || request.method === 'HEAD' ? undefined : (request.body as Buffer | undefined);
      const headers = headersFor(request);
      const tries = pool.servers().length;
      for (let attempt = 0; ; attempt++) {
        const base = pool.pick();
        try {
          const res = await agent.request({
            origin: base,
            path: request.url,
            method: request.method as (typeof METHODS)[number],
            headers,
            ...(body ? { body } : {}),
          });
          // Read-your-writes through this proxy: its cache catches up with what auth had seen
          // (bounded; after that the answer goes out and the cache follows within the watch's delay).
          const revision = Number(res.headers[REVISION_HEADER]);
          if (opts.awaitRevision && request.method !== 'GET' && Number.isFinite(revision)) {
            await Promise.race([opts.awaitRevision(revision), new Promise((r) => setTimeout(r, 2000).unref())]);
          }
          reply.code(res.statusCode);
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined && !RESPONSE_DROPPED.has(name)) reply.header(name, value);
          }
          const length = Number(res.headers['content-length']);
          if (Number.isFinite(length) && length <= WHOLE_MAX)
            return reply.send(Buffer.from(await res.body.arrayBuffer()));
          // A client that goes away stops the upstream read too.
          request.raw.once('close', () => res.body.destroy());
          return reply.send(res.body);
        } catch (error) {
          if (!connectionFailure(error)) throw error;
          pool.markDown(base);
          const refused = (error as { code?: string }).code === 'ECONNREFUSED';
          if (attempt + 1 < tries && (refused || IDEMPOTENT.has(request.method))) continue;
          request.log.warn({ err: error, auth: base }, 'forwarding to the auth tier failed');
          throw new GatehouseError('unavailable', 'no auth server answered this request; retry', {
            headers: { 'retry-after': '1' },
          });
        }
      }
    }

    for (const url of [
      '/v1/*',
      '/.well-known/*',
      '/webapi/session',
      '/webapi/session/*',
      '/webapi/mfa/*',
      '/webapi/sso/*',
    ]) {
      scope.route({ method: [...METHODS], url, handler });
    }
  });
}
