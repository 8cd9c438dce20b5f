// The Kubernetes objects the fake API server answers, as the real one shapes them: pods, tables of
// them, core discovery, and the Status of a failure.

export interface Pod {
  name: string;
  namespace: string;
  created: string;
}

export const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export function podJson(p: Pod) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: p.namespace,
      uid: `uid-${p.namespace}-${p.name}`,
      resourceVersion: '1',
      creationTimestamp: p.created,
    },
    spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] },
    status: { phase: 'Running', podIP: '10.0.0.7' },
  };
}

/** A list as kubectl asks for it (as=Table): the columns it prints and each row's metadata. */
export function table(pods: Pod[]) {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: '1' },
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: 'Name', priority: 0 },
      { name: 'Status', type: 'string', format: '', description: 'Status', priority: 0 },
    ],
    rows: pods.map((p) => ({
      cells: [p.name, 'Running'],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: podJson(p).metadata },
    })),
  };
}

/** Discovery of the core group (/api/v1): each kind's scope and verbs. */
export const CORE_RESOURCES = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    {
      name: 'namespaces',
      singularName: 'namespace',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['get', 'list', 'watch'],
      shortNames: ['ns'],
    },
    {
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      verbs: ['create', 'delete', 'get', 'list', 'watch'],
      shortNames: ['po'],
    },
    { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
    { name: 'pods/attach', singularName: '', namespaced: true, kind: 'PodAttachOptions', verbs: ['create', 'get'] },
    { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
  ],
};

/** A failed request's body: a Kubernetes Status, with `details` when the real API server gives them. */
export const status = (code: number, reason: string, message: string, details?: unknown) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  code,
  ...(details ? { details } : {}),
});

/** The apiserver's RBAC refusal of a core kind, worded as kubectl prints it. */
export function forbidden(user: string, verb: string, resource: string, namespace?: string) {
  const where = namespace ? ` in the namespace "${namespace}"` : ' at the cluster scope';
  return status(
    403,
    'Forbidden',
    `${resource} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group ""${where}`,
    { kind: resource },
  );
}
