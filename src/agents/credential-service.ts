// An agent's credentials through the API: issue (the caller must hold every role the credential
// carries), list (metadata only) and revoke one (with every token that came from it).

import type { ServiceDeps } from '../audit/service-deps.js';
import type { Covering } from '../auth/covering.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import { type AgentRecord, type CredentialRecord, type CredentialType, keys } from '../auth/records.js';
import type { TokenIndex } from '../auth/token-index.js';
import { tokenRevocationOps } from '../auth/token-revocation.js';
import { translateConflicts } from '../backend/conflicts.js';
import type { Operation } from '../backend/types.js';
import { isoTime } from '../lib/clock.js';
import { notFound } from '../lib/errors.js';
import { pageOfRecords } from '../lib/paging.js';
import type { CredentialIssuer } from './credential-issuer.js';
import type { UsageTracker } from './usage.js';

export type CredentialService = ReturnType<typeof createCredentialService>;

export function createCredentialService(
  deps: ServiceDeps & {
    issuer: CredentialIssuer;
    tokenIndex: Pick<TokenIndex, 'ofCredential' | 'ofApiKey'>;
    usage: Pick<UsageTracker, 'credentialLastUsed'>;
    covering: Pick<Covering, 'require' | 'agentGrant'>;
  },
) {
  const { state, audit, clock } = deps;

  function agentItem(id: string) {
    const item = state.get<AgentRecord>(keys.agent(id));
    if (!item) throw notFound('agent', id);
    return item;
  }

  const toResponse = (c: CredentialRecord) => ({
    id: c.id,
    type: c.type,
    roles: c.roles ?? null,
    audience: c.audience ?? null,
    on_behalf_of: c.on_behalf_of?.id ?? null,
    created_by: c.created_by ?? null,
    created_at: c.created_at,
    expires_at: c.expires_at,
    last_used_at: deps.usage.credentialLastUsed(c.id),
    revoked_at: c.revoked_at ?? null,
  });

  return {
    async issue(
      ctx: RequestContext & { principal: Principal },
      agentId: string,
      input: { type: CredentialType; ttl?: number; roles?: string[]; audience?: string },
    ) {
      const item = agentItem(agentId);
      const agent = item.value;
      // Whoever issues a credential could use it: they must hold everything it carries.
      await deps.covering.require(
        ctx,
        deps.covering.agentGrant(agent, input.roles ?? agent.roles),
        { kind: 'agent', id: agent.id, name: agent.name },
        `issue a credential of agent ${agent.name} carrying roles [${(input.roles ?? agent.roles).join(', ')}]${input.roles ? '' : ' (name a subset in roles)'}`,
      );
      return deps.issuer.issue(ctx, item, input);
    },

    list(agentId: string, q: { page: number; per_page: number; type?: CredentialType }) {
      agentItem(agentId);
      const { items, pagination } = pageOfRecords(
        state.list<CredentialRecord>(keys.credentialsOf(agentId)),
        q,
        q.type === undefined ? undefined : (c) => c.type === q.type,
      );
      return { credentials: items.map(toResponse), pagination };
    },

    /** Revokes one credential: its API key goes, its tokens are revoked; a JWT is marked revoked. */
    async revoke(ctx: RequestContext, agentId: string, credentialId: string): Promise<{ revoked_tokens: number }> {
      const agent = agentItem(agentId).value;
      const item = state.get<CredentialRecord>(keys.credential(agentId, credentialId));
      if (!item) throw notFound('credential', credentialId);
      const c = item.value;
      if (c.revoked_at !== undefined) return { revoked_tokens: 0 };
      const now = clock();
      const tokenKeys = [
        ...deps.tokenIndex.ofCredential(c.id),
        ...(c.api_key_id ? deps.tokenIndex.ofApiKey(c.api_key_id) : []),
      ];
      const tokenOps = tokenRevocationOps(state, tokenKeys, now, 'credential_revoked');
      const operations: Operation[] = [
        {
          type: 'put',
          key: item.key,
          value: JSON.stringify({ ...c, revoked_at: isoTime(now), revoked_reason: 'revoked' }),
          ...(item.expiresAt !== undefined ? { expiresAt: item.expiresAt } : {}),
        },
      ];
      if (c.api_key_id) {
        const key = state.get<{ hash: string }>(keys.apiKey(c.api_key_id));
        if (key)
          operations.push({ type: 'delete', key: key.key }, { type: 'delete', key: keys.apiKeyHash(key.value.hash) });
      }
      // The revoked record alone stops its tokens (principal-pipeline.ts); they are marked after it.
      await translateConflicts(() =>
        state.writeInParts([{ key: item.key, revision: item.revision }], operations, tokenOps),
      );
      await audit.record({
        type: 'agent.credential.revoked',
        actor: actorOf(ctx),
        target: { kind: 'agent', id: agentId, name: agent.name },
        ...eventContext(ctx),
        data: { credential_id: c.id, type: c.type, revoked_tokens: tokenOps.length },
      });
      return { revoked_tokens: tokenOps.length };
    },
  };
}
