// May this principal reach this protected resource as this identity? One decision for every proxy
// (DESIGN.md §4): the resource must be visible to the principal's roles (selectors, deny wins) — a
// resource it may not see does not exist for it — and each "as whom" value (database user, database
// name, Kubernetes group…) must be allowed by `policy.allows` (globs, traits, deny wins). An agent's
// and a delegated agent's policy is already the intersection (principal-pipeline.ts). Inside a
// Kubernetes cluster, which objects it reaches is kube_resources' (kubeObject, kubeItem).
import type { Principal } from '../auth/principal.js';
import { keys } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import { type KubeObjectRequest, type KubeVerdict, kubeItemAllowed, kubeVerdict } from '../rbac/kube-resources.js';
import type { PrincipalField, SessionOptions } from '../rbac/policy.js';
import type { ResourceKind } from '../rbac/types.js';

export interface ResourceRef {
  id: string;
  kind: ResourceKind;
  name: string;
  address?: string;
  protocol?: string;
  labels: Record<string, string>;
}

export type TargetDecision<R extends ResourceRef = ResourceRef> =
  | { allowed: true; resource: R; options: SessionOptions }
  | { allowed: false; reason: string; resource?: R };

const NOUN: Record<PrincipalField, string> = {
  logins: 'login',
  db_users: 'database user',
  db_names: 'database name',
  kube_groups: 'Kubernetes group',
  kube_users: 'Kubernetes user',
};

export type AccessChecker = ReturnType<typeof createAccessChecker>;

export function createAccessChecker(deps: { state: Pick<StateStore, 'get'> }) {
  function find<R extends ResourceRef = ResourceRef>(kind: ResourceKind, name: string): R | undefined {
    const ref = deps.state.get<{ ref: string }>(keys.resourceName(kind, name));
    const item = ref ? deps.state.get<R>(ref.value.ref) : undefined;
    return item?.value.kind === kind ? item.value : undefined;
  }

  function findById<R extends ResourceRef = ResourceRef>(kind: ResourceKind, id: string): R | undefined {
    const item = deps.state.get<R>(keys.resource(id));
    return item?.value.kind === kind ? item.value : undefined;
  }

  return {
    find,
    findById,
    /** `target` by name (what a client types: psql, ssh) or by id (a kubeconfig's URL). */
    authorize<R extends ResourceRef = ResourceRef>(
      principal: Pick<Principal, 'name' | 'policy'>,
      target: { kind: ResourceKind; name: string } | { kind: ResourceKind; id: string },
      as: ReadonlyArray<{ field: PrincipalField; value: string }>,
    ): TargetDecision<R> {
      const resource = 'id' in target ? findById<R>(target.kind, target.id) : find<R>(target.kind, target.name);
      if (!resource || !principal.policy.canSee({ kind: resource.kind, labels: resource.labels })) {
        const named = 'id' in target ? target.id : `named ${target.name}`;
        return { allowed: false, reason: `no ${target.kind} ${named} that ${principal.name} may reach` };
      }
      for (const { field, value } of as) {
        if (principal.policy.allows(field, value)) continue;
        const allowed = principal.policy.allowed(field);
        return {
          allowed: false,
          resource,
          reason: `${NOUN[field]} ${value} is not allowed on ${resource.name} (${
            allowed.length ? `allowed: ${allowed.join(', ')}` : `no ${NOUN[field]} is allowed`
          })`,
        };
      }
      return { allowed: true, resource, options: principal.policy.options() };
    },
    /** May the principal make this Kubernetes request (allow), or see only part of its answer (filter)? */
    kubeObject(principal: Pick<Principal, 'policy'>, req: KubeObjectRequest): KubeVerdict {
      return kubeVerdict(principal.policy.kubeRules(), req);
    },
    /** One item of a filtered list or watch. */
    kubeItem(
      principal: Pick<Principal, 'policy'>,
      item: { kind: string; verb: KubeObjectRequest['verb']; namespace?: string; name: string },
    ): boolean {
      return kubeItemAllowed(principal.policy.kubeRules(), item);
    },
  };
}
