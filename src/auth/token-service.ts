// Access and refresh tokens: issued from an API key, rotated on refresh with reuse detection,
// revoked at once, and checked on every request with one hash and cache lookups. Agent tokens may
// be scoped to some of the agent's roles, bounded by the credential they came from, and may act for
// a user (token exchange); all of that is checked here, per request, against the cache.

import type { AuditLog } from '../audit/audit-log.js';
import { eventOnCommit } from '../audit/on-commit.js';
import type { StateStore } from '../backend/state.js';
import { BackendError, type Operation } from '../backend/types.js';
import type { Clock } from '../lib/clock.js';
import { GatehouseError } from '../lib/errors.js';
import { randomBytes } from '../lib/random.js';
import { generateToken, hashSecret, hasSecretShape, tokenId } from '../lib/secrets.js';
import { stoppedAncestor } from './agent-lineage.js';
import { admitLogin, trimLogin } from './login-bounds.js';
import { type LoginThrottle, throttleKeys } from './login-throttle.js';
import type { PolicyResolver } from './policy-resolver.js';
import { actorOf, eventContext, type Principal, type RequestContext } from './principal.js';
import type { PrincipalPipeline, PrincipalScope } from './principal-pipeline.js';
import {
  type AgentRecord,
  type ApiKeyRecord,
  type ExchangeSources,
  keys,
  type PrincipalRef,
  type TokenRecord,
  type UserRecord,
} from './records.js';
import type { TokenIndex } from './token-index.js';
import { TOMBSTONE_MS, tokenRevocationOps } from './token-revocation.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
  /** A console login that owes its second factor (role option require_mfa): its tokens are pending. */
  mfa_pending?: true;
}

/** How long a console login may wait for its second factor: the pending tokens live no longer. */
export const MFA_PENDING_TTL_MS = 5 * 60_000;

export interface TokenSettings {
  accessTtlMs: number;
  refreshTtlMs: number;
  /** Logins one API key may hold at once; a new one ends the least recently used (login-bounds.ts). */
  maxLoginsPerKey: number;
}

/** What an agent's token carries beyond its principal. */
export interface AgentTokenScope {
  roles?: string[];
  credential_id?: string;
  not_after?: number;
  on_behalf_of?: PrincipalRef;
  /** Token exchange: the user's and the agent's tokens it came from. */
  exchanged_from?: ExchangeSources;
  /** A console login's second factor: owed (pending) or given (verified). */
  mfa?: 'pending' | 'verified';
  /** A pending login's own bound (not_after) once its second factor is given. */
  login_not_after?: number;
}

/** Marks uses of agents and credentials (last_used_at); see agents/usage.ts. */
export interface UsageMarks {
  agentUsed(agentId: string): void;
  credentialUsed(credentialId: string, expiresAt: number): void;
}

/** A resolved access token: its record and the principal it acts as. */
export interface ResolvedToken {
  /** The token's store id (tokenId): its key is keys.token(id). */
  id: string;
  record: TokenRecord;
  principal: Principal;
}

export type TokenService = ReturnType<typeof createTokenService>;

export function createTokenService(deps: {
  state: StateStore;
  audit: AuditLog;
  clock: Clock;
  settings: TokenSettings;
  throttle: LoginThrottle;
  policies: PolicyResolver;
  index: TokenIndex;
  pipeline: Pick<PrincipalPipeline, 'resolve'>;
  usage?: UsageMarks;
  onFailedLogin?: () => void;
}) {
  const { state, audit, clock, settings } = deps;

  function principalRecord(ref: PrincipalRef): UserRecord | AgentRecord | undefined {
    return ref.kind === 'user'
      ? state.get<UserRecord>(keys.user(ref.id))?.value
      : state.get<AgentRecord>(keys.agent(ref.id))?.value;
  }

  function tokenOps(
    ref: PrincipalRef,
    family: string,
    apiKeyId: string | undefined,
    accessTtlMs: number,
    scope: AgentTokenScope = {},
  ) {
    const now = clock();
    const access = generateToken('accessToken', now);
    const refresh = generateToken('refreshToken', now);
    const base = {
      principal: ref,
      family,
      issued_at: now,
      ...(apiKeyId ? { api_key_id: apiKeyId } : {}),
      ...scope,
    };
    // No token outlives the credential it came from.
    const cap = (ms: number) => Math.min(now + ms, scope.not_after ?? Number.POSITIVE_INFINITY);
    const accessRecord: TokenRecord = { ...base, kind: 'access', expires_at: cap(accessTtlMs) };
    const refreshRecord: TokenRecord = { ...base, kind: 'refresh', expires_at: cap(settings.refreshTtlMs) };
    const ops: Operation[] = [accessRecord, refreshRecord].map((r, i) => ({
      type: 'put',
      key: keys.token(tokenId(i === 0 ? access : refresh)),
      value: JSON.stringify(r),
      expiresAt: r.expires_at + TOMBSTONE_MS,
    }));
    const response: TokenResponse = {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.round((accessRecord.expires_at - now) / 1000),
      refresh_token: refresh,
      refresh_expires_in: Math.round((refreshRecord.expires_at - now) / 1000),
    };
    return { ops, response };
  }

  /** Scope of the tokens an API key yields: an agent credential's roles and expiry. */
  const scopeOfKey = (key: ApiKeyRecord): AgentTokenScope => ({
    ...(key.roles ? { roles: key.roles } : {}),
    ...(key.credential_id ? { credential_id: key.credential_id } : {}),
    ...(key.principal.kind === 'agent' && key.expires_at ? { not_after: Date.parse(key.expires_at) } : {}),
  });
  const scopeOfToken = (r: TokenRecord): AgentTokenScope => ({
    ...(r.roles ? { roles: r.roles } : {}),
    ...(r.credential_id ? { credential_id: r.credential_id } : {}),
    ...(r.not_after !== undefined ? { not_after: r.not_after } : {}),
    ...(r.on_behalf_of ? { on_behalf_of: r.on_behalf_of } : {}),
    ...(r.mfa === 'verified' ? { mfa: r.mfa } : {}),
  });

  /**
   * A failed login: counted against the source and the presented credential (its hash), and answered
   * 429 instead once either is over the limit. Only failures come here, so a valid credential is never
   * throttled (see login-throttle.ts).
   */
  async function loginFailed(
    ctx: RequestContext,
    reason: string,
    code: 'invalid_credentials' | 'invalid_token',
    presentedHash?: string,
  ): Promise<GatehouseError> {
    const counted = throttleKeys(ctx.remoteAddr, presentedHash);
    deps.onFailedLogin?.();
    const throttled = await throttledError(ctx, counted);
    if (throttled) return throttled;
    await deps.throttle.recordFailure(counted);
    await audit.record({
      type: 'auth.login.failed',
      actor: { kind: 'anonymous' },
      success: false,
      ...eventContext(ctx),
      data: { reason },
    });
    return new GatehouseError(code, reason);
  }

  async function throttledError(ctx: RequestContext, counted: string[]): Promise<GatehouseError | undefined> {
    const wait = await deps.throttle.retryAfter(counted);
    if (wait === undefined) return undefined;
    await audit.record({
      type: 'auth.login.throttled',
      actor: { kind: 'anonymous' },
      success: false,
      ...eventContext(ctx),
    });
    return new GatehouseError('rate_limited', `too many failed attempts; retry in ${wait} s`, {
      headers: {
        'retry-after': String(wait),
        'ratelimit-limit': String(deps.throttle.limit),
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(wait),
      },
    });
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

  /** Why a revoked token no longer works: a suspended agent says so (agent_suspended). */
  function revokedError(record: TokenRecord): GatehouseError {
    if (record.principal.kind === 'agent') {
      const agent = state.get<AgentRecord>(keys.agent(record.principal.id))?.value;
      if (agent?.status === 'suspended')
        return new GatehouseError('agent_suspended', 'the agent is suspended; its tokens were revoked');
      if (agent?.status === 'revoked') return new GatehouseError('token_revoked', 'the agent was revoked');
      if (agent && stoppedAncestor(state, agent)?.status === 'suspended')
        return new GatehouseError('agent_suspended', 'an agent above it is suspended; its tokens were revoked');
    }
    return new GatehouseError('token_revoked', 'the access token was revoked');
  }

  // What each token resolved to, valid while the state is at the revision it was resolved at: the
  // token record, its principal, roles and policies are all state, and any write moves the revision,
  // so a revocation or a role change is seen by the next request. Time is the one input that moves
  // without a write: expiry is checked on every hit, and delegated tokens (a grant may lapse by time)
  // are resolved anew each time. Resolving cost ~5 µs of a read request's ~100 (perf, GET /v1/agents).
  const resolved = new Map<string, ResolvedToken>();
  let resolvedAt = -1;
  const RESOLVED_MAX = 10_000;

  /** Resolves a bearer access token, or throws the precise 401. */
  function resolve(token: string): ResolvedToken {
    if (!hasSecretShape('accessToken', token)) throw new GatehouseError('invalid_token', 'malformed access token');
    const id = tokenId(token);
    const revision = state.cache.revision;
    if (revision !== resolvedAt) {
      resolved.clear();
      resolvedAt = revision;
    }
    const hit = resolved.get(id);
    if (hit) {
      if (hit.record.expires_at <= clock()) throw new GatehouseError('token_expired', 'the access token has expired');
      return hit;
    }
    const answer = resolveAnew(id);
    if (answer.record.on_behalf_of === undefined) {
      if (resolved.size >= RESOLVED_MAX) resolved.clear();
      resolved.set(id, answer);
    }
    return answer;
  }

  /**
   * A delegated token works only while both tokens it was exchanged from would: a logout, a deleted
   * API key or a revoked credential ends it even before its own record is marked (on etcd that
   * marking may come in a later write: StateStore.writeInParts). Neither source is delegated itself
   * (delegation does not chain), so this goes one level deep.
   */
  function sourcesLive(sources: ExchangeSources): void {
    for (const [which, source] of [
      ['user', sources.subject],
      ['agent', sources.actor],
    ] as const) {
      try {
        resolveAnew(source.id);
      } catch (error) {
        if (!(error instanceof GatehouseError) || error.status !== 401) throw error;
        throw new GatehouseError(
          'token_revoked',
          `the ${which}'s token this was exchanged from no longer works (${error.detail})`,
        );
      }
    }
  }

  function resolveAnew(id: string): ResolvedToken {
    const record = state.get<TokenRecord>(keys.token(id))?.value;
    if (record?.kind !== 'access') throw new GatehouseError('invalid_token', 'unknown access token');
    if (record.revoked_at !== undefined) throw revokedError(record);
    if (record.expires_at <= clock()) throw new GatehouseError('token_expired', 'the access token has expired');
    // Half signed in: the token serves only the second step (pendingLogin), at every door.
    if (record.mfa === 'pending')
      throw new GatehouseError('mfa_required', 'finish signing in with your security key first');
    return resolveRecord(id, record);
  }

  function resolveRecord(id: string, record: TokenRecord): ResolvedToken {
    // What the token acts as is decided where every other door decides it.
    const scope: PrincipalScope = {
      ...(record.roles ? { roles: record.roles } : {}),
      ...(record.credential_id ? { credential_id: record.credential_id } : {}),
      ...(record.on_behalf_of ? { on_behalf_of: record.on_behalf_of } : {}),
    };
    const principal = deps.pipeline.resolve(record.principal, scope, {
      id,
      family: record.family,
      expires_at: record.expires_at,
    });
    if (record.exchanged_from) sourcesLive(record.exchanged_from);
    // Frozen: one answer serves many requests, so none may change it for the others.
    return Object.freeze({ id, record, principal: Object.freeze({ ...principal, method: 'token' as const }) });
  }

  /** Whether the principal's roles ask console sign-ins for a second factor (rbac combineSignInOptions). */
  function requiresMfa(ref: PrincipalRef, scope: AgentTokenScope): boolean {
    const principal = deps.pipeline.resolve(ref, {
      ...(scope.roles ? { roles: scope.roles } : {}),
      ...(scope.credential_id ? { credential_id: scope.credential_id } : {}),
    });
    return principal.policy.signIn().requireMfa;
  }

  // The login's own bound (an SSO login's not_after) is kept aside for after the second step.
  const pendingScope = (scope: AgentTokenScope): AgentTokenScope => ({
    ...scope,
    ...(scope.not_after !== undefined ? { login_not_after: scope.not_after } : {}),
    mfa: 'pending',
    not_after: Math.min(scope.not_after ?? Number.POSITIVE_INFINITY, clock() + MFA_PENDING_TTL_MS),
  });

  /** A pending console login (its access token), or the precise 401: for the second step only. */
  function pendingLogin(token: string): ResolvedToken {
    if (!hasSecretShape('accessToken', token)) throw new GatehouseError('invalid_token', 'malformed access token');
    const id = tokenId(token);
    const record = state.get<TokenRecord>(keys.token(id))?.value;
    if (record?.kind !== 'access' || record.mfa !== 'pending')
      throw new GatehouseError('unauthenticated', 'no sign-in is waiting for a second factor: sign in again');
    if (record.revoked_at !== undefined) throw revokedError(record);
    if (record.expires_at <= clock())
      throw new GatehouseError('token_expired', 'the sign-in waited too long for its second factor: sign in again');
    return resolveRecord(id, record);
  }

  return {
    pendingLogin,

    /**
     * The second factor was given: the pending login becomes a full one (same family, so the API
     * key's login bounds still count it) and its pending tokens are revoked. The pending access
     * token's revision makes this single-use: of two racing completions, one wins.
     */
    async completeSecondFactor(pending: ResolvedToken, ctx: RequestContext): Promise<TokenResponse> {
      const item = state.get<TokenRecord>(keys.token(pending.id));
      const record = item?.value;
      if (!item || record?.mfa !== 'pending' || record.revoked_at !== undefined)
        throw new GatehouseError('unauthenticated', 'no sign-in is waiting for a second factor: sign in again');
      const key = record.api_key_id ? state.get<ApiKeyRecord>(keys.apiKey(record.api_key_id))?.value : undefined;
      const { not_after: _pendingEnd, ...kept } = scopeOfToken(record);
      const scope: AgentTokenScope = {
        ...kept,
        ...(record.login_not_after !== undefined ? { not_after: record.login_not_after } : {}),
        ...(key ? scopeOfKey(key) : {}),
        mfa: 'verified',
      };
      const { ops, response } = tokenOps(
        record.principal,
        record.family,
        record.api_key_id,
        settings.accessTtlMs,
        scope,
      );
      const revoked = tokenRevocationOps(state, deps.index.ofFamily(record.family), clock());
      const issued = eventOnCommit(audit, {
        type: 'auth.token.issued',
        actor: { kind: record.principal.kind, id: record.principal.id, name: pending.principal.name },
        ...eventContext(ctx),
        data: {
          ...(record.api_key_id ? { api_key_id: record.api_key_id } : {}),
          expires_in: response.expires_in,
          mfa: 'verified',
        },
      });
      try {
        await state.write([{ key: item.key, revision: item.revision }], [...revoked, ...ops], issued);
      } catch (error) {
        if (error instanceof BackendError)
          throw new GatehouseError('unauthenticated', 'this sign-in was just completed or ended: sign in again');
        throw error;
      }
      await issued.done();
      return response;
    },

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
      const pending = sso?.console === true && requiresMfa(ref, {});
      const scope: AgentTokenScope = !sso
        ? { mfa: 'verified' }
        : pending
          ? pendingScope({ not_after: sso.notAfter })
          : { not_after: sso.notAfter };
      const { ops, response } = tokenOps(ref, family, undefined, settings.accessTtlMs, scope);
      if (pending) response.mfa_pending = true;
      const issued = eventOnCommit(audit, {
        type: 'auth.token.issued',
        actor: { kind: ref.kind, id: ref.id, name: owner?.name },
        ...eventContext(ctx),
        data: {
          via,
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
    requiresMfa: (ref: PrincipalRef) => requiresMfa(ref, {}),

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
      const family = randomBytes(12).toString('base64url');
      const pending = opts.console === true && requiresMfa(key.principal, scopeOfKey(key));
      const scope = pending ? pendingScope(scopeOfKey(key)) : scopeOfKey(key);
      const { ops, response } = tokenOps(key.principal, family, key.id, settings.accessTtlMs, scope);
      if (pending) response.mfa_pending = true;
      const ending = admitLogin(deps.index, key.id, family, settings.maxLoginsPerKey);
      const issued = eventOnCommit(audit, {
        type: 'auth.token.issued',
        actor: { kind: key.principal.kind, id: key.principal.id, name: owner?.name },
        ...eventContext(ctx),
        data: {
          api_key_id: key.id,
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
        [
          {
            type: 'put',
            key: keys.token(tokenId(access)),
            value: JSON.stringify(record),
            expiresAt: record.expires_at + TOMBSTONE_MS,
          },
        ],
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
      const op: Operation = {
        type: 'put',
        key: keys.token(tokenId(access)),
        value: JSON.stringify(record),
        expiresAt: record.expires_at + TOMBSTONE_MS,
      };
      return { op, accessToken: access, family, expiresAt: record.expires_at };
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

      const { ops, response } = tokenOps(
        record.principal,
        record.family,
        record.api_key_id,
        settings.accessTtlMs,
        scopeOfToken(record),
      );
      const used: Operation = {
        type: 'put',
        key: item.key,
        value: JSON.stringify({ ...record, used_at: clock() }),
        expiresAt: record.expires_at + TOMBSTONE_MS,
      };
      const refreshed = eventOnCommit(audit, {
        type: 'auth.token.refreshed',
        actor: { kind: record.principal.kind, id: record.principal.id, name: owner?.name },
        ...eventContext(ctx),
        data: { family: record.family },
      });
      try {
        // The revision check makes two racing refreshes of one token yield one winner.
        const trimmed = trimLogin(deps.index, record.family, ops.length, item.key);
        await state.write([{ key: item.key, revision: item.revision }], [...trimmed, used, ...ops], refreshed);
      } catch (error) {
        if (error instanceof BackendError)
          throw new GatehouseError('token_revoked', 'this refresh token was just used');
        throw error;
      }
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
    resolveById: resolveAnew,
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
