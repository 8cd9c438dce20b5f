// AI agent identities and their lifecycle. An agent acts for an accountable owner and never with
// more than the owner may do (the policy resolver intersects both at every request); nobody gives
// an agent a role they do not hold. Statuses: active ⇄ suspended → revoked (terminal); suspending,
// revoking and deleting go through the kill switch, which ends everything the agent holds at once.

import { eventOnCommit } from '../audit/on-commit.js';
import type { ServiceDeps } from '../audit/service-deps.js';
import { lineageDepth, MAX_LINEAGE_DEPTH, stoppedAncestor } from '../auth/agent-lineage.js';
import type { Covering } from '../auth/covering.js';
import type { PolicyResolver } from '../auth/policy-resolver.js';
import { unlessChanged } from '../auth/preconditions.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import {
  type AgentRateLimit,
  type AgentRecord,
  type AgentStatus,
  creatorOf,
  keys,
  prefixes,
  type UserRecord,
} from '../auth/records.js';
import { insertNamed, nameConflicts, renameIndexKeys } from '../auth/unique-names.js';
import { BackendError, type Operation } from '../backend/types.js';
import { isoTime } from '../lib/clock.js';
import { conflict, forbidden, invalidField, notFound } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { pageOfRecords, parseLabelFilter } from '../lib/paging.js';
import { coverageGaps, wideningOf } from '../rbac/coverage.js';
import type { DescendantsEnded, IssuedForOthers, KillAction, KillPlan, KillSwitch } from './kill-switch.js';
import type { AgentLimits } from './rate-limits.js';
import type { UsageTracker } from './usage.js';

export interface CreateAgentInput {
  name: string;
  description?: string;
  labels?: Record<string, string>;
  roles: string[];
  owner?: string;
  max_credential_ttl?: number | null;
  rate_limit?: Partial<AgentRateLimit>;
}

export interface UpdateAgentInput {
  name?: string;
  description?: string;
  labels?: Record<string, string>;
  roles?: string[];
  status?: AgentStatus;
  max_credential_ttl?: number | null;
  rate_limit?: Partial<AgentRateLimit>;
}

/** What a kill switch ended, as the API reports it. */
export interface Ended {
  revoked_tokens: number;
  revoked_credentials: number;
  ended_sessions: string[];
  /** Of those, the ones whose proxy confirmed it ended them (within a few seconds). */
  confirmed_ended_sessions: string[];
  /** What the agent had created for other principals (API keys, SSH keys, credentials), taken back. */
  revoked_issued_for_others: IssuedForOthers;
  /** The agents below it (created by it, by those, …) stopped with it; what they held is in the totals. */
  ended_agents: string[];
  descendants: DescendantsEnded;
}

export type AgentService = ReturnType<typeof createAgentService>;

const limitsOf = (input: Partial<AgentRateLimit> | undefined, base?: AgentRateLimit): AgentRateLimit => ({
  requests_per_minute:
    input?.requests_per_minute !== undefined ? input.requests_per_minute : (base?.requests_per_minute ?? null),
  credentials_per_minute:
    input?.credentials_per_minute !== undefined ? input.credentials_per_minute : (base?.credentials_per_minute ?? null),
});

const endedOf = (plan: KillPlan, confirmed: string[]): Ended => ({
  revoked_tokens: plan.revokedTokens,
  revoked_credentials: plan.revokedCredentials,
  ended_sessions: plan.endedSessions,
  confirmed_ended_sessions: confirmed,
  revoked_issued_for_others: plan.issuedForOthers,
  ended_agents: plan.endedAgents.map((a) => a.id),
  descendants: plan.descendants,
});

/** An agent's name keys: exact (lookups) and folded (unique regardless of case). */
const indexOf = (name: string) => ({ exact: keys.agentName(name), folded: keys.agentFoldedName(name) });

export function createAgentService(
  deps: ServiceDeps & {
    policies: Pick<PolicyResolver, 'roleByName'>;
    killSwitch: KillSwitch;
    usage: Pick<UsageTracker, 'agentLastUsed'>;
    limits: Pick<AgentLimits, 'forget'>;
    covering: Pick<Covering, 'require' | 'agentGrant' | 'userGrant' | 'specs'>;
  },
) {
  const { state, audit, clock } = deps;

  function findItem(id: string) {
    const item = state.get<AgentRecord>(keys.agent(id));
    if (!item) throw notFound('agent', id);
    return item;
  }

  function resolveOwner(caller: Principal, requested: string | undefined): UserRecord {
    const ownerId = requested ?? (caller.kind === 'user' ? caller.id : caller.owner);
    if (requested !== undefined && requested !== caller.id && !caller.policy.can('users', 'update').allowed) {
      throw forbidden('naming another user as owner needs users:update');
    }
    const owner = ownerId ? state.get<UserRecord>(keys.user(ownerId))?.value : undefined;
    if (owner?.status !== 'active') throw invalidField('/body/owner', 'must be an active user');
    return owner;
  }

  /**
   * Each role exists; what the change adds (new roles, and whatever a dropped role stopped denying)
   * is within the caller's rights — nobody hands out more than they hold — and within the owner's,
   * since the agent could never use more than its owner holds anyway.
   */
  async function checkRoles(
    ctx: RequestContext & { principal: Principal },
    agent: Pick<AgentRecord, 'name' | 'id'> | undefined,
    owner: UserRecord | undefined,
    roles: string[],
    before: string[] = [],
  ): Promise<void> {
    roles.forEach((name, i) => {
      if (!before.includes(name) && !deps.policies.roleByName(name))
        throw invalidField(`/body/roles/${i}`, `role ${JSON.stringify(name)} does not exist`);
    });
    const { specs } = deps.covering;
    const added = wideningOf(specs(before), specs(roles));
    if (added.length === 0) return;
    const target = { roles: added, traits: owner?.traits ?? {} };
    const subject = agent ? { kind: 'agent', id: agent.id, name: agent.name } : { kind: 'agent' };
    await deps.covering.require(ctx, target, subject, `give agent roles [${roles.join(', ')}]`);
    const ownerGaps = owner ? coverageGaps([deps.covering.userGrant(owner)], target) : ['(no owner)'];
    if (ownerGaps.length > 0)
      throw forbidden(
        `the owner ${owner?.name ?? '(gone)'} does not hold ${ownerGaps.slice(0, 6).join(', ')}, so the agent cannot have it`,
      );
  }

  async function recordStatusChange(
    ctx: RequestContext,
    agent: AgentRecord,
    action: KillAction | 'reactivated',
    plan?: KillPlan,
  ) {
    const type = {
      suspended: 'agent.suspended',
      revoked: 'agent.revoked',
      deleted: 'agent.deleted',
      reactivated: 'agent.reactivated',
    } as const;
    await audit.record(
      {
        type: type[action],
        actor: actorOf(ctx),
        target: { kind: 'agent', id: agent.id, name: agent.name },
        ...eventContext(ctx),
        ...(plan
          ? {
              data: {
                revoked_tokens: plan.revokedTokens,
                revoked_credentials: plan.revokedCredentials,
                deleted_api_keys: plan.deletedApiKeys,
                ended_sessions: plan.endedSessions,
                revoked_issued_for_others: plan.issuedForOthers,
                ended_agents: plan.endedAgents.map((d) => d.id),
                descendants: plan.descendants,
              },
            }
          : {}),
      },
      // Each agent below it stopped with it has its own event, naming why.
      ...(plan?.endedAgents.map((d) => ({
        type: type[action === 'deleted' ? 'revoked' : action],
        actor: actorOf(ctx),
        target: { kind: 'agent', id: d.id, name: d.name },
        ...eventContext(ctx),
        data: { reason: `creator_${action}`, creator: agent.id },
      })) ?? []),
      ...(plan?.endedSessions.map((id) => ({
        type: 'session.terminated' as const,
        actor: actorOf(ctx),
        target: { kind: 'session', id },
        session_id: id,
        ...eventContext(ctx),
        data: { reason: `agent ${action}`, agent_id: agent.id },
      })) ?? []),
    );
  }

  /** Writes a change, retrying when only a concurrent write to the agent got in the way. */
  async function withRetry<T>(attempt: () => Promise<T>): Promise<T> {
    for (let i = 0; ; i++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof BackendError) || error.reason !== 'compare_failed' || i >= 4) throw error;
      }
    }
  }

  return {
    toResponse(a: AgentRecord) {
      return {
        id: a.id,
        name: a.name,
        status: a.status,
        created_at: a.created_at,
        owner: a.owner,
        roles: a.roles,
        description: a.description,
        labels: a.labels,
        max_credential_ttl: a.max_credential_ttl ?? null,
        rate_limit: limitsOf(undefined, a.rate_limit),
        created_by: a.created_by ?? null,
        last_used_at: deps.usage.agentLastUsed(a.id),
        updated_at: a.updated_at,
      };
    },

    list(q: { page: number; per_page: number; status?: string; owner?: string; name?: string; label?: string[] }) {
      const labels = parseLabelFilter(q.label);
      const filtered = q.status !== undefined || q.owner !== undefined || q.name !== undefined || labels.length > 0;
      return pageOfRecords(
        state.list<AgentRecord>(prefixes.agents),
        q,
        filtered
          ? (a) =>
              (q.status === undefined || a.status === q.status) &&
              (q.owner === undefined || a.owner === q.owner) &&
              (q.name === undefined || a.name === q.name) &&
              labels.every(([k, v]) => a.labels[k] === v)
          : undefined,
      );
    },

    get: (id: string): AgentRecord => findItem(id).value,
    /** last_used_at as answered, which changes apart from the record. */
    lastUsed: (id: string): string | null => deps.usage.agentLastUsed(id),
    getItem: findItem,

    async create(ctx: RequestContext & { principal: Principal }, input: CreateAgentInput): Promise<AgentRecord> {
      const owner = resolveOwner(ctx.principal, input.owner);
      await checkRoles(ctx, undefined, owner, input.roles);
      const creator = ctx.principal.kind === 'agent' ? state.get<AgentRecord>(keys.agent(ctx.principal.id)) : undefined;
      if (creator && lineageDepth(state, creator.value) + 1 >= MAX_LINEAGE_DEPTH)
        throw conflict(
          `agents may create agents at most ${MAX_LINEAGE_DEPTH} deep; ${creator.value.name} is at the bound`,
        );
      const now = clock();
      const agent: AgentRecord = {
        id: newId('agent', now),
        name: input.name,
        status: 'active',
        owner: owner.id,
        roles: [...new Set(input.roles)],
        description: input.description ?? '',
        labels: input.labels ?? {},
        max_credential_ttl: input.max_credential_ttl ?? null,
        rate_limit: limitsOf(input.rate_limit),
        // An agent that creates an agent is its creator: the kill switch stops the new one with it.
        created_by: creatorOf(ctx),
        created_at: isoTime(now),
        updated_at: isoTime(now),
      };
      const index = indexOf(agent.name);
      const created = eventOnCommit(audit, {
        type: 'agent.created',
        actor: actorOf(ctx),
        target: { kind: 'agent', id: agent.id, name: agent.name },
        ...eventContext(ctx),
        data: { owner: owner.id, roles: agent.roles, created_by: agent.created_by },
      });
      await insertNamed(state, 'an agent', keys.agent(agent.id), agent, index, { onCommitted: created.onCommitted });
      await created.done();
      return agent;
    },

    /**
     * Changes fields and status. active → suspended and → revoked end everything the agent holds
     * (answered in `ended`); suspended → active lets it be issued credentials again (the old ones stay
     * dead); revoked is terminal: any change to a revoked agent is a 409.
     */
    async update(
      ctx: RequestContext & { principal: Principal },
      id: string,
      input: UpdateAgentInput,
    ): Promise<{ agent: AgentRecord; ended?: Ended }> {
      const result = await withRetry(async () => {
        const item = findItem(id);
        unlessChanged(ctx, item, `agent ${item.value.name}`);
        const a = item.value;
        const now = clock();
        const next: AgentRecord = {
          ...a,
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.labels !== undefined ? { labels: input.labels } : {}),
          ...(input.roles !== undefined ? { roles: [...new Set(input.roles)] } : {}),
          ...(input.max_credential_ttl !== undefined ? { max_credential_ttl: input.max_credential_ttl } : {}),
          ...(input.rate_limit !== undefined ? { rate_limit: limitsOf(input.rate_limit, a.rate_limit) } : {}),
          ...(input.status !== undefined ? { status: input.status } : {}),
        };
        const changed = (Object.keys(next) as Array<keyof AgentRecord>).filter(
          (k) => JSON.stringify(next[k]) !== JSON.stringify(a[k]),
        );
        if (changed.length === 0) return { agent: a, changed, ended: undefined as KillPlan | undefined };
        if (a.status === 'revoked') throw conflict(`agent ${id} is revoked; a revoked agent cannot change`);
        if (input.roles !== undefined) {
          const owner = state.get<UserRecord>(keys.user(a.owner))?.value;
          await checkRoles(ctx, a, owner, input.roles, a.roles);
        }
        // Suspending is the kill switch, open to anyone who may update agents; waking an agent up
        // hands its rights out again, so it takes someone who covers them.
        if (a.status === 'suspended' && next.status === 'active') {
          // Below a stopped agent it would stay refused at every door: say so instead.
          const stopped = stoppedAncestor(state, a);
          if (stopped)
            throw conflict(
              `agent ${stopped.id}, which created ${a.name}'s line, is ${stopped.status}; reactivate it first`,
            );
          await deps.covering.require(
            ctx,
            deps.covering.agentGrant(next),
            { kind: 'agent', id, name: a.name },
            `reactivate agent ${a.name}`,
          );
        }
        next.updated_at = isoTime(now);
        const rename = renameIndexKeys(state, item.key, indexOf(a.name), indexOf(next.name));
        const nameOps: Operation[] = [
          ...rename.addIndexKeys.map(
            (key): Operation => ({ type: 'put', key, value: JSON.stringify({ ref: item.key }) }),
          ),
          ...rename.removeIndexKeys.map((key): Operation => ({ type: 'delete', key })),
        ];
        const nameConditions = rename.addIndexKeys.map((key) => ({ key, is: 'absent' as const }));
        const killing = next.status !== a.status && (next.status === 'suspended' || next.status === 'revoked');
        if (a.status === 'suspended' && next.status === 'active') {
          // Whatever the suspension's later parts had not yet written (etcd, StateStore.writeInParts)
          // is written before the agent may act again, so nothing it held comes back to life.
          const leftovers = deps.killSwitch.plan(item, 'suspended', now).cleanup;
          if (leftovers.length > 0) await state.writeInParts([], [], leftovers);
        }
        const plan = killing ? deps.killSwitch.plan(item, next.status as 'suspended' | 'revoked', now) : undefined;
        const operations: Operation[] = [
          ...(plan?.operations.filter((op) => op.key !== item.key) ?? []),
          { type: 'put', key: item.key, value: JSON.stringify(next) },
          ...nameOps,
        ];
        try {
          await state.writeInParts(
            [{ key: item.key, revision: item.revision }, ...(plan?.conditions.slice(1) ?? []), ...nameConditions],
            operations,
            plan?.cleanup ?? [],
          );
        } catch (error) {
          const taken =
            error instanceof BackendError
              ? nameConflicts(state, 'an agent', next.name, indexOf(next.name))[error.key]
              : undefined;
          if (taken !== undefined) throw conflict(taken);
          throw error;
        }
        return { agent: next, changed, ended: plan };
      }).catch((error: unknown) => {
        if (error instanceof BackendError) throw conflict('the agent changed while this request was applied; retry');
        throw error;
      });

      const { agent, changed, ended } = result;
      if (changed.length === 0) return { agent };
      const fields = changed.filter((k) => k !== 'status' && k !== 'updated_at');
      if (fields.length > 0) {
        await audit.record({
          type: 'agent.updated',
          actor: actorOf(ctx),
          target: { kind: 'agent', id, name: agent.name },
          ...eventContext(ctx),
          data: { fields, ...(fields.includes('roles') ? { roles: agent.roles } : {}) },
        });
      }
      if (changed.includes('status')) {
        await recordStatusChange(
          ctx,
          agent,
          agent.status === 'active' ? 'reactivated' : (agent.status as KillAction),
          ended,
        );
      }
      if (!ended) return { agent };
      const confirmed = await deps.killSwitch.confirmEnded(ended, agent.status as KillAction);
      return { agent, ended: endedOf(ended, confirmed) };
    },

    /** Revokes everything the agent holds and removes it (its events stay in the audit trail). */
    async remove(ctx: RequestContext, id: string): Promise<Ended & { id: string }> {
      const { agent, plan } = await withRetry(async () => {
        const item = findItem(id);
        unlessChanged(ctx, item, `agent ${item.value.name}`);
        const plan = deps.killSwitch.plan(item, 'deleted', clock());
        await state.writeInParts(plan.conditions, plan.operations, plan.cleanup);
        return { agent: item.value, plan };
      }).catch((error: unknown) => {
        if (error instanceof BackendError) throw conflict('the agent changed while this request was applied; retry');
        throw error;
      });
      deps.limits.forget(id);
      await recordStatusChange(ctx, agent, 'deleted', plan);
      return { id, ...endedOf(plan, await deps.killSwitch.confirmEnded(plan, 'deleted')) };
    },
  };
}
