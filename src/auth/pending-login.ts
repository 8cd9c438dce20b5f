// A console sign-in whose roles ask for a second factor (role option require_mfa) starts as a
// pending login: tokens marked mfa 'pending', living minutes, that every door refuses
// (token-resolver.ts) but the second step. Once the key is given, the pending tokens are revoked and
// a full login of the same family replaces them (completeSecondFactor).

import { eventOnCommit } from '../audit/on-commit.js';
import type { ServiceDeps } from '../audit/service-deps.js';
import { unlessRaceLost } from '../backend/conflicts.js';
import { GatehouseError } from '../lib/errors.js';
import { hasSecretShape, tokenId } from '../lib/secrets.js';
import { eventContext, type RequestContext } from './principal.js';
import type { PrincipalPipeline } from './principal-pipeline.js';
import { type ApiKeyRecord, keys, type PrincipalRef, type TokenRecord } from './records.js';
import type { TokenIndex } from './token-index.js';
import { type AgentTokenScope, type IssuePair, scopeOfKey, scopeOfToken, type TokenResponse } from './token-pair.js';
import type { ResolvedToken, TokenResolver } from './token-resolver.js';
import { tokenRevocationOps } from './token-revocation.js';

/** How long a console login may wait for its second factor: the pending tokens live no longer. */
export const MFA_PENDING_TTL_MS = 5 * 60_000;

export function createPendingLogins(
  deps: ServiceDeps & {
    /** The token service's new pair of tokens (its settings applied). */
    issuePair: IssuePair;
    index: TokenIndex;
    pipeline: Pick<PrincipalPipeline, 'resolve'>;
    resolver: Pick<TokenResolver, 'resolveRecord' | 'revokedError'>;
  },
) {
  const { state, audit, clock } = deps;

  /** Whether the principal's roles ask console sign-ins for a second factor (rbac combineSignInOptions). */
  function requiresMfa(ref: PrincipalRef, scope: AgentTokenScope): boolean {
    const principal = deps.pipeline.resolve(ref, {
      ...(scope.roles ? { roles: scope.roles } : {}),
      ...(scope.credential_id ? { credential_id: scope.credential_id } : {}),
    });
    return principal.policy.signIn().requireMfa;
  }

  /**
   * A person whose roles require a security key signs in only where the key can be asked for: the
   * console (or its single sign-on). An API key of theirs gets no tokens straight from the API, so
   * the key alone never opens what the role guards. Not a failed guess (the key is right): audited,
   * not counted by the throttle. An agent's key is a machine's and is not asked (docs/mfa.md).
   */
  async function refuseOutsideConsole(ctx: RequestContext, key: ApiKeyRecord, name?: string): Promise<never> {
    await audit.record({
      type: 'auth.login.failed',
      actor: { kind: key.principal.kind, id: key.principal.id, ...(name ? { name } : {}) },
      success: false,
      ...eventContext(ctx),
      data: { reason: 'mfa_required', api_key_id: key.id },
    });
    throw new GatehouseError(
      'forbidden',
      'a role of yours requires a security key (require_mfa), so this API key gets no tokens here: sign in through the console, with the key',
    );
  }

  /** A login without its second factor whose person's roles now require one ends at its refresh. */
  function checkRefresh(record: TokenRecord): void {
    if (record.principal.kind === 'user' && record.mfa !== 'verified' && requiresMfa(record.principal, {}))
      throw new GatehouseError(
        'mfa_required',
        'a role of yours now requires a security key: sign in again through the console, with the key',
      );
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
    if (record.revoked_at !== undefined) throw deps.resolver.revokedError(record);
    if (record.expires_at <= clock())
      throw new GatehouseError('token_expired', 'the sign-in waited too long for its second factor: sign in again');
    return deps.resolver.resolveRecord(id, record);
  }

  /**
   * The second factor was given: the pending login becomes a full one (same family, so the API
   * key's login bounds still count it) and its pending tokens are revoked. The pending access
   * token's revision makes this single-use: of two racing completions, one wins.
   */
  async function completeSecondFactor(pending: ResolvedToken, ctx: RequestContext): Promise<TokenResponse> {
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
    const { ops, response } = deps.issuePair(record.principal, record.family, record.api_key_id, scope);
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
    await unlessRaceLost(
      () => state.write([{ key: item.key, revision: item.revision }], [...revoked, ...ops], issued),
      () => new GatehouseError('unauthenticated', 'this sign-in was just completed or ended: sign in again'),
    );
    await issued.done();
    return response;
  }

  return { requiresMfa, refuseOutsideConsole, checkRefresh, pendingScope, pendingLogin, completeSecondFactor };
}
