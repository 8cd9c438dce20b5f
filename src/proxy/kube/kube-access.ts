// Who is calling the Kubernetes proxy, and as whom they reach the cluster. The bearer token goes
// through the door kit's credential step (the same principal pipeline as the API and SSH, and the
// same login throttle: a guessed token counts against the address and the secret); the cluster and the
// identity are decided by the shared access checker (src/access/access-checker.ts): the cluster must
// be visible to the principal's selectors (deny wins); the user upstream is the one kube_users value
// of the roles that select this cluster (or one of several, chosen with kubectl --as; none:
// `gatehouse:user:<name>` / `gatehouse:agent:<id>`) and the groups those roles' kube_groups, as the
// checker's kubeIdentity gives them (the session guard re-checks a live exec against the same).

import type { IncomingHttpHeaders } from 'node:http';
import { type AccessChecker, implicitKubeUser, type ResourceRef } from '../../access/access-checker.js';
import type { Principal } from '../../auth/principal.js';
import type { KubeObjectRequest, KubeVerdict } from '../../rbac/kube-resources.js';
import type { SessionOptions } from '../../rbac/policy.js';
import type { KubeVerb } from '../../rbac/types.js';
import type { PrincipalProof } from '../../sessions/principal-proof.js';
import { authenticateDoorCredential, type DoorCredentialDeps } from '../common/door-credential.js';
import type { ItemFilter } from './kube-filter.js';
import type { KubeRequestInfo } from './kube-request.js';

export type ClusterRef = ResourceRef;

export type KubeDecision =
  | {
      allowed: true;
      principal: Principal;
      cluster: ClusterRef;
      user: string;
      groups: string[];
      /** The client named the user (kubectl --as) among several kube_users: that header is not a refusal. */
      userChosen: boolean;
      options: SessionOptions;
    }
  | { allowed: false; code: 401 | 403 | 404 | 429; reason: string; principal?: Principal; cluster?: ClusterRef };

/** Who sent a request: its principal, or why not (401: no or a bad token; 429: too many bad ones). */
export type KubeCaller = { principal: Principal; proof: PrincipalProof } | Extract<KubeDecision, { allowed: false }>;

export type KubeAccess = ReturnType<typeof createKubeAccess>;

export function createKubeAccess(deps: {
  /** The one access checker (services.access): the same every other door decides with. */
  checker: AccessChecker;
  credentials: DoorCredentialDeps;
}) {
  const { checker } = deps;
  const findCluster = (id: string): ClusterRef | undefined => checker.findById('kube_cluster', id);

  return {
    findCluster,
    /**
     * What kube_resources say of this request; undefined for discovery and other non-object paths.
     * A kind the cluster's discovery calls cluster-scoped (kube-scope.ts) is the cluster's RBAC's,
     * as the built-in cluster-scoped kinds are: allowed here, whatever the rules name.
     */
    object(
      principal: Principal,
      cluster: ClusterRef,
      info: KubeRequestInfo,
      clusterScoped = false,
    ): { req: KubeObjectRequest; verdict: KubeVerdict } | undefined {
      const req = kubeObjectOf(info);
      if (req && clusterScoped) return { req, verdict: 'allow' };
      return req && { req, verdict: checker.kubeObject(principal, cluster, req) };
    },
    /** The items of a filtered list or watch this principal may see. */
    keep(principal: Principal, cluster: ClusterRef, req: KubeObjectRequest): ItemFilter {
      return (object) =>
        checker.kubeItem(principal, cluster, {
          kind: req.kind,
          verb: req.verb,
          name: object.metadata?.name ?? '',
          ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
        });
    },
    /**
     * The bearer token of a request, through the door kit's credential step. Throttled callers hear
     * 429 without Retry-After: client-go retries a 429 that names a wait, and each retry would be
     * another refused guess; the message says how long to wait.
     */
    async authenticate(headers: IncomingHttpHeaders, remoteAddr: string): Promise<KubeCaller> {
      const m = /^Bearer (\S{1,512})$/.exec(headers.authorization ?? '');
      if (!m) return { allowed: false, code: 401, reason: 'send the Gatehouse token of your kubeconfig' };
      const result = await authenticateDoorCredential(deps.credentials, {
        door: 'kube',
        secret: m[1] as string,
        remoteAddr,
      });
      if ('principal' in result) return result;
      return { allowed: false, code: result.failure === 'throttled' ? 429 : 401, reason: result.detail };
    },
    /** The cluster and the identity upstream for an authenticated caller. */
    decide(principal: Principal, headers: IncomingHttpHeaders, clusterId: string): KubeDecision {
      const decision = checker.authorize<ClusterRef>(principal, { kind: 'kube_cluster', id: clusterId }, []);
      if (!decision.allowed) {
        // A cluster the principal may not see does not exist for them (as the API answers 404).
        return { allowed: false, code: 404, reason: `gatehouse: ${decision.reason}`, principal };
      }
      const cluster = decision.resource;
      const { users, groups } = checker.kubeIdentity(principal, cluster);
      if (groups.length === 0 && users.length === 0) {
        const reason = `gatehouse: ${principal.name} has no kube_groups or kube_users for ${cluster.name}`;
        return { allowed: false, code: 403, reason, principal, cluster };
      }
      const asked = typeof headers['impersonate-user'] === 'string' ? headers['impersonate-user'] : undefined;
      const userChosen = asked !== undefined && users.length > 1 && users.includes(asked);
      // (--as naming someone else is the impersonation refusal's to answer, in the proxy.)
      if (users.length > 1 && !userChosen && asked === undefined) {
        const reason = `gatehouse: ${principal.name} may act as several Kubernetes users; choose one with kubectl --as (${users.join(', ')})`;
        return { allowed: false, code: 403, reason, principal, cluster };
      }
      const user = userChosen
        ? (asked as string)
        : users.length === 1
          ? (users[0] as string)
          : implicitKubeUser(principal);
      return { allowed: true, principal, cluster, user, groups, userChosen, options: decision.options };
    },
  };
}

/** Headers a client may not send upstream: impersonation is Gatehouse's alone to set. */
export const impersonationHeaders = (headers: IncomingHttpHeaders, userChosen = false): string[] =>
  Object.keys(headers).filter((h) => h.startsWith('impersonate-') && !(userChosen && h === 'impersonate-user'));

/**
 * The kube_resources question a request asks: exec and attach are `exec`, port-forward is
 * `portforward`, a pod's log is `get` on the pod, other subresources the verb on their object.
 */
export function kubeObjectOf(info: KubeRequestInfo): KubeObjectRequest | undefined {
  if (info.discovery || !info.resource) return undefined;
  const sub = info.subresource;
  const verb =
    sub === 'exec' || sub === 'attach'
      ? 'exec'
      : sub === 'portforward'
        ? 'portforward'
        : sub === 'log'
          ? 'get'
          : info.verb;
  return {
    kind: info.resource,
    verb: verb as KubeVerb,
    ...(info.namespace ? { namespace: info.namespace } : {}),
    ...(info.name ? { name: info.name } : {}),
  };
}

export const describeKubeRequest = (r: KubeObjectRequest): string =>
  `${r.verb} ${r.kind}${r.name ? ` ${r.name}` : ''}${r.namespace ? ` in namespace ${r.namespace}` : ''}`;
