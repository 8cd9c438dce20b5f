// /v1/cluster: join tokens for new proxies, and the identities proxies joined with (listing, removal).
// The logic is cluster/proxy-identities.ts; these routes exist on the auth tier (a proxy forwards them).

import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { actorOf, eventContext } from '../../auth/principal.js';
import { GatehouseError } from '../../lib/errors.js';
import type { Services } from '../../services.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { authenticatedContext } from '../request-context.js';
import { CreateJoinToken, InstanceList, InstanceParams, JoinToken } from './cluster.schema.js';

export function clusterRoutes(app: App, deps: Pick<Services, 'proxyIdentities'>): void {
  const route = declareRoutes(app, { tags: ['cluster'], resource: 'cluster' });
  const identities = () => {
    if (!deps.proxyIdentities)
      throw new GatehouseError('unavailable', 'proxy identities are kept by the auth tier, not this instance');
    return deps.proxyIdentities;
  };
  const caller = (request: FastifyRequest) => {
    const ctx = authenticatedContext(request);
    return { actor: actorOf(ctx), ...eventContext(ctx) };
  };

  route.post(
    '/v1/cluster/join-tokens',
    {
      permission: 'create',
      grants: [],
      summary: 'Make a join token a new proxy presents once to get an identity of its own (shown once)',
      body: CreateJoinToken,
      noStore: true,
      201: JoinToken,
    },
    async (request) => identities().createJoinToken(caller(request), request.body),
  );

  route.get(
    '/v1/cluster/instances',
    { permission: 'list', summary: 'List the proxies that joined the cluster', 200: InstanceList },
    async () => ({ instances: identities().list() }),
  );

  route.delete(
    '/v1/cluster/instances/:id',
    {
      permission: 'delete',
      grants: [],
      summary: 'Remove a proxy’s identity: its next call is refused and its live sessions end',
      params: InstanceParams,
      204: Type.Null(),
    },
    async (request) => identities().remove(caller(request), request.params.id),
  );
}
