import type { TokenService } from '../../auth/token-service.js';
import type { App } from '../app-types.js';
import { authenticatedContext, contextOf } from '../request-context.js';
import { responses } from '../schemas.js';
import { RefreshRequest, RevokeRequest, RevokeResponse, TokenRequest, TokenResponse } from './tokens.schema.js';

const tags = ['auth'];

export function tokenRoutes(app: App, deps: { tokens: TokenService }): void {
  app.post(
    '/v1/auth/token',
    {
      config: { permission: 'public' },
      schema: {
        tags,
        summary: 'Exchange an API key for an access token and a refresh token',
        body: TokenRequest,
        response: responses({ 200: TokenResponse }),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return deps.tokens.issueForApiKey(request.body.api_key, contextOf(request));
    },
  );

  app.post(
    '/v1/auth/refresh',
    {
      config: { permission: 'public' },
      schema: {
        tags,
        summary: 'Rotate a refresh token into a new token pair (reuse revokes the whole login)',
        body: RefreshRequest,
        response: responses({ 200: TokenResponse }),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return deps.tokens.refresh(request.body.refresh_token, contextOf(request));
    },
  );

  app.delete(
    '/v1/auth/revoke',
    {
      config: { permission: 'authenticated' },
      schema: {
        tags,
        summary: 'Revoke the presented token and its refresh token, or the token named in the body',
        body: RevokeRequest,
        response: responses({ 200: RevokeResponse }),
      },
    },
    async (request) => deps.tokens.revoke(authenticatedContext(request), request.body?.token),
  );
}
