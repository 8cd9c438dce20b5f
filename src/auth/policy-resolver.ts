// Compiles the policy of a user or agent from the cached roles, memoized per role set and traits,
// and forgotten whenever any role changes.
import type { StateStore } from '../backend/state.js';
import { compilePolicy, intersectPolicies, type Policy } from '../rbac/policy.js';
import type { RoleSpec } from '../rbac/types.js';
import { type AgentRecord, keys, prefixes, type RoleRecord, type UserRecord } from './records.js';

const DENY_ALL = compilePolicy([]);

export type PolicyResolver = ReturnType<typeof createPolicyResolver>;

export function createPolicyResolver(state: StateStore) {
  const memo = new Map<string, Policy>();
  state.cache.onChange((key) => {
    if (key.startsWith(prefixes.roles)) memo.clear();
  });

  function roleByName(name: string): RoleSpec | undefined {
    const ref = state.get<{ ref: string }>(keys.roleName(name));
    return ref ? state.get<RoleRecord>(ref.value.ref)?.value : undefined;
  }

  return {
    ...resolverOver(state, roleByName, memo),
    /**
     * The same resolution with one role replaced by a proposed spec, not memoized: what a role change
     * would do (the role editor's preview, access/role-preview.ts), decided by the same code.
     */
    withRole: (name: string, spec: RoleSpec) =>
      resolverOver(state, (n) => (n === name ? spec : roleByName(n)), undefined),
  };
}

function resolverOver(
  state: StateStore,
  roleByName: (name: string) => RoleSpec | undefined,
  memo: Map<string, Policy> | undefined,
) {
  function forRoles(roleNames: readonly string[], traits: Record<string, string[]>): Policy {
    const memoKey = `${roleNames.join('\u0000')}\u0001${JSON.stringify(traits)}`;
    let policy = memo?.get(memoKey);
    if (!policy) {
      // A role that no longer exists grants nothing (deny by default).
      const specs = roleNames.map(roleByName).filter((r): r is RoleSpec => r !== undefined);
      policy = compilePolicy(specs, traits);
      if (memo && memo.size > 10_000) memo.clear();
      memo?.set(memoKey, policy);
    }
    return policy;
  }

  return {
    roleByName,
    forUser: (user: UserRecord): Policy => forRoles(user.roles, user.traits),
    /** The agent's roles (or the given subset of them, for a scoped credential) within its owner's. */
    forAgent(agent: AgentRecord, roles: readonly string[] = agent.roles): Policy {
      const owner = state.get<UserRecord>(keys.user(agent.owner))?.value;
      if (owner?.status !== 'active') return DENY_ALL;
      return intersectPolicies(forRoles(roles, owner.traits), forRoles(owner.roles, owner.traits));
    },
  };
}
