// Which Kubernetes objects a principal reaches through the proxy: roles' kube_resources rules (kind,
// namespace, name globs and verbs; allows add up, a matching deny wins), evaluated as a pure function.
// A role that gives a Kubernetes identity (kube_groups or kube_users) and names no kube_resources
// reaches every object its groups reach (as before the field existed); a role without a Kubernetes
// identity adds nothing. Cluster-scoped kinds other than namespaces are left to the cluster's RBAC.
import { globMatch } from './glob.js';
import type { KubeResourceRule, KubeVerb, RoleSpec } from './types.js';

/** One part of a principal's rights; an agent's are several parts, every one of which must allow. */
export interface KubeRuleSet {
  allow: KubeResourceRule[];
  deny: KubeResourceRule[];
}

export interface KubeObjectRequest {
  kind: string;
  verb: KubeVerb;
  namespace?: string;
  name?: string;
}

/** allow: forward as is; filter: forward, and drop the listed items the rules do not reach. */
export type KubeVerdict = 'allow' | 'filter' | 'deny';

export const ANY_KUBE_OBJECT: KubeResourceRule = { kind: '*', namespace: '*', name: '*', verbs: ['*'] };

/** Built-in cluster-scoped kinds: their requests are the cluster's RBAC's to decide, not kube_resources'. */
const CLUSTER_SCOPED = new Set([
  'nodes',
  'persistentvolumes',
  'clusterroles',
  'clusterrolebindings',
  'customresourcedefinitions',
  'storageclasses',
  'priorityclasses',
  'ingressclasses',
  'runtimeclasses',
  'apiservices',
  'csidrivers',
  'csinodes',
  'volumeattachments',
  'certificatesigningrequests',
  'componentstatuses',
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'flowschemas',
  'prioritylevelconfigurations',
  'tokenreviews',
  'subjectaccessreviews',
  'selfsubjectaccessreviews',
  'selfsubjectrulesreviews',
  'selfsubjectreviews',
]);

export const isGovernedKind = (kind: string): boolean => !CLUSTER_SCOPED.has(kind);

export function effectiveKubeAllow(role: RoleSpec): KubeResourceRule[] {
  if (role.allow.kube_resources) return role.allow.kube_resources;
  const identity = (role.allow.kube_groups?.length ?? 0) + (role.allow.kube_users?.length ?? 0) > 0;
  return identity ? [ANY_KUBE_OBJECT] : [];
}

/** Allows of the roles that reach a cluster; denies of every role (a deny applies everywhere). */
export const kubeRuleSet = (allowing: readonly RoleSpec[], all: readonly RoleSpec[] = allowing): KubeRuleSet => ({
  allow: allowing.flatMap(effectiveKubeAllow),
  deny: all.flatMap((r) => r.deny?.kube_resources ?? []),
});

const ns = (r: KubeResourceRule) => r.namespace ?? '*';
const nm = (r: KubeResourceRule) => r.name ?? '*';
const verbOk = (r: KubeResourceRule, verb: KubeVerb) => r.verbs.includes('*') || r.verbs.includes(verb);
const kindOk = (r: KubeResourceRule, kind: string) => globMatch(r.kind, kind);

/** The rule reaches this one object. */
const reaches = (r: KubeResourceRule, kind: string, verb: KubeVerb, namespace: string, name: string) =>
  kindOk(r, kind) && verbOk(r, verb) && globMatch(ns(r), namespace) && globMatch(nm(r), name);

/** A namespace object is readable when a rule names it, or some rule reaches objects inside it. */
function namespaceVisible(set: KubeRuleSet, name: string, verb: KubeVerb): boolean {
  const byName = (r: KubeResourceRule) => kindOk(r, 'namespaces') && verbOk(r, verb) && globMatch(nm(r), name);
  if (set.deny.some(byName)) return false;
  return set.allow.some((r) => byName(r) || (r.kind !== 'namespaces' && globMatch(ns(r), name)));
}

/** One listed item (or one named object): reached, and not denied. */
export function kubeItemAllowed(
  sets: readonly KubeRuleSet[],
  req: Required<Omit<KubeObjectRequest, 'namespace'>> & { namespace?: string },
): boolean {
  return sets.every((set) => {
    if (req.kind === 'namespaces' && ['get', 'list', 'watch'].includes(req.verb))
      return namespaceVisible(set, req.name, req.verb);
    const namespace = req.namespace ?? '';
    if (set.deny.some((r) => reaches(r, req.kind, req.verb, namespace, req.name))) return false;
    return set.allow.some((r) => reaches(r, req.kind, req.verb, namespace, req.name));
  });
}

function verdictOf(set: KubeRuleSet, req: KubeObjectRequest): KubeVerdict {
  const { kind, verb, namespace } = req;
  // Without a namespace (a cross-namespace list, or namespaces themselves), any namespace may match.
  const nsOk = (r: KubeResourceRule) => kind === 'namespaces' || namespace === undefined || globMatch(ns(r), namespace);
  const candidates = set.allow.filter((r) => kindOk(r, kind) && verbOk(r, verb) && nsOk(r));
  const wholly = (r: KubeResourceRule) =>
    nm(r) === '*' && (kind === 'namespaces' || (namespace === undefined ? ns(r) === '*' : true));
  const denyMeets = set.deny.filter((r) => kindOk(r, kind) && verbOk(r, verb) && nsOk(r));
  if (verb === 'list' || verb === 'watch') {
    if (kind === 'namespaces') return candidates.some(wholly) && denyMeets.length === 0 ? 'allow' : 'filter';
    if (denyMeets.some((r) => nm(r) === '*' && namespace !== undefined)) return 'deny';
    if (candidates.length === 0) return 'deny';
    return candidates.some(wholly) && denyMeets.length === 0 ? 'allow' : 'filter';
  }
  // create or deletecollection: the names are not in the URL, so only a rule for every name allows it.
  return candidates.some(wholly) && denyMeets.length === 0 && (namespace !== undefined || kind === 'namespaces')
    ? 'allow'
    : 'deny';
}

/** The verdict on one request: every part of the principal's rights must allow it. */
export function kubeVerdict(sets: readonly KubeRuleSet[], req: KubeObjectRequest): KubeVerdict {
  if (!isGovernedKind(req.kind)) return 'allow';
  if (req.name !== undefined) return kubeItemAllowed(sets, { ...req, name: req.name }) ? 'allow' : 'deny';
  let verdict: KubeVerdict = 'allow';
  for (const set of sets) {
    const v = verdictOf(set, req);
    if (v === 'deny') return 'deny';
    if (v === 'filter') verdict = 'filter';
  }
  return verdict;
}

export const describeKubeRule = (r: KubeResourceRule): string => `${r.kind} ${ns(r)}/${nm(r)} [${r.verbs.join(',')}]`;
