// May this principal reach this protected resource as this identity? One decision for every door
// (API tickets, SSH, PostgreSQL, Kubernetes): the resource must be visible to the principal's roles
// (selectors, deny wins) — a resource it may not see does not exist for it — and one role that
// selects it must allow every "as whom" value asked (login; database user with database name), as
// `policy.allowsOn` decides (globs, traits, deny wins). An agent's and a delegated agent's policy is
// already the intersection (principal-pipeline.ts). Inside a Kubernetes cluster, as whom it acts is
// kube_users' and kube_groups' of the roles that select that cluster (kubeIdentity), and which
// objects it reaches is their kube_resources' (kubeObject, kubeItem); inside an app, which requests
// it may make is the app_rules' of the roles that select that app (appRequest).
import type { Principal } from '../auth/principal.js';
import { keys } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import { type AppVerdict, appRequestVerdict } from '../rbac/app-rules.js';
import { type KubeObjectRequest, type KubeVerdict, kubeItemAllowed, kubeVerdict } from '../rbac/kube-resources.js';
import { type McpCallVerdict, type McpPrimitive, mcpCallVerdict, mcpNameAllowed } from '../rbac/mcp-tools.js';
import type { AsValue, Policy, PrincipalField, SessionOptions } from '../rbac/policy.js';
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

/**
 * Why `as` is refused on a resource the principal sees, naming what it may use there: a value no
 * role selecting the resource allows, or values allowed only by different roles (never pooled).
 */
function refusal(policy: Policy, resource: ResourceRef, as: readonly AsValue[]): string {
  for (const { field, value } of as) {
    if (policy.allowsOn(resource, [{ field, value }])) continue;
    const allowed = policy.allowedOn(resource, field);
    return `${NOUN[field]} ${value} is not allowed on ${resource.name} (${
      allowed.length ? `allowed: ${allowed.join(', ')}` : `no ${NOUN[field]} is allowed`
    })`;
  }
  const asked = as.map(({ field, value }) => `${NOUN[field]} ${value}`).join(' with ');
  return `no one role allows ${asked} on ${resource.name}`;
}

/** The Kubernetes users and groups a principal may act as on one cluster: values, never patterns. */
export interface KubeIdentity {
  users: string[];
  groups: string[];
}

/**
 * The Kubernetes user of a principal whose roles name groups but no kube_users: a name in Gatehouse's
 * own namespace, never one the principal chose. An agent's name is picked by whoever creates it (an
 * agent named `kubernetes-admin` would otherwise act as that cluster user), so agents go by id.
 */
export const implicitKubeUser = (p: Pick<Principal, 'kind' | 'id' | 'name'>): string =>
  p.kind === 'agent' ? `gatehouse:agent:${p.id}` : `gatehouse:user:${p.name}`;

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
      as: readonly AsValue[],
    ): TargetDecision<R> {
      const resource = 'id' in target ? findById<R>(target.kind, target.id) : find<R>(target.kind, target.name);
      if (!resource || !principal.policy.canSee({ kind: resource.kind, labels: resource.labels })) {
        const named = 'id' in target ? target.id : `named ${target.name}`;
        return { allowed: false, reason: `no ${target.kind} ${named} that ${principal.name} may reach` };
      }
      if (!principal.policy.allowsOn(resource, as)) {
        return { allowed: false, resource, reason: refusal(principal.policy, resource, as) };
      }
      return { allowed: true, resource, options: principal.policy.options() };
    },
    /**
     * As whom the principal may act on this cluster: the kube_users and kube_groups of the roles that
     * select it (never another cluster's roles), traits expanded and denied ones removed, as values:
     * a glob or an unexpanded template is a pattern, not a name to impersonate.
     */
    kubeIdentity(principal: Pick<Principal, 'policy'>, cluster: ResourceRef): KubeIdentity {
      const values = (field: 'kube_groups' | 'kube_users') =>
        principal.policy.allowedOn(cluster, field).filter((v) => !v.includes('*') && !v.includes('{{'));
      return { users: values('kube_users'), groups: values('kube_groups') };
    },
    /**
     * May the principal act as this Kubernetes user on the cluster: one of its kube_users there, or
     * its implicit user when its roles there name groups but no user (what the kube door chooses).
     */
    kubeUserAllowed(principal: Pick<Principal, 'kind' | 'id' | 'name'>, identity: KubeIdentity, user: string): boolean {
      if (identity.users.includes(user)) return true;
      return identity.users.length === 0 && identity.groups.length > 0 && user === implicitKubeUser(principal);
    },
    /** May the principal make this Kubernetes request (allow), or see only part of its answer (filter)? */
    kubeObject(principal: Pick<Principal, 'policy'>, cluster: ResourceRef, req: KubeObjectRequest): KubeVerdict {
      return kubeVerdict(principal.policy.kubeRules(cluster), req);
    },
    /** One item of a filtered list or watch. */
    kubeItem(
      principal: Pick<Principal, 'policy'>,
      cluster: ResourceRef,
      item: { kind: string; verb: KubeObjectRequest['verb']; namespace?: string; name: string },
    ): boolean {
      return kubeItemAllowed(principal.policy.kubeRules(cluster), item);
    },
    /** May the principal make this request (method, request target) inside this app (app_rules)? */
    appRequest(principal: Pick<Principal, 'policy'>, app: ResourceRef, method: string, target: string): AppVerdict {
      return appRequestVerdict(principal.policy.appRules(app), method, target);
    },
    /** May the principal see (and so perhaps use) this tool, resource (URI) or prompt of an MCP server: the lists show only these. */
    mcpName(principal: Pick<Principal, 'policy'>, server: ResourceRef, kind: McpPrimitive, name: string): boolean {
      try {
        return mcpNameAllowed(principal.policy.mcpRules(server), kind, name);
      } catch {
        return false; // fail closed: a policy that cannot be evaluated shows nothing
      }
    },
    /** A tools/call: the tool, then its arguments against every matching schema, and whether it waits for approval. */
    mcpCall(principal: Pick<Principal, 'policy'>, server: ResourceRef, tool: string, args: unknown): McpCallVerdict {
      try {
        return mcpCallVerdict(principal.policy.mcpRules(server), tool, args);
      } catch {
        return { allowed: false, reason: 'the tool policy cannot be evaluated' };
      }
    },
  };
}
