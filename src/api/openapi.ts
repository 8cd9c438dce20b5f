// The OpenAPI 3.1 document, generated from the route schemas, and the docs page at /v1/docs.
// Each operation names the permission it needs (x-gatehouse-permission) and, if it changes
// anything, the covering checks that guard what it hands out (x-gatehouse-grants).
import swagger, { type SwaggerTransformObject } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { refineOpenApi } from './openapi-refine.js';
import { describePermission, type Permission } from './route-config.js';

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Gatehouse API',
        version,
        description:
          'Infrastructure access management. Get a token with POST /v1/auth/token, then send Authorization: Bearer <token>. Errors are application/problem+json with a stable code.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: ({ schema, url, route }) => {
      const permission = route.config?.permission as Permission | undefined;
      const out: Record<string, unknown> = { ...(schema as object) };
      if (permission !== undefined) {
        out['x-gatehouse-permission'] = describePermission(permission);
        if (permission !== 'public') out.security = [{ bearer: [] }];
      }
      const grants = route.config?.grants as string[] | undefined;
      if (grants !== undefined) out['x-gatehouse-grants'] = grants;
      return { schema: out as typeof schema, url };
    },
    transformObject: (document) =>
      refineOpenApi(
        (document as { openapiObject: Record<string, unknown> }).openapiObject,
      ) as ReturnType<SwaggerTransformObject>,
  });
}

export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(async (docs) => {
    // The docs page serves only the public API description.
    docs.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), permission: 'public' };
    });
    await docs.register(swaggerUi, { routePrefix: '/v1/docs', staticCSP: true });
  });
}
