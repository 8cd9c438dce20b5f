import type { TokenExchange } from '../../agents/token-exchange.js';
import type { TokenService } from '../../auth/token-service.js';
import { invalidField } from '../../lib/errors.js';
import type { App } from '../app-types.js';
import { authenticatedContext, contextOf } from '../request-context.js';
import { responses } from '../schemas.js';
import { RefreshRequest, RevokeRequest, RevokeResponse, TokenRequest, TokenResponse } from './tokens.schema.js';

const tags = ['auth'];

export function tokenRoutes(app: App, deps: { tokens: TokenService; tokenExchange: TokenExchange }): void {
  app.post(
    '/v1/auth/token',
    {
      config: { permission: 'public', grants: ['self'] },
      schema: {
        tags,
        summary:
          'Exchange an API key for an access token and a refresh token, or (RFC 8693 token exchange) a user token and an agent token for a token of the agent acting for the user',
        body: TokenRequest,
        response: responses({ 200: TokenResponse }),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { api_key, grant_type, ...exchange } = request.body;
      if (grant_type !== undefined) {
        if (api_key !== undefined) throw invalidField('/body/api_key', 'is not allowed with grant_type');
        return deps.tokenExchange.exchange(contextOf(request), exchange);
      }
      const extra = Object.keys(exchange)[0];
      if (extra !== undefined) throw invalidField(`/body/${extra}`, 'is only allowed with grant_type');
      if (api_key === undefined) throw invalidField('/body/api_key', 'is required');
      return deps.tokens.issueForApiKey(api_key, contextOf(request));
    },
  );

  app.post(
    '/v1/auth/refresh',
    {
      config: { permission: 'public', grants: ['self'] },
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
      config: { permission: 'authenticated', grants: [] },
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
