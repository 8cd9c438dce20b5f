// A custom resource group in the fake API server, as a CRD installs one: discovery (/apis and the
// group version's resource list, which says each kind's scope) and read-only objects of a namespaced
// kind (widgets) and a cluster-scoped one (clusterwidgets), under the same RBAC as the core kinds.

import { status } from './fake-kube-apiserver-objects.js';

export const CUSTOM_GROUP = 'example.gatehouse.dev';
const GROUP_VERSION = `${CUSTOM_GROUP}/v1`;

export const CUSTOM_GROUP_LIST = {
  kind: 'APIGroupList',
  apiVersion: 'v1',
  groups: [
    {
      name: CUSTOM_GROUP,
      versions: [{ groupVersion: GROUP_VERSION, version: 'v1' }],
      preferredVersion: { groupVersion: GROUP_VERSION, version: 'v1' },
    },
  ],
};

export const CUSTOM_RESOURCES = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: GROUP_VERSION,
  resources: [
    { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['get', 'list'] },
    {
      name: 'clusterwidgets',
      singularName: 'clusterwidget',
      namespaced: false,
      kind: 'ClusterWidget',
      verbs: ['get', 'list'],
    },
  ],
};

const OBJECTS: Record<string, Array<{ namespace?: string; name: string }>> = {
  widgets: [
    { namespace: 'dev', name: 'w-dev' },
    { namespace: 'prod', name: 'w-prod' },
  ],
  clusterwidgets: [{ name: 'small' }, { name: 'big' }],
};
const KINDS: Record<string, string> = { widgets: 'Widget', clusterwidgets: 'ClusterWidget' };

const PATH = new RegExp(
  `^/apis/${CUSTOM_GROUP.replaceAll('.', '\\.')}/v1/(?:namespaces/([^/]+)/)?(widgets|clusterwidgets)(?:/([^/]+))?$`,
);

/**
 * Answers a GET of the custom kinds (undefined: not one of theirs). `mayUse` is the fake's RBAC:
 * whether the caller's groups reach a namespace (undefined: the cluster scope).
 */
export function answerCustom(
  path: string,
  accept: string,
  user: string,
  mayUse: (namespace: string | undefined) => boolean,
): { code: number; body: unknown } | undefined {
  const m = PATH.exec(path);
  if (!m) return undefined;
  const [, namespace, resource, name] = m as unknown as [string, string | undefined, string, string | undefined];
  const clusterScoped = resource === 'clusterwidgets';
  if (clusterScoped && namespace)
    return { code: 404, body: status(404, 'NotFound', 'the server could not find the requested resource') };
  if (!mayUse(namespace)) {
    const where = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
    const message = `${resource}.${CUSTOM_GROUP} is forbidden: User "${user}" cannot ${name ? 'get' : 'list'} resource "${resource}" in API group "${CUSTOM_GROUP}" ${where}`;
    return { code: 403, body: status(403, 'Forbidden', message) };
  }
  const objects = (OBJECTS[resource] ?? [])
    .filter((o) => namespace === undefined || o.namespace === namespace)
    .map((o) => ({
      apiVersion: GROUP_VERSION,
      kind: KINDS[resource],
      metadata: {
        name: o.name,
        ...(o.namespace ? { namespace: o.namespace } : {}),
        uid: `uid-${o.name}`,
        resourceVersion: '1',
      },
    }));
  if (name) {
    const found = objects.find((o) => o.metadata.name === name);
    return found
      ? { code: 200, body: found }
      : { code: 404, body: status(404, 'NotFound', `${resource}.${CUSTOM_GROUP} "${name}" not found`) };
  }
  if (accept.includes('as=Table'))
    return {
      code: 200,
      body: {
        kind: 'Table',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { resourceVersion: '1' },
        columnDefinitions: [{ name: 'Name', type: 'string', format: 'name', description: 'Name', priority: 0 }],
        rows: objects.map((o) => ({
          cells: [o.metadata.name],
          object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
        })),
      },
    };
  return {
    code: 200,
    body: {
      kind: `${KINDS[resource]}List`,
      apiVersion: GROUP_VERSION,
      metadata: { resourceVersion: '1' },
      items: objects,
    },
  };
}
