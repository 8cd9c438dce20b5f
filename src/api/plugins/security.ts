// The security pipeline of every route, in order:
//   declared   — a route without a permission declaration cannot be registered;
//   authenticate — a bearer access token resolves to an active principal, else 401;
//   authorize  — the principal's roles allow the declared resource and verb, else 403 and an event.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditLog } from '../../audit/audit-log.js';
import type { TokenService } from '../../auth/token-service.js';
import { GatehouseError } from '../errors.js';
import { describePermission } from '../route-config.js';

const BEARER = /^Bearer ([^\s]+)$/i;

export function installSecurity(app: FastifyInstance, deps: { tokens: TokenService; audit: AuditLog }): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.permission) {
      throw new Error(`route ${String(route.method)} ${route.url} declares no permission`);
    }
  });

  app.addHook('onRequest', async (request: FastifyRequest) => {
    const permission = request.routeOptions.config.permission;
    if (permission === undefined) throw new GatehouseError('internal_error', 'route without permission');
    if (permission === 'public') return;

    const header = request.headers.authorization;
    if (!header) throw new GatehouseError('unauthenticated', 'send Authorization: Bearer <access token>');
    const match = BEARER.exec(header);
    if (!match) throw new GatehouseError('invalid_token', 'the Authorization header must be "Bearer <access token>"');
    const principal = deps.tokens.authenticate(match[1] as string);
    request.principal = principal;
    if (permission === 'authenticated') return;

    const decision = principal.policy.can(permission.resource, permission.verb);
    if (decision.allowed) return;
    await deps.audit.record({
      type: 'access.denied',
      actor: { kind: principal.kind, id: principal.id, name: principal.name },
      success: false,
      remote_addr: request.ip,
      request_id: request.id,
      data: {
        method: request.method,
        route: request.routeOptions.url,
        permission: describePermission(permission),
        ...(decision.role ? { denied_by: decision.role } : {}),
      },
    });
    throw new GatehouseError('forbidden', `your roles do not allow ${describePermission(permission)}`);
  });
}
