import type { TokenExchange } from '../../agents/token-exchange.js';
import type { TokenService } from '../../auth/token-service.js';
import { invalidField } from '../../lib/errors.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { authenticatedContext, contextOf } from '../request-context.js';
import {
  RefreshRequest,
  RevokeRequest,
  RevokeResponse,
  TokenRequest,
  TokenResponse,
  WhoAmIResponse,
} from './tokens.schema.js';

export function tokenRoutes(app: App, deps: { tokens: TokenService; tokenExchange: TokenExchange }): void {
  const route = declareRoutes(app, { tags: ['auth'] });

  route.post(
    '/v1/auth/token',
    {
      permission: 'public',
      grants: ['self'],
      summary:
        'Exchange an API key for an access token and a refresh token, or (RFC 8693 token exchange) a user token and an agent token for a token of the agent acting for the user',
      body: TokenRequest,
      200: TokenResponse,
      noStore: true,
    },
    async (request) => {
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

  route.post(
    '/v1/auth/refresh',
    {
      permission: 'public',
      grants: ['self'],
      summary: 'Rotate a refresh token into a new token pair (reuse revokes the whole login)',
      body: RefreshRequest,
      200: TokenResponse,
      noStore: true,
    },
    async (request) => deps.tokens.refresh(request.body.refresh_token, contextOf(request)),
  );

  route.delete(
    '/v1/auth/revoke',
    {
      permission: 'authenticated',
      grants: [],
      summary: 'Revoke the presented token and its refresh token, or the token named in the body',
      body: RevokeRequest,
      200: RevokeResponse,
    },
    async (request) => deps.tokens.revoke(authenticatedContext(request), request.body?.token),
  );

  // Who the presented token acts as: what `gatehouse status` shows (and any client that must say who it is).
  route.get(
    '/v1/auth/whoami',
    {
      permission: 'authenticated',
      summary: 'Who the presented token acts as: principal, roles, the login it belongs to and when it expires',
      200: WhoAmIResponse,
    },
    async (request) => {
      const p = authenticatedContext(request).principal;
      return {
        kind: p.kind,
        id: p.id,
        name: p.name,
        roles: [...p.roles],
        ...(p.onBehalfOf ? { on_behalf_of: p.onBehalfOf.name } : {}),
        ...(p.token?.expires_at !== undefined ? { expires_at: new Date(p.token.expires_at).toISOString() } : {}),
        ...(p.token ? { login: p.token.family } : {}),
      };
    },
  );
}
