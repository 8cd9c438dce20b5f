// The security pipeline of every route, in order:
//   declared   — a route without a permission declaration cannot be registered, nor a mutating
//                route without its grant declaration (route-config.ts GRANT_CHECKS);
//   authenticate — a bearer access token resolves to an active principal, else 401;
//   authorize  — the principal's roles allow the declared resource and verb, else 403 and an event.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditLog } from '../../audit/audit-log.js';
import { actorOf } from '../../auth/principal.js';
import type { TokenService } from '../../auth/token-service.js';
import { GatehouseError } from '../../lib/errors.js';
import type { Decision } from '../../rbac/types.js';
import { describePermission, MUTATING_METHODS, type Permission } from '../route-config.js';

const BEARER = /^Bearer ([^\s]+)$/i;

export function installSecurity(app: FastifyInstance, deps: { tokens: TokenService; audit: AuditLog }): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.permission) {
      throw new Error(`route ${String(route.method)} ${route.url} declares no permission`);
    }
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.some((m) => MUTATING_METHODS.has(m)) && !Array.isArray(route.config.grants)) {
      throw new Error(`route ${String(route.method)} ${route.url} declares no grants (what it hands out)`);
    }
  });

  // Callback style: the allowed path (nearly every request) stays synchronous.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    let decision: Decision;
    let permission: Permission | undefined;
    try {
      permission = request.routeOptions.config.permission;
      if (permission === undefined) throw new GatehouseError('internal_error', 'route without permission');
      if (permission === 'public') return done();
      const header = request.headers.authorization;
      if (!header) throw new GatehouseError('unauthenticated', 'send Authorization: Bearer <access token>');
      const match = BEARER.exec(header);
      if (!match) throw new GatehouseError('invalid_token', 'the Authorization header must be "Bearer <access token>"');
      request.principal = deps.tokens.authenticate(match[1] as string);
      if (permission === 'authenticated') return done();
      decision = request.principal.policy.can(permission.resource, permission.verb);
      if (decision.allowed) return done();
    } catch (error) {
      return done(error as Error);
    }
    const principal = request.principal;
    const needed = describePermission(permission);
    deps.audit
      .record({
        type: 'access.denied',
        actor: actorOf({ principal, remoteAddr: request.ip, requestId: request.id }),
        success: false,
        remote_addr: request.ip,
        request_id: request.id,
        data: {
          method: request.method,
          route: request.routeOptions.url,
          permission: needed,
          ...(decision.role ? { denied_by: decision.role } : {}),
        },
      })
      .then(
        () => done(new GatehouseError('forbidden', `your roles do not allow ${needed}`)),
        (error: Error) => done(error),
      );
  });
}
