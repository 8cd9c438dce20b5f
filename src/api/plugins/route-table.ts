// Keeps the table of registered routes: it answers 405 (with Allow) where a path exists under
// another method, 404 otherwise, and lets tests walk every route's declared permission.
import type { FastifyInstance } from 'fastify';
import { GatehouseError } from '../../lib/errors.js';
import type { RegisteredRoute } from '../route-config.js';
import { sendProblem } from './error-handler.js';

export function installRouteTable(app: FastifyInstance, routes: RegisteredRoute[]): void {
  const patterns: Array<{ method: string; re: RegExp }> = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const re = new RegExp(
      `^${route.url
        .split('/')
        .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/')}/?$`,
    );
    for (const method of methods) {
      patterns.push({ method, re });
      // Read lazily: a plugin's own onRoute hook may still declare the permission after this one.
      if (method !== 'HEAD') {
        routes.push({
          method,
          url: route.url,
          get permission() {
            return route.config?.permission;
          },
          get grants() {
            return route.config?.grants;
          },
        });
      }
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = [...new Set(patterns.filter((p) => p.re.test(path)).map((p) => p.method))];
    if (allowed.length > 0) {
      reply.header('allow', allowed.sort().join(', '));
      return sendProblem(
        reply,
        request,
        new GatehouseError(
          'method_not_allowed',
          `${request.method} is not supported on ${path}; use ${allowed.join(', ')}`,
        ),
      );
    }
    return sendProblem(reply, request, new GatehouseError('not_found', `no route ${request.method} ${path}`));
  });
}
