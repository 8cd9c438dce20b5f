// Resolving a presented access token to its record and principal, on every request: one hash and
// cache lookups. Pending logins (owing a second factor) are refused here, at every door; the second
// step reaches them through resolveRecord (pending-login.ts).

import type { StateStore } from '../backend/state.js';
import type { Clock } from '../lib/clock.js';
import { GatehouseError } from '../lib/errors.js';
import { hasSecretShape, tokenId } from '../lib/secrets.js';
import { stoppedAncestor } from './agent-lineage.js';
import type { Principal } from './principal.js';
import type { PrincipalPipeline, PrincipalScope } from './principal-pipeline.js';
import { type AgentRecord, type ExchangeSources, keys, type TokenRecord } from './records.js';

/** A resolved access token: its record and the principal it acts as. */
export interface ResolvedToken {
  /** The token's store id (tokenId): its key is keys.token(id). */
  id: string;
  record: TokenRecord;
  principal: Principal;
}

export type TokenResolver = ReturnType<typeof createTokenResolver>;

export function createTokenResolver(deps: {
  state: StateStore;
  clock: Clock;
  pipeline: Pick<PrincipalPipeline, 'resolve'>;
}) {
  const { state, clock } = deps;

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
    const answer = resolveById(id);
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
        resolveById(source.id);
      } catch (error) {
        if (!(error instanceof GatehouseError) || error.status !== 401) throw error;
        throw new GatehouseError(
          'token_revoked',
          `the ${which}'s token this was exchanged from no longer works (${error.detail})`,
        );
      }
    }
  }

  /** Resolves a stored access token by its id (keys.token), or throws the precise 401. */
  function resolveById(id: string): ResolvedToken {
    const record = state.get<TokenRecord>(keys.token(id))?.value;
    if (record?.kind !== 'access') throw new GatehouseError('invalid_token', 'unknown access token');
    if (record.revoked_at !== undefined) throw revokedError(record);
    if (record.expires_at <= clock()) throw new GatehouseError('token_expired', 'the access token has expired');
    // Half signed in: the token serves only the second step (pendingLogin), at every door.
    if (record.mfa === 'pending')
      throw new GatehouseError('mfa_required', 'finish signing in with your security key first');
    return resolveRecord(id, record);
  }

  /** The principal a token record acts as, with no check of the record itself (the caller made them). */
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

  return { resolve, resolveById, resolveRecord, revokedError };
}
