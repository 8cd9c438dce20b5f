// On the auth listener: a request that presents the cluster token comes from one of the cluster's
// proxies, which forwards its caller's address in X-Forwarded-For; that address then becomes the
// request's (remote_addr in events, the login throttle's source). From anyone else X-Forwarded-For
// is ignored, and a wrong cluster token is refused rather than ignored, so a misconfigured proxy is
// told at once.
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { GatehouseError } from '../../lib/errors.js';
import { CLUSTER_TOKEN_HEADER, clusterTokenMatches } from '../../net/auth-client.js';

/** The state revision this instance had seen when it answered (a proxy waits for it: read-your-writes). */
export const REVISION_HEADER = 'x-gatehouse-revision';

export function installClusterPeer(app: FastifyInstance, token: string, revision: () => number): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.headers[CLUSTER_TOKEN_HEADER] !== undefined) reply.header(REVISION_HEADER, String(revision()));
    done(null, payload);
  });
  app.addHook('onRequest', (request, _reply, done) => {
    const presented = request.headers[CLUSTER_TOKEN_HEADER];
    if (presented === undefined) return done();
    if (!clusterTokenMatches(typeof presented === 'string' ? presented : undefined, token)) {
      return done(new GatehouseError('unauthenticated', 'the cluster token is not this cluster’s'));
    }
    const forwarded = request.headers['x-forwarded-for'];
    const last = typeof forwarded === 'string' ? forwarded.split(',').pop()?.trim() : undefined;
    // request.ip is a getter on Fastify's request prototype; an own property takes its place.
    if (last && isIP(last)) Object.defineProperty(request, 'ip', { value: last, enumerable: true });
    done();
  });
}
