// On the auth listener: a request that presents a proxy's credential (or, where allowed, the shared
// cluster token) comes from one of the cluster's proxies, which forwards its caller's address in
// X-Forwarded-For; that address then becomes the request's (remote_addr in events, the login
// throttle's source). From anyone else X-Forwarded-For is ignored, and a credential that does not
// hold is refused rather than ignored, so a misconfigured or removed proxy is told at once.
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { PeerCheck } from '../../cluster/cluster-peers.js';
import { CLUSTER_TOKEN_HEADER, PROXY_CREDENTIAL_HEADER } from '../../net/auth-client.js';

/** The state revision this instance had seen when it answered (a proxy waits for it: read-your-writes). */
export const REVISION_HEADER = 'x-gatehouse-revision';

const fromPeer = (headers: Record<string, unknown>) =>
  headers[PROXY_CREDENTIAL_HEADER] !== undefined || headers[CLUSTER_TOKEN_HEADER] !== undefined;

export function installClusterPeer(app: FastifyInstance, peers: PeerCheck, revision: () => number): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (fromPeer(request.headers)) reply.header(REVISION_HEADER, String(revision()));
    done(null, payload);
  });
  // Callback style: a request from no peer (most of them, on an auth instance clients reach directly)
  // costs one header lookup and no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    // The internal API checks its own callers (and its join and renewal calls carry none yet).
    if (!fromPeer(request.headers) || request.url.startsWith('/internal/')) return done();
    peers(request.headers).then((peer) => {
      if (peer instanceof Error) return done(peer);
      const forwarded = request.headers['x-forwarded-for'];
      const last = typeof forwarded === 'string' ? forwarded.split(',').pop()?.trim() : undefined;
      // request.ip is a getter on Fastify's request prototype; an own property takes its place.
      if (last && isIP(last)) Object.defineProperty(request, 'ip', { value: last, enumerable: true });
      done();
    }, done);
  });
}
