// Effective access: every resource a principal reaches and as whom, with the role that grants each
// value — what the console's Connect panel offers and what an admin reads before changing a role.
// Nothing here decides on its own: a value is listed only when the one access checker
// (access-checker.ts) admits it for that principal, so the list cannot drift from what the doors
// allow. Each role's own patterns are only the candidates and the attribution ("granted by").

import type { PolicyResolver } from '../auth/policy-resolver.js';
import type { Principal } from '../auth/principal.js';
import type { PrincipalPipeline } from '../auth/principal-pipeline.js';
import { keys, prefixes, type UserRecord } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import { GatehouseError } from '../lib/errors.js';
import { compilePolicy, type PrincipalField } from '../rbac/policy.js';
import type { ResourceKind } from '../rbac/types.js';
import { type AccessChecker, implicitKubeUser, type ResourceRef } from './access-checker.js';

/** As whom one role lets the principal reach one resource (only values the checker admits). */
export interface RoleGrant {
  role: string;
  logins: string[];
  db_users: string[];
  db_names: string[];
  kube_users: string[];
  kube_groups: string[];
}

export interface ResourceAccess {
  id: string;
  kind: ResourceKind;
  name: string;
  labels: Record<string, string>;
  address?: string;
  protocol?: string;
  uri?: string;
  /** Every value any role grants here (the union of `grants`). */
  logins: string[];
  db_users: string[];
  db_names: string[];
  kube_users: string[];
  kube_groups: string[];
  grants: RoleGrant[];
}

export interface EffectiveAccess {
  principal: { kind: 'user' | 'agent'; id: string; name: string };
  /** False for a suspended user or an inactive agent (or one whose owner is): it reaches nothing. */
  active: boolean;
  resources: ResourceAccess[];
}

type Resource = ResourceRef & { uri?: string };

const FIELDS = ['logins', 'db_users', 'db_names', 'kube_users', 'kube_groups'] as const;

export type EffectiveAccessService = ReturnType<typeof createEffectiveAccess>;

export function createEffectiveAccess(deps: {
  state: StateStore;
  access: AccessChecker;
  policies: Pick<PolicyResolver, 'roleByName'>;
  pipeline: Pick<PrincipalPipeline, 'resolve'>;
}) {
  const { state, access } = deps;

  /** Traits the principal's roles expand with: a user's own, an agent's owner's (policy-resolver.ts). */
  function traitsOf(principal: Principal): Record<string, string[]> {
    const userId = principal.kind === 'user' ? principal.id : principal.owner;
    return (userId ? state.get<UserRecord>(keys.user(userId))?.value.traits : undefined) ?? {};
  }

  /** Does the one checker admit these values on this resource for this principal? */
  const admits = (principal: Principal, r: Resource, as: { field: PrincipalField; value: string }[]) =>
    access.authorize(principal, { kind: r.kind, id: r.id }, as).allowed;

  function grantOf(principal: Principal, r: Resource, role: string, traits: Record<string, string[]>) {
    const spec = deps.policies.roleByName(role);
    if (!spec) return undefined;
    const own = compilePolicy([spec], traits);
    if (!own.canSee(r)) return undefined;
    const mine = (field: PrincipalField) => own.allowedOn(r, field);
    const grant: RoleGrant = { role, logins: [], db_users: [], db_names: [], kube_users: [], kube_groups: [] };
    if (r.kind === 'server') {
      grant.logins = mine('logins').filter((login) => admits(principal, r, [{ field: 'logins', value: login }]));
    }
    if (r.kind === 'database') {
      // A user and a database name are asked together: each is listed when it pairs with one of the
      // role's other values (a role is the allow unit: values are never pooled across roles).
      const users = mine('db_users');
      const names = mine('db_names');
      const pair = (u: string, n: string) =>
        admits(principal, r, [
          { field: 'db_users', value: u },
          { field: 'db_names', value: n },
        ]);
      grant.db_users = users.filter((u) => names.some((n) => pair(u, n)));
      grant.db_names = names.filter((n) => users.some((u) => pair(u, n)));
    }
    if (r.kind === 'kube_cluster') {
      // As whom the kube door impersonates: the checker's identity on this cluster, by this role.
      const identity = access.kubeIdentity(principal, r);
      grant.kube_users = mine('kube_users').filter((u) => identity.users.includes(u));
      grant.kube_groups = mine('kube_groups').filter((g) => identity.groups.includes(g));
    }
    return grant;
  }

  function resourceAccess(principal: Principal, r: Resource, traits: Record<string, string[]>) {
    if (!admits(principal, r, [])) return undefined;
    const grants = principal.roles.flatMap((role) => grantOf(principal, r, role, traits) ?? []);
    const union = (field: (typeof FIELDS)[number]) => [...new Set(grants.flatMap((g) => g[field]))].sort();
    const item: ResourceAccess = {
      id: r.id,
      kind: r.kind,
      name: r.name,
      labels: r.labels,
      ...(r.address !== undefined ? { address: r.address } : {}),
      ...(r.protocol !== undefined ? { protocol: r.protocol } : {}),
      ...(r.uri !== undefined ? { uri: r.uri } : {}),
      logins: union('logins'),
      db_users: union('db_users'),
      db_names: union('db_names'),
      kube_users: union('kube_users'),
      kube_groups: union('kube_groups'),
      grants,
    };
    if (r.kind === 'kube_cluster') {
      // Roles naming groups but no user: the kube door acts as the principal's implicit user.
      const identity = access.kubeIdentity(principal, r);
      const implicit = implicitKubeUser(principal);
      if (!item.kube_users.includes(implicit) && access.kubeUserAllowed(principal, identity, implicit))
        item.kube_users = [...item.kube_users, implicit];
    }
    return item;
  }

  /** What this principal (as resolved by the pipeline, scope and all) reaches. */
  function of(principal: Principal, opts: { kind?: ResourceKind; resource?: string } = {}): EffectiveAccess {
    const traits = traitsOf(principal);
    const resources = state
      .list<Resource>(prefixes.resources)
      .map((i) => i.value)
      .filter(
        (r) =>
          (opts.kind === undefined || r.kind === opts.kind) &&
          (opts.resource === undefined || r.id === opts.resource || r.name === opts.resource),
      )
      .flatMap((r) => resourceAccess(principal, r, traits) ?? [])
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
    return { principal: { kind: principal.kind, id: principal.id, name: principal.name }, active: true, resources };
  }

  return {
    of,
    /**
     * A user's or an agent's access as its own token would have it (no credential scope). One that
     * may not act now (suspended, revoked, its owner gone) reaches nothing: answered, not refused.
     */
    ofPrincipal(
      ref: { kind: 'user' | 'agent'; id: string; name: string },
      opts: { kind?: ResourceKind; resource?: string } = {},
    ): EffectiveAccess {
      let principal: Principal;
      try {
        principal = deps.pipeline.resolve({ kind: ref.kind, id: ref.id });
      } catch (error) {
        if (!(error instanceof GatehouseError)) throw error;
        return { principal: ref, active: false, resources: [] };
      }
      return of(principal, opts);
    },
  };
}
