// Who is calling the Kubernetes proxy, and as whom they reach the cluster. The bearer token goes
// through the token service (the same principal pipeline as the API and SSH); the cluster must be
// visible to the principal's resource selectors (deny wins), and the identity upstream is the
// principal's name with its roles' kube_groups (traits expanded, denied ones removed, globs dropped:
// a group sent upstream must be a value, not a pattern).
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../../auth/principal.js';
import { keys } from '../../auth/records.js';
import type { TokenService } from '../../auth/token-service.js';
import type { StateStore } from '../../backend/state.js';
import { GatehouseError } from '../../lib/errors.js';
import type { SessionOptions } from '../../rbac/policy.js';

export interface ClusterRef {
  id: string;
  name: string;
  labels: Record<string, string>;
}

export type KubeDecision =
  | {
      allowed: true;
      principal: Principal;
      cluster: ClusterRef;
      user: string;
      groups: string[];
      options: SessionOptions;
    }
  | { allowed: false; code: 401 | 403 | 404; reason: string; principal?: Principal; cluster?: ClusterRef };

export type KubeAccess = ReturnType<typeof createKubeAccess>;

export function createKubeAccess(deps: { state: Pick<StateStore, 'get'>; tokens: Pick<TokenService, 'authenticate'> }) {
  function findCluster(id: string): ClusterRef | undefined {
    const item = deps.state.get<ClusterRef & { kind: string }>(keys.resource(id));
    return item?.value.kind === 'kube_cluster' ? item.value : undefined;
  }

  return {
    findCluster,
    decide(headers: IncomingHttpHeaders, clusterId: string): KubeDecision {
      const m = /^Bearer (\S{1,512})$/.exec(headers.authorization ?? '');
      if (!m) return { allowed: false, code: 401, reason: 'send the Gatehouse token of your kubeconfig' };
      let principal: Principal;
      try {
        principal = deps.tokens.authenticate(m[1] as string);
      } catch (error) {
        if (error instanceof GatehouseError) return { allowed: false, code: 401, reason: error.detail };
        throw error;
      }
      const cluster = findCluster(clusterId);
      // A cluster the principal may not see does not exist for them (as the API answers 404).
      if (!cluster || !principal.policy.canSee({ kind: 'kube_cluster', labels: cluster.labels })) {
        const reason = `gatehouse: no Kubernetes cluster ${clusterId} that ${principal.name} may reach`;
        return { allowed: false, code: 404, reason, principal };
      }
      const groups = principal.policy.allowed('kube_groups').filter((g) => !g.includes('*'));
      if (groups.length === 0) {
        const reason = `gatehouse: ${principal.name} has no kube_groups for ${cluster.name}`;
        return { allowed: false, code: 403, reason, principal, cluster };
      }
      return { allowed: true, principal, cluster, user: principal.name, groups, options: principal.policy.options() };
    },
  };
}

/** Headers a client may not send upstream: impersonation is Gatehouse's alone to set. */
export const impersonationHeaders = (headers: IncomingHttpHeaders): string[] =>
  Object.keys(headers).filter((h) => h.startsWith('impersonate-'));
