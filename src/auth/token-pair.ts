// What a login yields: an access and a refresh token, stored as records (only their hashes are
// keys), and the scope they carry. Shared by every way of issuing them (token-service.ts) and by
// the second step of a console sign-in (pending-login.ts).

import type { Operation } from '../backend/types.js';
import type { Clock } from '../lib/clock.js';
import { generateToken, tokenId } from '../lib/secrets.js';
import { type ApiKeyRecord, keys, type PrincipalRef, type TokenRecord } from './records.js';
import { tokenPut } from './token-revocation.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
  /** A console login that owes its second factor (role option require_mfa): its tokens are pending. */
  mfa_pending?: true;
}

export interface TokenSettings {
  accessTtlMs: number;
  refreshTtlMs: number;
  /** Logins one API key may hold at once; a new one ends the least recently used (login-bounds.ts). */
  maxLoginsPerKey: number;
}

/** What a token carries beyond its principal, login and lifetime (see TokenRecord for each field). */
export type AgentTokenScope = Pick<
  TokenRecord,
  'roles' | 'credential_id' | 'not_after' | 'on_behalf_of' | 'exchanged_from' | 'mfa' | 'login_not_after' | 'origin'
>;

/** tokenPairOps with a service's clock and settings applied. */
export type IssuePair = (
  ref: PrincipalRef,
  family: string,
  apiKeyId: string | undefined,
  scope?: AgentTokenScope,
) => { ops: Operation[]; response: TokenResponse };

/** A new access and refresh token of a login (`family`): the writes that store them, and the answer. */
export function tokenPairOps(
  clock: Clock,
  settings: Pick<TokenSettings, 'accessTtlMs' | 'refreshTtlMs'>,
  ref: PrincipalRef,
  family: string,
  apiKeyId: string | undefined,
  scope: AgentTokenScope = {},
): { ops: Operation[]; response: TokenResponse } {
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
  const accessRecord: TokenRecord = { ...base, kind: 'access', expires_at: cap(settings.accessTtlMs) };
  const refreshRecord: TokenRecord = { ...base, kind: 'refresh', expires_at: cap(settings.refreshTtlMs) };
  const ops = [
    tokenPut(keys.token(tokenId(access)), accessRecord),
    tokenPut(keys.token(tokenId(refresh)), refreshRecord),
  ];
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
export const scopeOfKey = (key: ApiKeyRecord): AgentTokenScope => ({
  ...(key.roles ? { roles: key.roles } : {}),
  ...(key.credential_id ? { credential_id: key.credential_id } : {}),
  ...(key.principal.kind === 'agent' && key.expires_at ? { not_after: Date.parse(key.expires_at) } : {}),
});

/** Scope a refreshed token keeps from the one it replaces. */
export const scopeOfToken = (r: TokenRecord): AgentTokenScope => ({
  ...(r.roles ? { roles: r.roles } : {}),
  ...(r.credential_id ? { credential_id: r.credential_id } : {}),
  ...(r.not_after !== undefined ? { not_after: r.not_after } : {}),
  ...(r.on_behalf_of ? { on_behalf_of: r.on_behalf_of } : {}),
  ...(r.mfa === 'verified' ? { mfa: r.mfa } : {}),
  ...(r.origin ? { origin: r.origin } : {}),
});
