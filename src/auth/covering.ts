// Enforces "nobody grants what they do not hold" for principals: turns a caller and a target (a user,
// an agent, a set of roles) into the grants rbac/coverage.ts compares, and refuses with 403 naming
// what the caller lacks, after recording an access.denied event that names both principals.

import type { AuditLog } from '../audit/audit-log.js';
import type { StateStore } from '../backend/state.js';
import { forbidden } from '../lib/errors.js';
import { coverageGaps, type Grant } from '../rbac/coverage.js';
import type { LabeledResource, RoleSpec } from '../rbac/types.js';
import type { PolicyResolver } from './policy-resolver.js';
import { actorOf, eventContext, type Principal, type RequestContext } from './principal.js';
import { type AgentRecord, keys, type PrincipalRef, type UserRecord } from './records.js';

export type Covering = ReturnType<typeof createCovering>;

/** Who or what a refused grant was about, for the event and the message. */
export interface GrantSubject {
  kind: string;
  id?: string;
  name?: string;
}

export function createCovering(deps: {
  state: StateStore;
  policies: Pick<PolicyResolver, 'roleByName'>;
  audit: AuditLog;
}) {
  const { state } = deps;
  const user = (id: string | undefined) => (id ? state.get<UserRecord>(keys.user(id))?.value : undefined);
  // A role that no longer exists grants nothing, on either side.
  const specs = (names: readonly string[]): RoleSpec[] =>
    names.map((n) => deps.policies.roleByName(n)).filter((r): r is RoleSpec => r !== undefined);

  /** The caller's rights, as an intersection: an agent's token roles ∩ its owner's ∩ its delegator's. */
  function callerGrants(p: Principal): Grant[] {
    if (p.kind === 'user') {
      const u = user(p.id);
      return u ? [{ roles: specs(u.roles), traits: u.traits }] : [];
    }
    const owner = user(p.owner);
    if (!owner) return [];
    const parts: Grant[] = [
      { roles: specs(p.roles), traits: owner.traits },
      { roles: specs(owner.roles), traits: owner.traits },
    ];
    if (p.onBehalfOf) {
      const delegator = user(p.onBehalfOf.id);
      if (!delegator) return [];
      parts.push({ roles: specs(delegator.roles), traits: delegator.traits });
    }
    return parts;
  }

  const userGrant = (u: Pick<UserRecord, 'roles' | 'traits'>): Grant => ({ roles: specs(u.roles), traits: u.traits });

  /** An agent's own roles, expanded with its owner's traits (what it may become if its owner grows). */
  const agentGrant = (a: Pick<AgentRecord, 'roles' | 'owner'>, roles: readonly string[] = a.roles): Grant => ({
    roles: specs(roles),
    traits: user(a.owner)?.traits ?? {},
  });

  function principalGrant(ref: PrincipalRef): Grant | undefined {
    if (ref.kind === 'user') {
      const u = user(ref.id);
      return u ? userGrant(u) : undefined;
    }
    const a = state.get<AgentRecord>(keys.agent(ref.id))?.value;
    return a ? agentGrant(a) : undefined;
  }

  async function refuse(ctx: RequestContext, subject: GrantSubject, action: string, gaps: string[]): Promise<never> {
    await deps.audit.record({
      type: 'access.denied',
      actor: actorOf(ctx),
      // Something not created yet has no id: it is named in data instead.
      ...(subject.id !== undefined ? { target: { ...subject, id: subject.id } } : {}),
      success: false,
      ...eventContext(ctx),
      data: {
        action,
        reason: 'not_covered',
        lacking: gaps.slice(0, 50),
        ...(subject.id === undefined ? { subject } : {}),
      },
    });
    const shown = gaps.slice(0, 6).join(', ');
    const more = gaps.length > 6 ? ` and ${gaps.length - 6} more` : '';
    throw forbidden(`you cannot ${action}: it needs ${shown}${more}, which you do not hold`);
  }

  /**
   * Throws 403 (after an access.denied event) unless the caller covers `target`. Gatehouse's own
   * actions (bootstrap, break-glass reset: a `system` context) hold everything; a context with
   * neither a principal nor a system name holds nothing.
   */
  async function require(ctx: RequestContext, target: Grant, subject: GrantSubject, action: string): Promise<void> {
    if (!ctx.principal && ctx.system) return;
    const gaps = ctx.principal ? coverageGaps(callerGrants(ctx.principal), target) : ['(no principal)'];
    if (gaps.length > 0) await refuse(ctx, subject, action, gaps);
  }

  return {
    callerGrants,
    userGrant,
    agentGrant,
    specs,
    require,
    /**
     * Registering a resource hands it to everyone whose selectors match its labels: the caller must
     * be one of them.
     */
    async requireSees(ctx: RequestContext, resource: LabeledResource, subject: GrantSubject, action: string) {
      if (!ctx.principal && ctx.system) return;
      if (ctx.principal?.policy.canSee(resource)) return;
      const labels = Object.entries(resource.labels).map(([k, v]) => `${k}=${v}`);
      await refuse(ctx, subject, action, [`resources ${resource.kind}${labels.length ? ` ${labels.join(',')}` : ''}`]);
    },
    /** The caller must cover the principal whose credentials it creates, attaches or removes. */
    async requirePrincipal(ctx: RequestContext, ref: PrincipalRef, action: string) {
      const grant = principalGrant(ref);
      if (!grant) return; // the service answers 404 for a principal that does not exist
      const record = ref.kind === 'user' ? user(ref.id) : state.get<AgentRecord>(keys.agent(ref.id))?.value;
      await require(ctx, grant, { kind: ref.kind, id: ref.id, ...(record ? { name: record.name } : {}) }, action);
    },
  };
}
