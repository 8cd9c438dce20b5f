// What a role change would do, before it is saved: for every principal it touches (users holding the
// role, agents holding it or whose owner does), what each would gain or lose — resources reached and
// as whom. Both sides are effective access (effective-access.ts) as the one access checker decides
// it: now, and with the proposed role in place of the stored one (policy-resolver.ts withRole), so a
// preview cannot disagree with what the doors will do once the change is saved.
//
// Grant ceiling: the caller sees only what it may see — users with users:read, agents with
// agents:read, and only resources its own roles let it see. What it may not see is left out, not
// counted.

import type { PolicyResolver } from '../auth/policy-resolver.js';
import type { Principal } from '../auth/principal.js';
import { createPrincipalPipeline } from '../auth/principal-pipeline.js';
import { type AgentRecord, prefixes, type UserRecord } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import type { Clock } from '../lib/clock.js';
import type { ResourceKind, RoleSpec } from '../rbac/types.js';
import type { AccessChecker } from './access-checker.js';
import { createEffectiveAccess, type EffectiveAccessService, type ResourceAccess } from './effective-access.js';

const FIELDS = ['logins', 'db_users', 'db_names', 'kube_users', 'kube_groups'] as const;
type AsWhom = Record<(typeof FIELDS)[number], string[]>;

export interface ResourceChange {
  resource: { id: string; kind: ResourceKind; name: string };
  /** gains: newly reached; loses: no longer reached; changes: still reached, as whom changes. */
  change: 'gains' | 'loses' | 'changes';
  gained: AsWhom;
  lost: AsWhom;
}

export interface PrincipalChange {
  kind: 'user' | 'agent';
  id: string;
  name: string;
  changes: ResourceChange[];
}

export interface RolePreview {
  role: string;
  /** Principals the role reaches (holders, and agents of holders) that the caller may see. */
  principals_checked: number;
  /** Only those whose access changes. */
  principals: PrincipalChange[];
  /** More principals hold the role than one preview walks (MAX_PRINCIPALS). */
  truncated: boolean;
}

/** A preview walks at most this many principals: each is a full effective-access computation, twice. */
export const MAX_PRINCIPALS = 500;

const minus = (a: string[], b: string[]) => a.filter((v) => !b.includes(v));

function diff(before: ResourceAccess | undefined, after: ResourceAccess | undefined): ResourceChange | undefined {
  const r = (after ?? before) as ResourceAccess;
  const gained = {} as AsWhom;
  const lost = {} as AsWhom;
  for (const f of FIELDS) {
    gained[f] = minus(after?.[f] ?? [], before?.[f] ?? []);
    lost[f] = minus(before?.[f] ?? [], after?.[f] ?? []);
  }
  const change = !before ? 'gains' : !after ? 'loses' : 'changes';
  if (change === 'changes' && FIELDS.every((f) => gained[f].length === 0 && lost[f].length === 0)) return undefined;
  return { resource: { id: r.id, kind: r.kind, name: r.name }, change, gained, lost };
}

export type RolePreviewService = ReturnType<typeof createRolePreview>;

export function createRolePreview(deps: {
  state: StateStore;
  clock: Clock;
  access: AccessChecker;
  policies: Pick<PolicyResolver, 'withRole'>;
  effectiveAccess: EffectiveAccessService;
}) {
  const { state } = deps;

  /** Who a change of this role may touch: its holders, and agents whose owner holds it. */
  function touched(roleName: string, caller: Principal) {
    const users = state.list<UserRecord>(prefixes.users).map((i) => i.value);
    const holders = new Set(users.filter((u) => u.roles.includes(roleName)).map((u) => u.id));
    const agents = state
      .list<AgentRecord>(prefixes.agents)
      .map((i) => i.value)
      .filter((a) => a.roles.includes(roleName) || holders.has(a.owner));
    const may = (collection: 'users' | 'agents') => caller.policy.can(collection, 'read').allowed;
    return [
      ...(may('users') ? users.filter((u) => holders.has(u.id)).map((u) => ({ kind: 'user' as const, ...u })) : []),
      ...(may('agents') ? agents.map((a) => ({ kind: 'agent' as const, ...a })) : []),
    ].map((p) => ({ kind: p.kind, id: p.id, name: p.name }));
  }

  return {
    preview(caller: Principal, roleName: string, proposed: RoleSpec): RolePreview {
      // The proposed spec keeps the stored role's name: holders name it so (a rename is refused while held).
      const whatIf = deps.policies.withRole(roleName, { ...proposed, name: roleName });
      const pipeline = createPrincipalPipeline({
        state,
        clock: deps.clock,
        policies: whatIf,
        agentRequestsPerMinute: 0,
      });
      const proposedAccess = createEffectiveAccess({ state, access: deps.access, policies: whatIf, pipeline });
      const everyone = touched(roleName, caller);
      const walked = everyone.slice(0, MAX_PRINCIPALS);
      const visible = (r: ResourceAccess) => caller.policy.canSee({ kind: r.kind, labels: r.labels });
      const principals = walked.flatMap((ref): PrincipalChange[] => {
        const now = deps.effectiveAccess.ofPrincipal(ref).resources.filter(visible);
        const then = proposedAccess.ofPrincipal(ref).resources.filter(visible);
        const ids = [...new Set([...now, ...then].map((r) => r.id))];
        const changes = ids.flatMap(
          (id) =>
            diff(
              now.find((r) => r.id === id),
              then.find((r) => r.id === id),
            ) ?? [],
        );
        return changes.length > 0 ? [{ ...ref, changes }] : [];
      });
      return {
        role: roleName,
        principals_checked: walked.length,
        principals,
        truncated: everyone.length > walked.length,
      };
    },
  };
}
