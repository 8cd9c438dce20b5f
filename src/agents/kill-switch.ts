// The kill switch: suspending, revoking or deleting an agent ends everything it holds in one atomic
// write — its status, every token (revoked with the reason, so holders hear agent_suspended), its
// API keys, its credentials, and its live sessions (marked terminated for the proxy to end). Every
// instance sees the write through the backend watch, and authentication reads only that cache, so
// the next request with any of its tokens fails, everywhere.

import { sshKeyRemovalOps } from '../api/ssh-keys/ssh-keys.service.js';
import type { AgentRecord, ApiKeyRecord, CredentialRecord, DelegationGrant } from '../auth/records.js';
import { keys } from '../auth/records.js';
import type { TokenIndex } from '../auth/token-index.js';
import { tokenRevocationOps } from '../auth/token-revocation.js';
import { heldFoldedKey } from '../auth/unique-names.js';
import type { CachedItem } from '../backend/cache.js';
import type { StateStore } from '../backend/state.js';
import type { Condition, Operation } from '../backend/types.js';
import { isoTime } from '../lib/clock.js';

export type KillAction = 'suspended' | 'revoked' | 'deleted';

export interface KillPlan {
  conditions: Condition[];
  operations: Operation[];
  revokedTokens: number;
  revokedCredentials: number;
  deletedApiKeys: number;
  endedSessions: string[];
}

interface SessionLike {
  id: string;
  status: string;
  principal: { kind: string; id: string };
  ended_at?: string | null;
}

const REASON: Record<KillAction, string> = {
  suspended: 'agent_suspended',
  revoked: 'agent_revoked',
  deleted: 'agent_deleted',
};

export type KillSwitch = ReturnType<typeof createKillSwitch>;

export function createKillSwitch(deps: { state: StateStore; tokenIndex: Pick<TokenIndex, 'ofPrincipal'> }) {
  const { state } = deps;

  /** The write that ends an agent's access (and, for 'deleted', the agent itself), as of now. */
  function plan(agent: CachedItem<AgentRecord>, action: KillAction, now: number): KillPlan {
    const a = agent.value;
    const reason = REASON[action];
    const conditions: Condition[] = [{ key: agent.key, revision: agent.revision }];
    const operations: Operation[] = [];

    if (action === 'deleted') {
      operations.push(
        { type: 'delete', key: agent.key },
        { type: 'delete', key: keys.agentName(a.name) },
        ...heldFoldedKey(state, keys.agentFoldedName(a.name), agent.key).map(
          (key): Operation => ({ type: 'delete', key }),
        ),
        { type: 'delete', key: keys.usage('agent', a.id) },
      );
    } else if (a.status !== action) {
      const updated: AgentRecord = { ...a, status: action, updated_at: isoTime(now) };
      operations.push({ type: 'put', key: agent.key, value: JSON.stringify(updated) });
    }

    const tokenOps = tokenRevocationOps(state, deps.tokenIndex.ofPrincipal(a.id), now, reason);
    operations.push(...tokenOps);

    const apiKeys = state.list<ApiKeyRecord>('apikeys/').filter((k) => k.value.principal.id === a.id);
    for (const k of apiKeys) {
      operations.push({ type: 'delete', key: k.key }, { type: 'delete', key: keys.apiKeyHash(k.value.hash) });
    }

    let revokedCredentials = 0;
    for (const c of state.list<CredentialRecord>(keys.credentialsOf(a.id))) {
      if (action === 'deleted') {
        operations.push({ type: 'delete', key: c.key });
        continue;
      }
      if (c.value.revoked_at !== undefined || Date.parse(c.value.expires_at) <= now) continue;
      revokedCredentials++;
      const revoked: CredentialRecord = { ...c.value, revoked_at: isoTime(now), revoked_reason: reason };
      operations.push({
        type: 'put',
        key: c.key,
        value: JSON.stringify(revoked),
        ...(c.expiresAt !== undefined ? { expiresAt: c.expiresAt } : {}),
      });
    }
    if (action === 'deleted') {
      revokedCredentials = state
        .list<CredentialRecord>(keys.credentialsOf(a.id))
        .filter((c) => c.value.revoked_at === undefined && Date.parse(c.value.expires_at) > now).length;
    }

    // A revoked or deleted agent will never act for anyone again: the users' consents go too, and
    // its SSH keys (a suspended agent keeps them; the proxy refuses it while it is suspended).
    if (action !== 'suspended') {
      for (const g of state.list<DelegationGrant>(keys.delegationsOf(a.id)))
        operations.push({ type: 'delete', key: g.key });
      operations.push(...sshKeyRemovalOps(state, a.id));
    }

    const endedSessions: string[] = [];
    for (const s of state.list<SessionLike>('sessions/')) {
      if (s.value.status !== 'active' || s.value.principal?.id !== a.id) continue;
      endedSessions.push(s.value.id);
      const ended = { ...s.value, status: 'terminated', ended_at: isoTime(now), end_reason: REASON[action] };
      operations.push({ type: 'put', key: s.key, value: JSON.stringify(ended) });
    }

    return {
      conditions,
      operations,
      revokedTokens: tokenOps.length,
      revokedCredentials,
      deletedApiKeys: apiKeys.length,
      endedSessions,
    };
  }

  return { plan };
}
