// Delegation by RFC 8693 token exchange: an agent presents a user's access token (subject_token)
// and its own (actor_token) and gets a token that acts for the user — never with more than both may
// do (checked per request) — provided the user allowed that agent. The result is an opaque token
// for Gatehouse's API or, with requested_token_type jwt, a signed JWT (sub = user, act.sub = agent)
// for a third party. Delegated tokens are not refreshable and die with either token's principal, and
// with either token itself: a logout, a deleted API key or a revoked credential ends them too.

import type { ServiceDeps } from '../audit/service-deps.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import { type AgentRecord, type DelegationGrant, keys, type TokenSource, type UserRecord } from '../auth/records.js';
import type { ResolvedToken, TokenService } from '../auth/token-service.js';
import { forbidden, GatehouseError, invalidField } from '../lib/errors.js';
import { hashSecret } from '../lib/secrets.js';
import type { CredentialIssuer } from './credential-issuer.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

export interface ExchangeRequest {
  subject_token?: string;
  subject_token_type?: string;
  actor_token?: string;
  actor_token_type?: string;
  requested_token_type?: string;
  audience?: string;
  scope?: string;
}

export interface ExchangeResponse {
  access_token: string;
  issued_token_type: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export type TokenExchange = ReturnType<typeof createTokenExchange>;

/** What ends a token, kept on the tokens exchanged from it so that it ends them too. */
const sourceOf = ({ id, record }: ResolvedToken): TokenSource => ({
  id,
  family: record.family,
  ...(record.api_key_id ? { api_key_id: record.api_key_id } : {}),
  ...(record.credential_id ? { credential_id: record.credential_id } : {}),
});

export function createTokenExchange(
  deps: ServiceDeps & {
    tokens: Pick<TokenService, 'resolve' | 'loginFailed'>;
    issuer: Pick<CredentialIssuer, 'issue'>;
    /** Longest lifetime of a delegated opaque token (ms): the access token TTL. */
    accessTtlMs: number;
  },
) {
  const { state, clock } = deps;

  /** Resolves one of the two tokens; a bad one is a failed login, named by its field. */
  async function resolveField(ctx: RequestContext, field: 'subject_token' | 'actor_token', token: string) {
    try {
      return deps.tokens.resolve(token);
    } catch (error) {
      if (!(error instanceof GatehouseError) || error.status !== 401) throw error;
      const failure = await deps.tokens.loginFailed(
        ctx,
        `${field}: ${error.detail}`,
        'invalid_token',
        hashSecret(token),
      );
      throw failure.code === 'rate_limited' ? failure : new GatehouseError(error.code, `${field}: ${error.detail}`);
    }
  }

  function checkTokenType(field: string, value: string | undefined): void {
    if (value !== undefined && value !== ACCESS_TOKEN_TYPE)
      throw invalidField(`/body/${field}`, `must be ${ACCESS_TOKEN_TYPE} (a Gatehouse access token)`);
  }

  return {
    async exchange(ctx: RequestContext, req: ExchangeRequest): Promise<ExchangeResponse> {
      if (req.subject_token === undefined) throw invalidField('/body/subject_token', 'is required');
      if (req.actor_token === undefined)
        throw invalidField('/body/actor_token', 'is required: only an agent can act for a user');
      checkTokenType('subject_token_type', req.subject_token_type);
      checkTokenType('actor_token_type', req.actor_token_type);
      const wanted = req.requested_token_type ?? ACCESS_TOKEN_TYPE;
      if (wanted !== ACCESS_TOKEN_TYPE && wanted !== JWT_TOKEN_TYPE)
        throw invalidField('/body/requested_token_type', `must be ${ACCESS_TOKEN_TYPE} or ${JWT_TOKEN_TYPE}`);

      const subject: ResolvedToken = await resolveField(ctx, 'subject_token', req.subject_token);
      if (subject.principal.kind !== 'user')
        throw invalidField('/body/subject_token', "must be a user's own access token");
      const actor: ResolvedToken = await resolveField(ctx, 'actor_token', req.actor_token);
      if (actor.principal.kind !== 'agent' || actor.record.on_behalf_of !== undefined)
        throw invalidField('/body/actor_token', "must be an agent's own access token (delegation does not chain)");

      const user = state.get<UserRecord>(keys.user(subject.principal.id))?.value as UserRecord;
      const agentItem = state.get<AgentRecord>(keys.agent(actor.principal.id));
      if (!agentItem) throw new GatehouseError('principal_disabled', 'actor_token: the agent no longer exists');
      const actingCtx: RequestContext & { principal: Principal } = {
        ...ctx,
        principal: { ...actor.principal, onBehalfOf: { kind: 'user', id: user.id, name: user.name } },
      };

      const grant = state.get<DelegationGrant>(keys.delegation(agentItem.value.id, user.id))?.value;
      if (!grant || (grant.expires_at !== undefined && Date.parse(grant.expires_at) <= clock())) {
        await deps.audit.record({
          type: 'access.denied',
          actor: actorOf(actingCtx),
          success: false,
          ...eventContext(ctx),
          data: { method: 'POST', route: '/v1/auth/token', permission: 'delegation', reason: 'no delegation grant' },
        });
        throw forbidden(`user ${user.name} has not allowed agent ${agentItem.value.name} to act for them`);
      }

      // Never more than the actor token may use: its scope, narrowed further by the request's.
      const actorRoles = [...actor.principal.roles];
      const requested = req.scope?.split(' ').filter(Boolean);
      requested?.forEach((role) => {
        if (!actorRoles.includes(role)) throw forbidden(`/body/scope: the actor token does not carry role ${role}`);
      });
      const roles = requested ?? (actor.record.roles ? actorRoles : undefined);
      const notAfter = Math.min(subject.record.expires_at, actor.record.expires_at);
      const jwt = wanted === JWT_TOKEN_TYPE;
      const credential = await deps.issuer.issue(actingCtx, agentItem, {
        type: jwt ? 'jwt' : 'token',
        ttl: undefined,
        ...(roles ? { roles } : {}),
        ...(req.audience !== undefined ? { audience: req.audience } : {}),
        onBehalfOf: user,
        exchangedFrom: { subject: sourceOf(subject), actor: sourceOf(actor) },
        notAfter: jwt ? notAfter : Math.min(notAfter, clock() + deps.accessTtlMs),
        rolesPath: '/body/scope',
      });
      await deps.audit.record({
        type: 'auth.token.exchanged',
        actor: actorOf(actingCtx),
        ...eventContext(ctx),
        data: {
          credential_id: credential.id,
          issued_token_type: wanted,
          scope: credential.roles,
          expires_in: credential.expires_in,
        },
      });
      return {
        access_token: (jwt ? credential.jwt : credential.access_token) as string,
        issued_token_type: wanted,
        token_type: 'Bearer',
        expires_in: credential.expires_in,
        scope: credential.roles.join(' '),
      };
    },
  };
}
