// AI agent identities. An agent acts for an accountable owner and never with more than the owner
// may do (the policy resolver intersects both at every request).
import type { AuditLog } from '../../audit/audit-log.js';
import type { PolicyResolver } from '../../auth/policy-resolver.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../../auth/principal.js';
import { type AgentRecord, keys, type UserRecord } from '../../auth/records.js';
import type { TokenService } from '../../auth/token-service.js';
import type { StateStore } from '../../backend/state.js';
import { type Clock, isoTime } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { translateConflicts } from '../conflicts.js';
import { conflict, forbidden, invalidField, notFound } from '../errors.js';
import { pageOfRecords } from '../schemas.js';
import type { UserService } from '../users/users.service.js';

export interface CreateAgentInput {
  name: string;
  description?: string;
  labels?: Record<string, string>;
  roles: string[];
  owner?: string;
}

export const toAgentResponse = (a: AgentRecord) => ({
  id: a.id,
  name: a.name,
  status: a.status,
  created_at: a.created_at,
  owner: a.owner,
  roles: a.roles,
  description: a.description,
  labels: a.labels,
  updated_at: a.updated_at,
});

export type AgentService = ReturnType<typeof createAgentService>;

export function createAgentService(deps: {
  state: StateStore;
  audit: AuditLog;
  clock: Clock;
  policies: Pick<PolicyResolver, 'roleByName'>;
  tokens: Pick<TokenService, 'issueFor'>;
  users: Pick<UserService, 'insertApiKey'>;
}) {
  const { state, audit, clock } = deps;

  function find(id: string): AgentRecord {
    const agent = state.get<AgentRecord>(keys.agent(id))?.value;
    if (!agent) throw notFound('agent', id);
    return agent;
  }

  function resolveOwner(caller: Principal, requested: string | undefined): UserRecord {
    const ownerId = requested ?? (caller.kind === 'user' ? caller.id : caller.owner);
    if (requested !== undefined && requested !== caller.id && !caller.policy.can('users', 'update').allowed) {
      throw forbidden('naming another user as owner needs users:update');
    }
    const owner = ownerId ? state.get<UserRecord>(keys.user(ownerId))?.value : undefined;
    if (!owner || owner.status !== 'active') throw invalidField('/body/owner', 'must be an active user');
    return owner;
  }

  return {
    list(q: { page: number; per_page: number; status?: string; owner?: string; name?: string }) {
      const filtered = q.status !== undefined || q.owner !== undefined || q.name !== undefined;
      return pageOfRecords(
        state.list<AgentRecord>('agents/'),
        q,
        filtered
          ? (a) =>
              (q.status === undefined || a.status === q.status) &&
              (q.owner === undefined || a.owner === q.owner) &&
              (q.name === undefined || a.name === q.name)
          : undefined,
      );
    },

    get: find,

    async create(ctx: RequestContext & { principal: Principal }, input: CreateAgentInput): Promise<AgentRecord> {
      const owner = resolveOwner(ctx.principal, input.owner);
      input.roles.forEach((name, i) => {
        if (!deps.policies.roleByName(name))
          throw invalidField(`/body/roles/${i}`, `role ${JSON.stringify(name)} does not exist`);
        // Nobody hands an agent a role its owner does not hold (admins hold every role).
        if (!owner.roles.includes(name) && !owner.roles.includes('admin')) {
          throw forbidden(`the owner ${owner.name} does not hold role ${name}, so the agent cannot have it`);
        }
      });
      const now = clock();
      const agent: AgentRecord = {
        id: newId('agent', now),
        name: input.name,
        status: 'active',
        owner: owner.id,
        roles: [...new Set(input.roles)],
        description: input.description ?? '',
        labels: input.labels ?? {},
        created_at: isoTime(now),
        updated_at: isoTime(now),
      };
      await translateConflicts(
        () => state.insert(keys.agent(agent.id), agent, { indexKeys: [keys.agentName(agent.name)] }),
        {
          [keys.agentName(agent.name)]: `an agent named ${JSON.stringify(agent.name)} already exists`,
        },
      );
      await audit.record({
        type: 'agent.created',
        actor: actorOf(ctx),
        target: { kind: 'agent', id: agent.id, name: agent.name },
        ...eventContext(ctx),
        data: { owner: owner.id, roles: agent.roles },
      });
      return agent;
    },

    async issueCredentials(ctx: RequestContext, id: string, opts: { ttl: number; api_key_ttl: number }) {
      const agent = find(id);
      if (agent.status !== 'active')
        throw conflict(`agent ${id} is ${agent.status}; credentials are issued only to active agents`);
      const { record, secret } = await deps.users.insertApiKey(
        { kind: 'agent', id },
        { name: `credentials ${isoTime(clock())}`, ttl: opts.api_key_ttl },
      );
      const tokens = await deps.tokens.issueFor({ kind: 'agent', id }, record.id, opts.ttl * 1000);
      await audit.record({
        type: 'agent.credentials.issued',
        actor: actorOf(ctx),
        target: { kind: 'agent', id, name: agent.name },
        ...eventContext(ctx),
        data: { api_key_id: record.id, ttl: opts.ttl, api_key_expires_at: record.expires_at },
      });
      return {
        agent_id: id,
        api_key_id: record.id,
        api_key: secret,
        api_key_expires_at: record.expires_at as string,
        ...tokens,
      };
    },
  };
}
