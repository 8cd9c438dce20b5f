// One way to become a principal, for every door: API bearer tokens, SSH public keys, one-time SSH
// tickets and tokens typed as SSH passwords (and the database and Kubernetes proxies to come). How a
// secret is found differs per door (token-service.ts resolves a token's shape, record, revocation and
// expiry); what it then acts as is decided here, once, by small named checks in order:
//   origin live (SSH key, ticket's token) → principal active (an agent: and every agent above it) →
//   credential live → scope subset → delegation grant → policy intersection.
import type { StateStore } from '../backend/state.js';
import type { Clock } from '../lib/clock.js';
import { GatehouseError } from '../lib/errors.js';
import { intersectPolicies } from '../rbac/policy.js';
import { stoppedAncestor } from './agent-lineage.js';
import type { PolicyResolver } from './policy-resolver.js';
import type { Principal, TokenRef } from './principal.js';
import {
  type AgentRecord,
  type CredentialRecord,
  type DelegationGrant,
  keys,
  type PrincipalRef,
  type TokenRecord,
  type UserRecord,
} from './records.js';

/** What narrows a principal beyond its own roles; tokens and tickets carry it. */
export interface PrincipalScope {
  /** An agent credential's subset of the agent's roles (absent: all of them). */
  roles?: string[];
  /** The agent credential the secret came from. */
  credential_id?: string;
  /** Delegation (RFC 8693): the user the agent acts for. */
  on_behalf_of?: PrincipalRef;
  /** The SSH key it logged in with: it must still be registered to the principal. */
  ssh_key_id?: string;
  /** A ticket: the access token it was asked with, which must not have been revoked since. */
  ticket_token?: TokenRef;
}

export type PrincipalPipeline = ReturnType<typeof createPrincipalPipeline>;

const agentSuspended = () => new GatehouseError('agent_suspended', 'the agent is suspended; its tokens were revoked');

/**
 * The scope a principal acts under, to carry into a ticket it asks for (so redeeming it changes
 * nothing), with the token it asked with: what revokes that token ends the ticket's session too.
 */
export const scopeOf = (p: Principal): PrincipalScope => ({
  ...(p.kind === 'agent' ? { roles: [...p.roles] } : {}),
  ...(p.credentialId ? { credential_id: p.credentialId } : {}),
  ...(p.onBehalfOf ? { on_behalf_of: { kind: 'user', id: p.onBehalfOf.id } } : {}),
  ...(p.token
    ? { ticket_token: { id: p.token.id, ...(p.token.expires_at ? { expires_at: p.token.expires_at } : {}) } }
    : {}),
});

export function createPrincipalPipeline(deps: {
  state: StateStore;
  clock: Clock;
  policies: Pick<PolicyResolver, 'forUser' | 'forAgent'>;
  /** Requests per minute of an agent without its own limit. */
  agentRequestsPerMinute: number;
}) {
  const { state, clock, policies } = deps;

  /** principal active: the user or agent exists and may act now. */
  function activeUser(id: string, what: string): UserRecord {
    const user = state.get<UserRecord>(keys.user(id))?.value;
    if (user?.status !== 'active') throw new GatehouseError('principal_disabled', `${what} is not active`);
    return user;
  }
  function activeAgent(id: string): AgentRecord {
    const agent = state.get<AgentRecord>(keys.agent(id))?.value;
    if (!agent) throw new GatehouseError('principal_disabled', 'the agent no longer exists');
    if (agent.status === 'suspended') throw agentSuspended();
    if (agent.status !== 'active') throw new GatehouseError('token_revoked', 'the agent was revoked');
    // What an agent starts ends with it: the agent that created this one (or one above) stops it too.
    const stopped = stoppedAncestor(state, agent);
    if (stopped?.status === 'suspended')
      throw new GatehouseError('agent_suspended', `agent ${stopped.id}, which created this agent's line, is suspended`);
    if (stopped)
      throw new GatehouseError(
        'token_revoked',
        `agent ${stopped.id}, which created this agent's line, was ${stopped.status}`,
      );
    return agent;
  }

  /**
   * credential live: what came from an agent credential dies with it. Its tokens are also marked
   * revoked, but on etcd that may take writes after the credential's own (StateStore.writeInParts).
   */
  function liveCredential(agent: AgentRecord, id: string): void {
    const credential = state.get<CredentialRecord>(keys.credential(agent.id, id))?.value;
    if (!credential || credential.revoked_at !== undefined)
      throw new GatehouseError('token_revoked', 'the agent credential this came from was revoked');
  }

  /** scope subset: a credential narrows the agent's roles, never widens them. */
  const scopedRoles = (agent: AgentRecord, scope: PrincipalScope): string[] =>
    scope.roles ? agent.roles.filter((r) => scope.roles?.includes(r)) : agent.roles;

  /** delegation grant: the user still allows this agent to act for them. */
  function delegator(agent: AgentRecord, ref: PrincipalRef): UserRecord {
    const user = activeUser(ref.id, 'the user this agent acts for');
    const grant = state.get<DelegationGrant>(keys.delegation(agent.id, user.id))?.value;
    if (!grant || (grant.expires_at !== undefined && Date.parse(grant.expires_at) <= clock()))
      throw new GatehouseError('token_revoked', 'the user no longer allows this agent to act for them');
    return user;
  }

  /** origin live: the SSH key or the ticket's token it came with still stands. */
  function liveOrigin(ref: PrincipalRef, scope: PrincipalScope): Pick<Principal, 'sshKeyId' | 'ticketToken'> {
    if (scope.ssh_key_id !== undefined) {
      const key = state.get<{ principal: PrincipalRef }>(keys.sshKey(scope.ssh_key_id))?.value;
      if (key?.principal.id !== ref.id) throw new GatehouseError('token_revoked', 'the SSH key was removed');
    }
    if (scope.ticket_token !== undefined) {
      const token = state.get<TokenRecord>(keys.token(scope.ticket_token.id))?.value;
      const swept = !token && (scope.ticket_token.expires_at ?? Number.POSITIVE_INFINITY) <= clock();
      if ((!token && !swept) || token?.revoked_at !== undefined)
        throw new GatehouseError('token_revoked', 'the access token the ticket was asked with was revoked');
    }
    return {
      ...(scope.ssh_key_id !== undefined ? { sshKeyId: scope.ssh_key_id } : {}),
      ...(scope.ticket_token !== undefined ? { ticketToken: scope.ticket_token } : {}),
    };
  }

  /** The principal a reference acts as under a scope, or the precise 401. */
  function resolve(ref: PrincipalRef, scope: PrincipalScope = {}, token?: Principal['token']): Principal {
    const origin = liveOrigin(ref, scope);
    if (ref.kind === 'user') {
      const user = activeUser(ref.id, 'the user');
      return {
        kind: 'user',
        id: user.id,
        name: user.name,
        roles: user.roles,
        policy: policies.forUser(user),
        ...(token ? { token } : {}),
        ...origin,
      };
    }
    const agent = activeAgent(ref.id);
    if (scope.credential_id !== undefined) liveCredential(agent, scope.credential_id);
    const roles = scopedRoles(agent, scope);
    const principal: Principal = {
      kind: 'agent',
      id: agent.id,
      name: agent.name,
      roles,
      owner: agent.owner,
      // policy intersection: the agent's roles within its owner's (policy-resolver.ts) …
      policy: policies.forAgent(agent, roles),
      requestsPerMinute: agent.rate_limit?.requests_per_minute ?? deps.agentRequestsPerMinute,
      ...(scope.credential_id ? { credentialId: scope.credential_id } : {}),
      ...(token ? { token } : {}),
      ...origin,
    };
    if (scope.on_behalf_of) {
      const user = delegator(agent, scope.on_behalf_of);
      // … and, delegated, within the user's: never more than either may do.
      principal.policy = intersectPolicies(principal.policy, policies.forUser(user));
      principal.onBehalfOf = { kind: 'user', id: user.id, name: user.name };
    }
    return principal;
  }

  return {
    resolve,
    /** For doors that answer "no" without a reason (SSH): the principal, or undefined. */
    tryResolve(ref: PrincipalRef, scope: PrincipalScope = {}): Principal | undefined {
      try {
        return resolve(ref, scope);
      } catch (error) {
        if (error instanceof GatehouseError) return undefined;
        throw error;
      }
    },
  };
}
