// The security pipeline of every route, in order:
//   declared   — a route without a permission declaration cannot be registered, nor a mutating
//                route without its grant declaration (route-config.ts GRANT_CHECKS);
//   authenticate — a bearer access token resolves to an active principal, else 401;
//   authorize  — the principal's roles allow the declared resource and verb, else 403 and an event.
import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify';
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
    const permission = route.config.permission;
    if (permission === 'public') return;
    // A hook of the route's own, first among its hooks, closing over its permission: reading
    // request.routeOptions builds a 12-field object on every access. Route hooks run after every
    // plugin-level onRequest hook (the Host and cookie checks), as this one did.
    route.onRequest = [authorizeHook(permission, deps), ...routeHooks(route.onRequest)];
  });
}

const SECURITY_HOOKS = new WeakSet<object>();

/** True for the hook installSecurity put first on a route: the steps after it go right behind it. */
export const isSecurityHook = (hook: unknown): boolean => typeof hook === 'function' && SECURITY_HOOKS.has(hook);

/** A route's onRequest option as a list (Fastify takes one hook or several). */
export const routeHooks = (hooks: RouteOptions['onRequest']): onRequestHookHandler[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? [...hooks] : [hooks as onRequestHookHandler];

function authorizeHook(permission: Exclude<Permission, 'public'>, deps: { tokens: TokenService; audit: AuditLog }) {
  // Callback style: the allowed path (nearly every request) stays synchronous.
  const hook: onRequestHookHandler = (request, _reply, done) => {
    let decision: Decision;
    try {
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
  };
  SECURITY_HOOKS.add(hook);
  return hook;
}
