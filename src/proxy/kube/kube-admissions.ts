// What the kube door admitted a request with (the decision, the upstream credential, the item
// filter), reused by the next request asking the same thing: a kubectl loop or a controller sends
// the same GET hundreds of times a second, and deciding each one anew (the cluster, the identity,
// kube_resources, the credential and the cluster's scopes) was a tenth of a proxied GET's JavaScript.
//
// Why reuse cannot outlive a revocation or a role change: entries hang off the principal object
// itself, and the token service hands out the same object only while the state is at the revision it
// was resolved at (auth/token-resolver.ts); any write (a revocation, a lock, a role, cluster or
// credential change) makes the next request's principal a new object, so it finds nothing here. The
// time bound (ADMISSION_TTL_MS) covers what moves without a write: nothing the decision reads today,
// but a reuse that never ends would hide one added later. Refusals are never kept: each is decided,
// audited and answered afresh.
import type { Principal } from '../../auth/principal.js';
import type { KubeUpstream } from '../../resources/kube-upstream.js';
import type { KubeDecision } from './kube-access.js';
import type { ItemFilter } from './kube-filter.js';
import type { KubeRequestInfo } from './kube-request.js';

/** Longest time one admission is reused (documented in docs/access.md, Kubernetes access). */
export const ADMISSION_TTL_MS = 1000;
/** Distinct requests kept per principal object; past it the oldest goes. */
const MAX_PER_PRINCIPAL = 256;

export interface Admitted {
  ok: true;
  decision: Extract<KubeDecision, { allowed: true }>;
  upstream: KubeUpstream;
  filter?: { keep: ItemFilter; watch: boolean };
}

/** Everything a decision reads from a request besides the principal: the cluster, --as, the request's object. */
export function admissionKey(clusterId: string, impersonateUser: unknown, info: KubeRequestInfo): string {
  const as = typeof impersonateUser === 'string' ? impersonateUser : Array.isArray(impersonateUser) ? '\u0001' : '';
  return `${clusterId}\0${as}\0${info.verb}\0${info.apiGroup ?? ''}\0${info.apiVersion ?? ''}\0${info.resource ?? ''}\0${info.subresource ?? ''}\0${info.namespace ?? ''}\0${info.name ?? ''}`;
}

export function createKubeAdmissions(clock: () => number) {
  const byPrincipal = new WeakMap<Principal, Map<string, { admitted: Admitted; until: number }>>();
  return {
    get(principal: Principal, key: string): Admitted | undefined {
      const held = byPrincipal.get(principal)?.get(key);
      return held && held.until > clock() ? held.admitted : undefined;
    },
    set(principal: Principal, key: string, admitted: Admitted): void {
      let held = byPrincipal.get(principal);
      if (!held) {
        held = new Map();
        byPrincipal.set(principal, held);
      }
      held.delete(key);
      if (held.size >= MAX_PER_PRINCIPAL) held.delete(held.keys().next().value as string);
      held.set(key, { admitted, until: clock() + ADMISSION_TTL_MS });
    },
  };
}
