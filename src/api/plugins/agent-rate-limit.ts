// The per-agent request limit, a step of the security pipeline right after authorize: an agent's
// token spends one unit of its bucket per request; an empty bucket is a 429 (with Retry-After and
// RateLimit-*) and, once a minute per agent, an agent.rate_limited event.
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { type AgentLimits, rateLimitHeaders } from '../../agents/rate-limits.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { actorOf } from '../../auth/principal.js';
import { GatehouseError } from '../../lib/errors.js';
import { isSecurityHook, routeHooks } from './security.js';

export function installAgentRateLimit(app: FastifyInstance, deps: { agentLimits: AgentLimits; audit: AuditLog }): void {
  // Callback style, like the rest of the pipeline: requests of users never wait for the bucket.
  const limit: onRequestHookHandler = (request, _reply, done) => {
    const p = request.principal;
    if (p?.kind !== 'agent' || p.requestsPerMinute === undefined) return done();
    deps.agentLimits.take('requests', p.id, p.requestsPerMinute).then((breach) => {
      if (!breach) return done();
      const error = new GatehouseError('rate_limited', `agent ${p.name} may make ${breach.limit} requests a minute`, {
        headers: rateLimitHeaders(breach),
      });
      if (!breach.report) return done(error);
      deps.audit
        .record({
          type: 'agent.rate_limited',
          actor: actorOf({ principal: p, remoteAddr: request.ip, requestId: request.id }),
          target: { kind: 'agent', id: p.id, name: p.name },
          success: false,
          remote_addr: request.ip,
          request_id: request.id,
          data: {
            limit: 'requests_per_minute',
            per_minute: breach.limit,
            refused: breach.refused,
            route: request.routeOptions.url,
          },
        })
        .then(
          () => done(error),
          (e: Error) => done(e),
        );
    }, done);
  };

  // Right behind the route's security hook (it needs the principal), on every route that has one:
  // a public route has no principal to limit. A route hook, like the security hook it follows.
  app.addHook('onRoute', (route) => {
    const hooks = routeHooks(route.onRequest);
    const at = hooks.findIndex(isSecurityHook);
    if (at < 0) {
      if (route.config?.permission === 'public') return;
      throw new Error(`route ${String(route.method)} ${route.url}: the rate limit goes after installSecurity`);
    }
    hooks.splice(at + 1, 0, limit);
    route.onRequest = hooks;
  });
}
