// Keeps the table of registered routes: it answers 405 (with Allow) where a path exists under
// another method, 404 otherwise, and lets tests walk every route's declared permission. API routes
// without a query schema get an empty one, so that unknown query parameters are refused everywhere.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { GatehouseError } from '../../lib/errors.js';
import type { RegisteredRoute } from '../route-config.js';
import { sendProblem } from './error-handler.js';

// Routes of the API that take no query parameters still refuse unknown ones, as list routes do
// (`additionalProperties: false`), so a misspelled filter is a 400 rather than silently ignored.
// Not the console's pages and files (their URLs carry the page's own state) nor the docs page.
const NO_QUERY = Type.Object({}, { additionalProperties: false });
// Nor a proxy's forwarding route (/v1/*): the auth tier it forwards to holds the query schemas.
const strictQuery = (url: string) =>
  (url.startsWith('/v1/') && !url.startsWith('/v1/docs') && url !== '/v1/*') || url === '/healthz' || url === '/readyz';

export function installRouteTable(app: FastifyInstance, routes: RegisteredRoute[]): void {
  const patterns: Array<{ method: string; re: RegExp }> = [];
  app.addHook('onRoute', (route) => {
    if (strictQuery(route.url) && !route.schema?.querystring) route.schema = { ...route.schema, querystring: NO_QUERY };
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
