// The kill switch: suspending, revoking or deleting an agent ends everything it holds in one atomic
// write — its status, every token (revoked with the reason, so holders hear agent_suspended), its
// API keys, its credentials, and its live sessions (marked terminated for the proxy to end). Every
// instance sees the write through the backend watch, and authentication reads only that cache, so
// the next request with any of its tokens fails, everywhere. After the write, confirmEnded asks the
// proxies holding its sessions to end them now and reports which confirmed (cluster/session-bus.ts).
// On etcd one write carries at most 128 operations: an agent holding more is stopped by the status
// change first (every door checks it), and the rest is written down after it in parts
// (StateStore.writeInParts), what it issued to others and its sessions first.
// What an agent starts ends with it: the agents it created (and those they created, auth/agent-
// lineage.ts) are suspended or revoked with it — deleting it revokes them — with all they hold. Its
// own status write already stops them (every door checks the agents above an agent); marking them
// means that reactivating it does not wake them: each is reactivated on its own, deliberately.

import { descendantsOf } from '../auth/agent-lineage.js';
import type { AgentRecord, ApiKeyRecord, CredentialRecord, DelegationGrant } from '../auth/records.js';
import { keys, prefixes } from '../auth/records.js';
import type { TokenIndex } from '../auth/token-index.js';
import { tokenRevocationOps } from '../auth/token-revocation.js';
import { heldFoldedKey } from '../auth/unique-names.js';
import type { CachedItem } from '../backend/cache.js';
import type { StateStore } from '../backend/state.js';
import type { Condition, Operation } from '../backend/types.js';
import type { SessionBus } from '../cluster/session-bus.js';
import { isoTime } from '../lib/clock.js';
import { sessionTerminationOps } from '../sessions/session-registry.js';
import { type SshKeyRecord, sshKeyDeleteOps, sshKeyRemovalOps } from '../ssh-keys/ssh-key-service.js';

/** The write that marks one agent credential revoked now, for this reason; its expiry stays. */
function revokeCredentialOp(c: CachedItem<CredentialRecord>, now: number, reason: string): Operation {
  const revoked: CredentialRecord = { ...c.value, revoked_at: isoTime(now), revoked_reason: reason };
  return {
    type: 'put',
    key: c.key,
    value: JSON.stringify(revoked),
    ...(c.expiresAt !== undefined ? { expiresAt: c.expiresAt } : {}),
  };
}

export type KillAction = 'suspended' | 'revoked' | 'deleted';

/** What the agent had created for other principals, and the kill switch took back. */
export interface IssuedForOthers {
  api_keys: number;
  ssh_keys: number;
  credentials: number;
  /** Tokens that came from those API keys and credentials. */
  tokens: number;
}

/** What the agents below the stopped one held, ended with it (also counted in the plan's totals). */
export interface DescendantsEnded {
  agents: number;
  credentials: number;
  tokens: number;
  sessions: number;
}

export interface KillPlan {
  conditions: Condition[];
  /** The agent's own record: changing it alone stops every token, key and credential of the agent. */
  operations: Operation[];
  /** Everything else the agent holds, marked ended; for StateStore.writeInParts. */
  cleanup: Operation[];
  revokedTokens: number;
  revokedCredentials: number;
  deletedApiKeys: number;
  endedSessions: string[];
  issuedForOthers: IssuedForOthers;
  /** The agents below it whose status this changes (suspended, or revoked). */
  endedAgents: Array<{ id: string; name: string }>;
  descendants: DescendantsEnded;
}

/** The first operation on each key (a write may not name one key twice: etcd refuses it). */
export function onePerKey(ops: Operation[]): Operation[] {
  const seen = new Set<string>();
  return ops.filter((op) => {
    if (seen.has(op.key)) return false;
    seen.add(op.key);
    return true;
  });
}

const REASON: Record<KillAction, string> = {
  suspended: 'agent_suspended',
  revoked: 'agent_revoked',
  deleted: 'agent_deleted',
};

export type KillSwitch = ReturnType<typeof createKillSwitch>;

export function createKillSwitch(deps: {
  state: StateStore;
  tokenIndex: Pick<TokenIndex, 'ofPrincipal' | 'ofApiKey' | 'ofCredential'>;
  sessions: Pick<SessionBus, 'confirmEnded'>;
}) {
  const { state } = deps;

  /**
   * An agent that could create credentials for others (users:update, agents:update) must not leave
   * them behind when it is stopped: whatever it minted for someone else goes with it, or the kill
   * switch would leave a way back in.
   */
  function takeBackIssued(agentId: string, now: number, reason: string) {
    const operations: Operation[] = [];
    const tokenKeys = new Set<string>();
    const made = (c: { created_by?: { id?: string } }) => c.created_by?.id === agentId;
    const apiKeys = state
      .list<ApiKeyRecord>(prefixes.apiKeys)
      .filter((k) => made(k.value) && k.value.principal.id !== agentId);
    for (const k of apiKeys) {
      operations.push({ type: 'delete', key: k.key }, { type: 'delete', key: keys.apiKeyHash(k.value.hash) });
      for (const t of deps.tokenIndex.ofApiKey(k.value.id)) tokenKeys.add(t);
    }
    const sshKeys = state
      .list<SshKeyRecord>(prefixes.sshKeys)
      .filter((k) => made(k.value) && k.value.principal.id !== agentId);
    for (const k of sshKeys) operations.push(...sshKeyDeleteOps(k));
    const credentials = state
      .list<CredentialRecord>(prefixes.credentials)
      .filter(
        (c) =>
          made(c.value) &&
          c.value.agent_id !== agentId &&
          c.value.revoked_at === undefined &&
          Date.parse(c.value.expires_at) > now,
      );
    for (const c of credentials) {
      operations.push(revokeCredentialOp(c, now, reason));
      for (const t of deps.tokenIndex.ofCredential(c.value.id)) tokenKeys.add(t);
      const apiKeyId = c.value.api_key_id;
      if (apiKeyId === undefined) continue;
      for (const t of deps.tokenIndex.ofApiKey(apiKeyId)) tokenKeys.add(t);
      const key = state.get<ApiKeyRecord>(keys.apiKey(apiKeyId));
      if (key && !apiKeys.some((k) => k.key === key.key))
        operations.push({ type: 'delete', key: key.key }, { type: 'delete', key: keys.apiKeyHash(key.value.hash) });
    }
    const tokenOps = tokenRevocationOps(state, [...tokenKeys], now, reason);
    operations.push(...tokenOps);
    const counts: IssuedForOthers = {
      api_keys: apiKeys.length,
      ssh_keys: sshKeys.length,
      credentials: credentials.length,
      tokens: tokenOps.length,
    };
    return { operations, counts };
  }

  /** The write that ends one agent's access (and, for 'deleted', the agent itself), as of now. */
  function planOne(
    agent: CachedItem<AgentRecord>,
    action: KillAction,
    now: number,
  ): Omit<KillPlan, 'endedAgents' | 'descendants'> {
    const a = agent.value;
    const reason = REASON[action];
    const conditions: Condition[] = [{ key: agent.key, revision: agent.revision }];
    const operations: Operation[] = [];
    const cleanup: Operation[] = [];

    if (action === 'deleted') {
      operations.push(
        { type: 'delete', key: agent.key },
        { type: 'delete', key: keys.agentName(a.name) },
        ...heldFoldedKey(state, keys.agentFoldedName(a.name), agent.key).map(
          (key): Operation => ({ type: 'delete', key }),
        ),
        { type: 'delete', key: keys.usage('agent', a.id) },
      );
    } else if (a.status !== action && a.status !== 'revoked') {
      const updated: AgentRecord = { ...a, status: action, updated_at: isoTime(now) };
      operations.push({ type: 'put', key: agent.key, value: JSON.stringify(updated) });
    }

    // First what the agent's status does not stop by itself: what it issued to others, its sessions.
    const issued = takeBackIssued(a.id, now, `issuer_${reason}`);
    cleanup.push(...issued.operations);
    const { ids: endedSessions, operations: sessionOps } = sessionTerminationOps(state, a.id, now, REASON[action]);
    cleanup.push(...sessionOps);

    const tokenOps = tokenRevocationOps(state, deps.tokenIndex.ofPrincipal(a.id), now, reason);
    cleanup.push(...tokenOps);

    const apiKeys = state.list<ApiKeyRecord>(prefixes.apiKeys).filter((k) => k.value.principal.id === a.id);
    for (const k of apiKeys) {
      cleanup.push({ type: 'delete', key: k.key }, { type: 'delete', key: keys.apiKeyHash(k.value.hash) });
    }

    let revokedCredentials = 0;
    for (const c of state.list<CredentialRecord>(keys.credentialsOf(a.id))) {
      if (action === 'deleted') {
        cleanup.push({ type: 'delete', key: c.key });
        continue;
      }
      if (c.value.revoked_at !== undefined || Date.parse(c.value.expires_at) <= now) continue;
      revokedCredentials++;
      cleanup.push(revokeCredentialOp(c, now, reason));
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
        cleanup.push({ type: 'delete', key: g.key });
      cleanup.push(...sshKeyRemovalOps(state, a.id));
    }

    return {
      conditions,
      operations,
      cleanup,
      issuedForOthers: issued.counts,
      revokedTokens: tokenOps.length,
      revokedCredentials,
      deletedApiKeys: apiKeys.length,
      endedSessions,
    };
  }

  /**
   * The write that ends an agent's access, and that of every agent below it: its own record decides
   * (conditions, operations); the agents below are marked first in the cleanup, then what they held.
   * `skip`: agents stopped by plans of their own in the same write (a deleted user's), with their lines.
   */
  function plan(
    agent: CachedItem<AgentRecord>,
    action: KillAction,
    now: number,
    opts: { skip?: ReadonlySet<string> } = {},
  ): KillPlan {
    const own = planOne(agent, action, now);
    const below: KillAction = action === 'deleted' ? 'revoked' : action;
    const marks: Operation[] = [];
    const rest: Operation[] = [];
    const endedAgents: KillPlan['endedAgents'] = [];
    const descendants: DescendantsEnded = { agents: 0, credentials: 0, tokens: 0, sessions: 0 };
    const endedSessions = [...own.endedSessions];
    for (const d of descendantsOf(state, agent.value.id, opts.skip)) {
      // A suspension never turns a revoked agent back into a suspended one.
      if (d.value.status === 'revoked') continue;
      const sub = planOne(d, below, now);
      if (sub.operations.length > 0) endedAgents.push({ id: d.value.id, name: d.value.name });
      marks.push(...sub.operations);
      rest.push(...sub.cleanup);
      descendants.credentials += sub.revokedCredentials;
      descendants.tokens += sub.revokedTokens;
      descendants.sessions += sub.endedSessions.length;
      endedSessions.push(...sub.endedSessions);
    }
    descendants.agents = endedAgents.length;
    return {
      ...own,
      // What the agent issued to the agents below it is theirs too: each key is written once.
      cleanup: onePerKey([...marks, ...own.cleanup, ...rest]),
      revokedTokens: own.revokedTokens + descendants.tokens,
      revokedCredentials: own.revokedCredentials + descendants.credentials,
      endedSessions,
      endedAgents,
      descendants,
    };
  }

  /** Once the plan is written: the sessions it ended whose holder confirmed it (bounded wait). */
  const confirmEnded = (plan: Pick<KillPlan, 'endedSessions'>, action: KillAction): Promise<string[]> =>
    plan.endedSessions.length === 0
      ? Promise.resolve([])
      : deps.sessions.confirmEnded(plan.endedSessions, REASON[action]);

  return { plan, confirmEnded };
}
