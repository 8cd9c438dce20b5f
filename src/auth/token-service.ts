// Access and refresh tokens: issued from an API key, rotated on refresh with reuse detection,
// revoked at once, and checked on every request with one hash and cache lookups (token-resolver.ts).
// Agent tokens may be scoped to some of the agent's roles, bounded by the credential they came from,
// and may act for a user (token exchange); all of that is checked per request, against the cache. A
// console sign-in that owes a second factor is a pending login (pending-login.ts).

import { eventOnCommit } from '../audit/on-commit.js';
import type { ServiceDeps } from '../audit/service-deps.js';
import { unlessRaceLost } from '../backend/conflicts.js';
import { GatehouseError } from '../lib/errors.js';
import { randomBytes } from '../lib/random.js';
import { generateToken, hashSecret, hasSecretShape, tokenId } from '../lib/secrets.js';
import { stoppedAncestor } from './agent-lineage.js';
import { admitLogin, trimLogin } from './login-bounds.js';
import { createLoginFailures } from './login-failure.js';
import type { LoginThrottle } from './login-throttle.js';
import { createPendingLogins } from './pending-login.js';
import type { PolicyResolver } from './policy-resolver.js';
import { actorOf, eventContext, type Principal, type RequestContext } from './principal.js';
import type { PrincipalPipeline } from './principal-pipeline.js';
import {
  type AgentRecord,
  type ApiKeyRecord,
  keys,
  type LoginOrigin,
  type PrincipalRef,
  type TokenRecord,
  type UserRecord,
} from './records.js';
import type { TokenIndex } from './token-index.js';
import {
  type AgentTokenScope,
  type IssuePair,
  scopeOfKey,
  scopeOfToken,
  type TokenResponse,
  type TokenSettings,
  tokenPairOps,
} from './token-pair.js';
import { createTokenResolver } from './token-resolver.js';
import { TOMBSTONE_MS, tokenPut, tokenRevocationOps } from './token-revocation.js';

// Their homes are token-pair.ts, token-resolver.ts and pending-login.ts; importers keep one path.
export { MFA_PENDING_TTL_MS } from './pending-login.js';
export type { AgentTokenScope, TokenResponse, TokenSettings } from './token-pair.js';
export type { ResolvedToken } from './token-resolver.js';

/** Marks uses of agents and credentials (last_used_at); see agents/usage.ts. */
export interface UsageMarks {
  agentUsed(agentId: string): void;
  credentialUsed(credentialId: string, expiresAt: number): void;
}

export type TokenService = ReturnType<typeof createTokenService>;

export function createTokenService(
  deps: ServiceDeps & {
    settings: TokenSettings;
    throttle: LoginThrottle;
    policies: PolicyResolver;
    index: TokenIndex;
    pipeline: Pick<PrincipalPipeline, 'resolve'>;
    usage?: UsageMarks;
    onFailedLogin?: () => void;
  },
) {
  const { state, audit, clock, settings } = deps;
  const resolver = createTokenResolver(deps);
  const tokenOps: IssuePair = (ref, family, apiKeyId, scope) =>
    tokenPairOps(clock, settings, ref, family, apiKeyId, scope);
  const pendingLogins = createPendingLogins({ ...deps, resolver, issuePair: tokenOps });
  const loginFailed = createLoginFailures(deps);

  function principalRecord(ref: PrincipalRef): UserRecord | AgentRecord | undefined {
    return ref.kind === 'user'
      ? state.get<UserRecord>(keys.user(ref.id))?.value
      : state.get<AgentRecord>(keys.agent(ref.id))?.value;
  }

  // An agent is active only while every agent above it is (agent-lineage.ts).
  const isActive = (r: UserRecord | AgentRecord | undefined): boolean =>
    r?.status === 'active' && !('owner' in r && stoppedAncestor(state, r));

  async function revokeKeys(tokenKeys: string[], reason?: string): Promise<number> {
    const ops = tokenRevocationOps(state, tokenKeys, clock(), reason);
    // Each revocation stands alone, so a principal with thousands of tokens is revoked in parts.
    if (ops.length > 0) await state.writeInParts([], [], ops);
    return ops.length;
  }

  const { resolve } = resolver;

  return {
    pendingLogin: pendingLogins.pendingLogin,
    completeSecondFactor: pendingLogins.completeSecondFactor,

    /**
     * A login for a person who proved themselves without an API key. A passkey alone (`via`
     * 'passkey') is both factors: a verified pair. A single sign-on (`sso`) is a first factor only:
     * no token of it, refreshed or not, outlives `sso.notAfter` (the provider is asked again by
     * then), and a console sign-in of a person whose roles require a second factor gets a pending
     * pair, completed by the same second step as an API key's (completeSecondFactor).
     */
    async issueForUser(
      ref: PrincipalRef,
      ctx: RequestContext,
      via: string,
      sso?: { connector: string; notAfter: number; console: boolean },
    ): Promise<TokenResponse> {
      const owner = principalRecord(ref);
      if (ref.kind !== 'user' || !isActive(owner))
        throw await loginFailed(ctx, 'the user is not active', 'invalid_credentials');
      const family = randomBytes(12).toString('base64url');
      const pending = sso?.console === true && pendingLogins.requiresMfa(ref, {});
      const origin: LoginOrigin = {
        via: sso ? 'sso' : 'passkey',
        address: ctx.remoteAddr,
        started_at: clock(),
        ...(sso?.console !== false ? { console: true as const } : {}),
        ...(sso ? { connector: sso.connector } : {}),
      };
      const scope: AgentTokenScope = !sso
        ? { mfa: 'verified', origin }
        : pending
          ? pendingLogins.pendingScope({ not_after: sso.notAfter, origin })
          : { not_after: sso.notAfter, origin };
      const { ops, response } = tokenOps(ref, family, undefined, scope);
      if (pending) response.mfa_pending = true;
      const issued = eventOnCommit(audit, {
        type: 'auth.token.issued',
        actor: { kind: ref.kind, id: ref.id, name: owner?.name },
        ...eventContext(ctx),
        data: {
          via,
          family,
          ...(sso?.console !== false ? { console: true } : {}),
          ...(sso ? { connector: sso.connector } : {}),
          expires_in: response.expires_in,
          ...(scope.mfa ? { mfa: scope.mfa } : {}),
        },
      });
      await state.write([{ key: keys.user(ref.id), is: 'present' }], ops, issued);
      await issued.done();
      return response;
    },

    /** Whether a principal's roles require a second factor (a native client's SSO code is refused then). */
    requiresMfa: (ref: PrincipalRef) => pendingLogins.requiresMfa(ref, {}),

    /**
     * Tokens for an API key. A console sign-in (`console: true`) of a principal whose roles require
     * a second factor gets a pending pair instead: it opens nothing but the second step, for minutes.
     */
    async issueForApiKey(
      apiKey: string,
      ctx: RequestContext,
      opts: { console?: boolean } = {},
    ): Promise<TokenResponse> {
      const presented = hashSecret(apiKey);
      const ref = state.get<{ ref: string }>(keys.apiKeyHash(presented));
      const key = ref ? state.get<ApiKeyRecord>(ref.value.ref)?.value : undefined;
      if (!key) throw await loginFailed(ctx, 'unknown API key', 'invalid_credentials', presented);
      if (key.expires_at && Date.parse(key.expires_at) <= clock()) {
        throw await loginFailed(ctx, 'the API key has expired', 'invalid_credentials', presented);
      }
      const owner = principalRecord(key.principal);
      if (!isActive(owner))
        throw await loginFailed(ctx, 'the principal of this API key is not active', 'invalid_credentials', presented);
      if (key.principal.kind === 'agent') deps.usage?.agentUsed(key.principal.id);
      if (key.credential_id)
        deps.usage?.credentialUsed(
          key.credential_id,
          (key.expires_at ? Date.parse(key.expires_at) : clock()) + TOMBSTONE_MS,
        );
      const mfa = key.principal.kind === 'user' && pendingLogins.requiresMfa(key.principal, scopeOfKey(key));
      if (mfa && opts.console !== true) await pendingLogins.refuseOutsideConsole(ctx, key, owner?.name);
      const family = randomBytes(12).toString('base64url');
      const pending = opts.console === true && mfa;
      // Where an API-key login began is in its auth.token.issued event (logins.ts reads it there), not on
      // its tokens: every live login is held by every instance (issue 36, test/token-memory.test.ts).
      const scope = pending ? pendingLogins.pendingScope(scopeOfKey(key)) : scopeOfKey(key);
      const { ops, response } = tokenOps(key.principal, family, key.id, scope);
      if (pending) response.mfa_pending = true;
      const ending = admitLogin(deps.index, key.id, family, settings.maxLoginsPerKey);
      const issued = eventOnCommit(audit, {
        type: 'auth.token.issued',
        actor: { kind: key.principal.kind, id: key.principal.id, name: owner?.name },
        ...eventContext(ctx),
        data: {
          api_key_id: key.id,
          family,
          ...(opts.console === true ? { console: true } : {}),
          expires_in: response.expires_in,
          ...(pending ? { mfa: 'pending' } : {}),
          ...(ending.ended > 0 ? { ended_logins: ending.ended } : {}),
        },
      });
      try {
        await state.write([{ key: keys.apiKey(key.id), is: 'present' }], [...ending.ops, ...ops], issued);
      } catch (error) {
        ending.undo();
        throw error;
      }
      await issued.done();
      return response;
    },

    /**
     * A single short-lived access token (no refresh token) for the caller itself, as for a kubeconfig:
     * same principal, scope and login family as the token it asked with (revoking that login revokes
     * this one too), never outliving it.
     */
    async issueForSelf(principal: Principal, ttlMs: number): Promise<{ accessToken: string; expiresAt: number }> {
      const caller = principal.token ? state.get<TokenRecord>(keys.token(principal.token.id))?.value : undefined;
      if (caller?.kind !== 'access') throw new GatehouseError('forbidden', 'only a bearer token can ask for another');
      const now = clock();
      const access = generateToken('accessToken', now);
      const { revoked_at: _r, revoked_reason: _why, used_at: _u, ...inherited } = caller;
      const record: TokenRecord = {
        ...inherited,
        issued_at: now,
        expires_at: Math.min(now + ttlMs, caller.expires_at),
      };
      await state.write(
        [{ key: keys.token(principal.token?.id as string), is: 'present' }],
        [tokenPut(keys.token(tokenId(access)), record)],
      );
      return { accessToken: access, expiresAt: record.expires_at };
    },

    /**
     * A single access token (no refresh token) for an agent that is already trusted: an agent
     * credential or a token exchange. Returned as operations, to be written with the credential.
     */
    agentAccessToken(agentId: string, ttlMs: number, scope: AgentTokenScope) {
      const now = clock();
      const access = generateToken('accessToken', now);
      const family = randomBytes(12).toString('base64url');
      const record: TokenRecord = {
        kind: 'access',
        principal: { kind: 'agent', id: agentId },
        family,
        issued_at: now,
        expires_at: now + ttlMs,
        ...scope,
      };
      return {
        op: tokenPut(keys.token(tokenId(access)), record),
        accessToken: access,
        family,
        expiresAt: record.expires_at,
      };
    },

    async refresh(refreshToken: string, ctx: RequestContext): Promise<TokenResponse> {
      const presented = hashSecret(refreshToken);
      const failed = (reason: string) => loginFailed(ctx, reason, 'invalid_token', presented);
      if (!hasSecretShape('refreshToken', refreshToken)) throw await failed('not a refresh token');
      const item = state.get<TokenRecord>(keys.token(tokenId(refreshToken)));
      const record = item?.value;
      if (!item || !record || record.kind !== 'refresh') throw await failed('unknown refresh token');
      if (record.used_at !== undefined) {
        // Someone holds a copy of a rotated token: end the whole family, both holders included.
        const revoked = await revokeKeys(deps.index.ofFamily(record.family));
        await audit.record({
          type: 'auth.refresh.reused',
          actor: { kind: record.principal.kind, id: record.principal.id },
          success: false,
          ...eventContext(ctx),
          data: { family: record.family, revoked_tokens: revoked },
        });
        throw new GatehouseError(
          'token_revoked',
          'this refresh token was already used; all tokens of its login were revoked',
        );
      }
      if (record.revoked_at !== undefined) throw await failed('the refresh token was revoked');
      if (record.expires_at <= clock()) throw await failed('the refresh token has expired');
      const owner = principalRecord(record.principal);
      if (!isActive(owner)) throw await failed('the principal is not active');
      if (record.mfa === 'pending')
        throw new GatehouseError('mfa_required', 'finish signing in with your security key first');
      pendingLogins.checkRefresh(record);

      const { ops, response } = tokenOps(record.principal, record.family, record.api_key_id, scopeOfToken(record));
      const used = tokenPut(item.key, { ...record, used_at: clock() });
      const refreshed = eventOnCommit(audit, {
        type: 'auth.token.refreshed',
        actor: { kind: record.principal.kind, id: record.principal.id, name: owner?.name },
        ...eventContext(ctx),
        data: { family: record.family },
      });
      // The revision check makes two racing refreshes of one token yield one winner.
      await unlessRaceLost(
        () => {
          const trimmed = trimLogin(deps.index, record.family, ops.length, item.key);
          return state.write([{ key: item.key, revision: item.revision }], [...trimmed, used, ...ops], refreshed);
        },
        () => new GatehouseError('token_revoked', 'this refresh token was just used'),
      );
      await refreshed.done();
      return response;
    },

    /** Revokes the caller's login (the presented token and its family), or a token named in the body. */
    async revoke(ctx: RequestContext & { principal: Principal }, token?: string): Promise<{ revoked: number }> {
      const p = ctx.principal;
      let family = p.token?.family;
      if (token !== undefined) {
        const named = state.get<TokenRecord>(keys.token(tokenId(token)))?.value;
        const mine = named && named.principal.id === p.id;
        if (!named || (!mine && !p.policy.can('tokens', 'delete').allowed)) {
          // Do not reveal whether someone else's token exists.
          throw new GatehouseError('not_found', 'no such token among those you may revoke');
        }
        family = named.family;
      }
      if (family === undefined) throw new GatehouseError('invalid_request', 'name the token to revoke');
      const revoked = await revokeKeys(deps.index.ofFamily(family));
      await audit.record({
        type: 'auth.token.revoked',
        actor: actorOf(ctx),
        ...eventContext(ctx),
        data: { revoked_tokens: revoked, scope: 'family' },
      });
      return { revoked };
    },

    revokeKeys,

    resolve,
    /** Resolves a stored access token by its id (keys.token), or throws the precise 401. */
    resolveById: resolver.resolveById,
    /**
     * For other ways of logging in (token exchange, tokens typed as SSH passwords): the same failure
     * accounting; the error to answer is 429 once the source or the credential is over the limit.
     */
    loginFailed,

    /** Resolves a bearer token to its principal, or throws the precise 401. Runs on every request. */
    authenticate(token: string): Principal {
      const { record, principal } = resolve(token);
      if (principal.kind === 'agent' && deps.usage) {
        deps.usage.agentUsed(principal.id);
        if (record.credential_id) deps.usage.credentialUsed(record.credential_id, record.expires_at + TOMBSTONE_MS);
      }
      return principal;
    },
  };
}
