import { Type } from '@sinclair/typebox';
import type { Apps } from '../../apps/apps.js';
import type { Kubeconfigs } from '../../kube/kubeconfig.js';
import { type ResourceRecord, type ResourceService, toResourceResponse } from '../../resources/resource-service.js';
import type { App } from '../app-types.js';
import { collectionRoutes } from '../collection-routes.js';
import { declareRoutes } from '../declare-routes.js';
import { listBody } from '../list-answer.js';
import { authenticatedContext } from '../request-context.js';
import {
  AppList,
  DatabaseList,
  KindQuery,
  KubeconfigParams,
  Resource,
  ResourceInput,
  ResourceList,
  ResourceParams,
  ResourcePatch,
  ResourceQuery,
  ServerList,
  ServerParams,
} from './resources.schema.js';

export function resourceRoutes(
  app: App,
  deps: { resources: ResourceService; kubeconfigs: Kubeconfigs; apps: Pick<Apps, 'addressing'> },
): void {
  const { resources, kubeconfigs } = deps;
  // An app's public_url comes from where apps are served (the apps domain, src/apps/).
  const respond = (r: ResourceRecord) => toResourceResponse(r, deps.apps.addressing.publicUrlOf);
  const route = declareRoutes(app, { tags: ['resources'], resource: 'resources' });

  const items = collectionRoutes(route, '/v1/resources', ResourceParams);

  items.list(
    {
      summary: 'List the databases, servers and apps you may see',
      querystring: ResourceQuery,
      200: ResourceList,
    },
    (query, _reply, ctx) => listBody('resources', resources.list(ctx, query), respond),
  );

  // One list per kind, each answering under the kind's own name.
  const kindLists = [
    ['/v1/databases', 'database', 'databases', DatabaseList],
    ['/v1/servers', 'server', 'servers', ServerList],
    ['/v1/apps', 'app', 'apps', AppList],
  ] as const;
  for (const [url, kind, name, List] of kindLists) {
    route.get(
      url,
      { permission: 'list', summary: `List the ${name} you may see`, querystring: KindQuery, 200: List },
      async (request) =>
        listBody(name, resources.list(authenticatedContext(request), { ...request.query, kind }), respond),
    );
  }

  items.create(
    { summary: 'Register a database, server or app', grants: ['resource-visible'], body: ResourceInput, 201: Resource },
    async (ctx, body) => respond(await resources.create(ctx, body)),
  );

  items.get({ summary: 'Get a resource', 200: Resource }, (id, ctx) => resources.getItem(ctx, id), respond);

  route.get(
    '/v1/resources/:id/kubeconfig',
    {
      // Hands out a token, but only of the caller itself and within its own rights. Who may have one
      // is the access checker's call (the cluster must be one the caller's roles reach), as at the
      // kube door: resources:read is an admin's permission, not a user's of the cluster.
      permission: 'authenticated',
      grants: ['self'],
      summary:
        'A kubeconfig for a Kubernetes cluster you may reach (by id or name): the proxy (pinned to its CA) and a short-lived token of yours (YAML); 404 for a cluster your roles do not reach',
      params: KubeconfigParams,
      produces: ['application/yaml'],
      200: Type.String({ description: 'kubeconfig (YAML)' }),
    },
    async (request, reply) => {
      const yaml = await kubeconfigs.issue(authenticatedContext(request), request.params.id);
      return reply.type('application/yaml').header('cache-control', 'no-store').send(yaml);
    },
  );

  items.update(
    {
      summary:
        'Change a resource’s description, labels or address (uri, protocol); it must stay visible to you. A new address of a database or cluster holding credentials needs db or kube sent again (409 otherwise)',
      grants: ['resource-visible'],
      body: ResourcePatch,
      200: Resource,
    },
    async (ctx, id, body) => respond(await resources.update(ctx, id, body)),
  );

  items.remove({ summary: 'Remove a resource', grants: [] }, (ctx, id) => resources.remove(ctx, id));

  route.delete(
    '/v1/resources/:id/ssh-host-key',
    {
      permission: 'update',
      grants: [],
      summary: "Forget a server's pinned SSH host key (after a rebuild); the next connection pins the key it sees",
      params: ServerParams,
      204: Type.Null(),
    },
    async (request) => {
      await resources.resetHostKey(authenticatedContext(request), request.params.id);
    },
  );
}
