// Access and refresh tokens: issued from an API key, rotated on refresh with reuse detection,
// revoked at once, and checked on every request with one hash and cache lookups.

import { randomBytes } from 'node:crypto';
import { GatehouseError } from '../api/errors.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { StateStore } from '../backend/state.js';
import { BackendError, type Operation } from '../backend/types.js';
import type { Clock } from '../lib/clock.js';
import { generateSecret, hashSecret, hasSecretShape } from '../lib/secrets.js';
import type { LoginThrottle } from './login-throttle.js';
import type { PolicyResolver } from './policy-resolver.js';
import { actorOf, eventContext, type Principal, type RequestContext } from './principal.js';
import {
  type AgentRecord,
  type ApiKeyRecord,
  keys,
  type PrincipalRef,
  type TokenRecord,
  type UserRecord,
} from './records.js';
import type { TokenIndex } from './token-index.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
}

export interface TokenSettings {
  accessTtlMs: number;
  refreshTtlMs: number;
}

/** Revoked and expired tokens are kept this long so a caller hears why, then swept. */
const TOMBSTONE_MS = 24 * 3_600_000;

export type TokenService = ReturnType<typeof createTokenService>;

export function createTokenService(deps: {
  state: StateStore;
  audit: AuditLog;
  clock: Clock;
  settings: TokenSettings;
  throttle: LoginThrottle;
  policies: PolicyResolver;
  index: TokenIndex;
  onFailedLogin?: () => void;
}) {
  const { state, audit, clock, settings } = deps;

  function principalRecord(ref: PrincipalRef): UserRecord | AgentRecord | undefined {
    return ref.kind === 'user'
      ? state.get<UserRecord>(keys.user(ref.id))?.value
      : state.get<AgentRecord>(keys.agent(ref.id))?.value;
  }

  function tokenOps(ref: PrincipalRef, family: string, apiKeyId: string | undefined, accessTtlMs: number) {
    const now = clock();
    const access = generateSecret('accessToken');
    const refresh = generateSecret('refreshToken');
    const base = { principal: ref, family, issued_at: now, ...(apiKeyId ? { api_key_id: apiKeyId } : {}) };
    const accessRecord: TokenRecord = { ...base, kind: 'access', expires_at: now + accessTtlMs };
    const refreshRecord: TokenRecord = { ...base, kind: 'refresh', expires_at: now + settings.refreshTtlMs };
    const ops: Operation[] = [accessRecord, refreshRecord].map((r, i) => ({
      type: 'put',
      key: keys.token(hashSecret(i === 0 ? access : refresh)),
      value: JSON.stringify(r),
      expiresAt: r.expires_at + TOMBSTONE_MS,
    }));
    const response: TokenResponse = {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.round(accessTtlMs / 1000),
      refresh_token: refresh,
      refresh_expires_in: Math.round(settings.refreshTtlMs / 1000),
    };
    return { ops, response };
  }

  async function loginFailed(ctx: RequestContext, reason: string, code: 'invalid_credentials' | 'invalid_token') {
    deps.throttle.recordFailure(ctx.remoteAddr);
    deps.onFailedLogin?.();
    await audit.record({
      type: 'auth.login.failed',
      actor: { kind: 'anonymous' },
      success: false,
      ...eventContext(ctx),
      data: { reason },
    });
    return new GatehouseError(code, reason);
  }

  async function checkThrottle(ctx: RequestContext): Promise<void> {
    const wait = deps.throttle.retryAfter(ctx.remoteAddr);
    if (wait === undefined) return;
    await audit.record({
      type: 'auth.login.throttled',
      actor: { kind: 'anonymous' },
      success: false,
      ...eventContext(ctx),
    });
    throw new GatehouseError('rate_limited', `too many failed attempts from this address; retry in ${wait} s`, {
      headers: {
        'retry-after': String(wait),
        'ratelimit-limit': String(deps.throttle.limit),
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(wait),
      },
    });
  }

  const isActive = (r: UserRecord | AgentRecord | undefined): boolean => r?.status === 'active';

  async function revokeKeys(tokenKeys: string[]): Promise<number> {
    const now = clock();
    const ops: Operation[] = [];
    for (const key of tokenKeys) {
      const item = state.get<TokenRecord>(key);
      if (!item || item.value.revoked_at !== undefined) continue;
      ops.push({
        type: 'put',
        key,
        value: JSON.stringify({ ...item.value, revoked_at: now }),
        expiresAt: item.value.expires_at + TOMBSTONE_MS,
      });
    }
    if (ops.length > 0) await state.write([], ops);
    return ops.length;
  }

  return {
    async issueForApiKey(apiKey: string, ctx: RequestContext): Promise<TokenResponse> {
      await checkThrottle(ctx);
      const ref = state.get<{ ref: string }>(keys.apiKeyHash(hashSecret(apiKey)));
      const key = ref ? state.get<ApiKeyRecord>(ref.value.ref)?.value : undefined;
      if (!key) throw await loginFailed(ctx, 'unknown API key', 'invalid_credentials');
      if (key.expires_at && Date.parse(key.expires_at) <= clock()) {
        throw await loginFailed(ctx, 'the API key has expired', 'invalid_credentials');
      }
      const owner = principalRecord(key.principal);
      if (!isActive(owner))
        throw await loginFailed(ctx, 'the principal of this API key is not active', 'invalid_credentials');
      const family = randomBytes(12).toString('base64url');
      const { ops, response } = tokenOps(key.principal, family, key.id, settings.accessTtlMs);
      await state.write([{ key: keys.apiKey(key.id), is: 'present' }], ops);
      await audit.record({
        type: 'auth.token.issued',
        actor: { kind: key.principal.kind, id: key.principal.id, name: owner?.name },
        ...eventContext(ctx),
        data: { api_key_id: key.id, expires_in: response.expires_in },
      });
      return response;
    },

    /** Tokens for a principal that is already trusted (agent credentials issued by its owner). */
    async issueFor(ref: PrincipalRef, apiKeyId: string | undefined, ttlMs: number): Promise<TokenResponse> {
      const { ops, response } = tokenOps(ref, randomBytes(12).toString('base64url'), apiKeyId, ttlMs);
      await state.write([], ops);
      return response;
    },

    async refresh(refreshToken: string, ctx: RequestContext): Promise<TokenResponse> {
      await checkThrottle(ctx);
      if (!hasSecretShape('refreshToken', refreshToken)) {
        throw await loginFailed(ctx, 'not a refresh token', 'invalid_token');
      }
      const item = state.get<TokenRecord>(keys.token(hashSecret(refreshToken)));
      const record = item?.value;
      if (!item || !record || record.kind !== 'refresh')
        throw await loginFailed(ctx, 'unknown refresh token', 'invalid_token');
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
      if (record.revoked_at !== undefined)
        throw await loginFailed(ctx, 'the refresh token was revoked', 'invalid_token');
      if (record.expires_at <= clock()) throw await loginFailed(ctx, 'the refresh token has expired', 'invalid_token');
      const owner = principalRecord(record.principal);
      if (!isActive(owner)) throw await loginFailed(ctx, 'the principal is not active', 'invalid_token');

      const { ops, response } = tokenOps(record.principal, record.family, record.api_key_id, settings.accessTtlMs);
      const used: Operation = {
        type: 'put',
        key: item.key,
        value: JSON.stringify({ ...record, used_at: clock() }),
        expiresAt: record.expires_at + TOMBSTONE_MS,
      };
      try {
        // The revision check makes two racing refreshes of one token yield one winner.
        await state.write([{ key: item.key, revision: item.revision }], [used, ...ops]);
      } catch (error) {
        if (error instanceof BackendError)
          throw new GatehouseError('token_revoked', 'this refresh token was just used');
        throw error;
      }
      await audit.record({
        type: 'auth.token.refreshed',
        actor: { kind: record.principal.kind, id: record.principal.id, name: owner?.name },
        ...eventContext(ctx),
        data: { family: record.family },
      });
      return response;
    },

    /** Revokes the caller's login (the presented token and its family), or a token named in the body. */
    async revoke(ctx: RequestContext & { principal: Principal }, token?: string): Promise<{ revoked: number }> {
      const p = ctx.principal;
      let family = p.tokenFamily;
      if (token !== undefined) {
        const named = state.get<TokenRecord>(keys.token(hashSecret(token)))?.value;
        const mine = named && named.principal.id === p.id;
        if (!named || (!mine && !p.policy.can('tokens', 'delete').allowed)) {
          // Do not reveal whether someone else's token exists.
          throw new GatehouseError('not_found', 'no such token among those you may revoke');
        }
        family = named.family;
      }
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

    /** Resolves a bearer token to its principal, or throws the precise 401. */
    authenticate(token: string): Principal {
      if (!hasSecretShape('accessToken', token)) throw new GatehouseError('invalid_token', 'malformed access token');
      const hash = hashSecret(token);
      const record = state.get<TokenRecord>(keys.token(hash))?.value;
      if (!record || record.kind !== 'access') throw new GatehouseError('invalid_token', 'unknown access token');
      if (record.revoked_at !== undefined) throw new GatehouseError('token_revoked', 'the access token was revoked');
      if (record.expires_at <= clock()) throw new GatehouseError('token_expired', 'the access token has expired');
      const ref = record.principal;
      if (ref.kind === 'user') {
        const user = state.get<UserRecord>(keys.user(ref.id))?.value;
        if (!user || user.status !== 'active') throw new GatehouseError('principal_disabled', 'the user is not active');
        return {
          kind: 'user',
          id: user.id,
          name: user.name,
          roles: user.roles,
          tokenHash: hash,
          tokenFamily: record.family,
          policy: deps.policies.forUser(user),
        };
      }
      const agent = state.get<AgentRecord>(keys.agent(ref.id))?.value;
      if (!agent || agent.status !== 'active')
        throw new GatehouseError('principal_disabled', 'the agent is not active');
      return {
        kind: 'agent',
        id: agent.id,
        name: agent.name,
        roles: agent.roles,
        owner: agent.owner,
        tokenHash: hash,
        tokenFamily: record.family,
        policy: deps.policies.forAgent(agent),
      };
    },
  };
}
