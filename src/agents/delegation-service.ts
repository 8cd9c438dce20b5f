// A user's consent that an agent may act for them (RFC 8693 token exchange needs it): given and
// withdrawn by that user (or by someone who may update users), never by an agent. Withdrawing it
// revokes every token the agent holds for that user.

import type { ServiceDeps } from '../audit/service-deps.js';
import type { Covering } from '../auth/covering.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import {
  type AgentRecord,
  type CredentialRecord,
  type DelegationGrant,
  keys,
  type TokenRecord,
  type UserRecord,
} from '../auth/records.js';
import type { TokenIndex } from '../auth/token-index.js';
import { tokenRevocationOps } from '../auth/token-revocation.js';
import { translateConflicts } from '../backend/conflicts.js';
import type { Operation } from '../backend/types.js';
import { isoTime } from '../lib/clock.js';
import { conflict, forbidden, found, invalidField, notFound } from '../lib/errors.js';
import { page } from '../lib/paging.js';

export type DelegationService = ReturnType<typeof createDelegationService>;

export function createDelegationService(
  deps: ServiceDeps & {
    tokenIndex: Pick<TokenIndex, 'ofPrincipal'>;
    covering: Pick<Covering, 'requirePrincipal'>;
  },
) {
  const { state, audit, clock } = deps;

  const agentOf = (id: string): AgentRecord => found(state.get<AgentRecord>(keys.agent(id))?.value, 'agent', id);

  /** Only the user themself, or someone who may update users, speaks for a user; agents never do. */
  function checkSpeaksFor(p: Principal, userId: string): void {
    if (p.kind !== 'user') throw forbidden('only a user can allow an agent to act for them, not an agent');
    if (p.id !== userId && !p.policy.can('users', 'update').allowed)
      throw forbidden('you can only allow agents to act for yourself (others need users:update)');
  }

  const toResponse = (g: DelegationGrant) => ({
    agent_id: g.agent_id,
    user_id: g.user_id,
    created_at: g.created_at,
    expires_at: g.expires_at ?? null,
  });

  /** Revocations of every token and credential the agent holds for the user. */
  function heldFor(agentId: string, userId: string, now: number) {
    const held = deps.tokenIndex
      .ofPrincipal(agentId)
      .filter((k) => state.get<TokenRecord>(k)?.value.on_behalf_of?.id === userId);
    const tokenOps = tokenRevocationOps(state, held, now, 'delegation_withdrawn');
    const credentialOps: Operation[] = state
      .list<CredentialRecord>(keys.credentialsOf(agentId))
      .filter((c) => c.value.on_behalf_of?.id === userId && c.value.revoked_at === undefined)
      .map((c) => ({
        type: 'put',
        key: c.key,
        value: JSON.stringify({ ...c.value, revoked_at: isoTime(now), revoked_reason: 'delegation_withdrawn' }),
        ...(c.expiresAt !== undefined ? { expiresAt: c.expiresAt } : {}),
      }));
    return { tokenOps, credentialOps };
  }

  return {
    async grant(
      ctx: RequestContext & { principal: Principal },
      agentId: string,
      input: { user?: string; ttl?: number },
    ) {
      const agent = agentOf(agentId);
      const userId = input.user ?? ctx.principal.id;
      checkSpeaksFor(ctx.principal, userId);
      const user = state.get<UserRecord>(keys.user(userId))?.value;
      if (user?.status !== 'active') throw invalidField('/body/user', 'must be an active user');
      if (agent.status === 'revoked') throw conflict(`agent ${agentId} is revoked`);
      // Consent given for someone else lends their rights (within the agent's): cover them first.
      if (userId !== ctx.principal.id)
        await deps.covering.requirePrincipal(
          ctx,
          { kind: 'user', id: userId },
          `let agent ${agent.name} act for user ${user.name}`,
        );
      const now = clock();
      const key = keys.delegation(agentId, userId);
      const current = state.get<DelegationGrant>(key)?.value;
      if (!current || (current.expires_at !== undefined && Date.parse(current.expires_at) <= now)) {
        // A new consent starts afresh: what the agent held for the user under a consent withdrawn or
        // lapsed (tokens of an expired grant, or marks a withdrawal written in parts had not yet
        // written, StateStore.writeInParts) never comes back to life with it.
        const { tokenOps, credentialOps } = heldFor(agentId, userId, now);
        if (tokenOps.length + credentialOps.length > 0)
          await state.writeInParts([], [], [...tokenOps, ...credentialOps]);
      }
      const grant: DelegationGrant = {
        agent_id: agentId,
        user_id: userId,
        created_at: isoTime(now),
        created_by: { kind: ctx.principal.kind, id: ctx.principal.id },
        ...(input.ttl !== undefined ? { expires_at: isoTime(now + input.ttl * 1000) } : {}),
      };
      await translateConflicts(() =>
        state.write(
          [{ key: keys.agent(agentId), is: 'present' }],
          [
            {
              type: 'put',
              key,
              value: JSON.stringify(grant),
              ...(input.ttl !== undefined ? { expiresAt: now + input.ttl * 1000 } : {}),
            },
          ],
        ),
      );
      await audit.record({
        type: 'agent.delegation.granted',
        actor: actorOf(ctx),
        target: { kind: 'agent', id: agentId, name: agent.name },
        ...eventContext(ctx),
        data: { user_id: userId, expires_at: grant.expires_at ?? null },
      });
      return toResponse(grant);
    },

    list(agentId: string, q: { page: number; per_page: number }) {
      agentOf(agentId);
      const now = clock();
      const grants = state
        .list<DelegationGrant>(keys.delegationsOf(agentId))
        .map((i) => i.value)
        .filter((g) => g.expires_at === undefined || Date.parse(g.expires_at) > now);
      const { items, pagination } = page(grants, q);
      return { delegations: items.map(toResponse), pagination };
    },

    /** Withdraws the consent and revokes every token and credential the agent holds for that user. */
    async withdraw(ctx: RequestContext & { principal: Principal }, agentId: string, userId: string) {
      const agent = agentOf(agentId);
      checkSpeaksFor(ctx.principal, userId);
      const item = state.get<DelegationGrant>(keys.delegation(agentId, userId));
      if (!item) throw notFound('delegation', `${agentId}/${userId}`);
      const now = clock();
      const { tokenOps, credentialOps } = heldFor(agentId, userId, now);
      await translateConflicts(() =>
        // Without the grant no token acts for the user (principal-pipeline.ts); they are marked after it.
        state.writeInParts(
          [{ key: item.key, revision: item.revision }],
          [{ type: 'delete', key: item.key }],
          [...tokenOps, ...credentialOps],
        ),
      );
      await audit.record({
        type: 'agent.delegation.revoked',
        actor: actorOf(ctx),
        target: { kind: 'agent', id: agentId, name: agent.name },
        ...eventContext(ctx),
        data: { user_id: userId, revoked_tokens: tokenOps.length, revoked_credentials: credentialOps.length },
      });
      return { revoked_tokens: tokenOps.length, revoked_credentials: credentialOps.length };
    },
  };
}
