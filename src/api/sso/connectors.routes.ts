// Single sign-on connectors over the API. Every mutating route is a grant (connector-roles): the
// service refuses a connector whose claims_to_roles could give a role the caller does not cover.
import { Type } from '@sinclair/typebox';
import { page } from '../../lib/paging.js';
import { type ConnectorService, toConnectorResponse } from '../../sso/connector-service.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { listBody } from '../list-answer.js';
import { authenticatedContext } from '../request-context.js';
import { Connector, ConnectorInput, ConnectorList, ConnectorParams, ConnectorQuery } from './connectors.schema.js';

export function connectorRoutes(app: App, deps: { connectors: ConnectorService; webPublicUrl: () => string }): void {
  const { connectors } = deps;
  const answer = (c: Parameters<typeof toConnectorResponse>[0]) => toConnectorResponse(c, deps.webPublicUrl());
  const route = declareRoutes(app, { tags: ['single sign-on'], resource: 'connectors' });

  route.get(
    '/v1/auth/connectors',
    { permission: 'list', summary: 'List single sign-on connectors', querystring: ConnectorQuery, 200: ConnectorList },
    async (request) => listBody('connectors', page(connectors.list(), request.query), answer),
  );

  route.post(
    '/v1/auth/connectors',
    {
      permission: 'create',
      grants: ['connector-roles'],
      summary: 'Create a single sign-on connector (answers the redirect_uri to register at the provider)',
      body: ConnectorInput,
      201: Connector,
      location: true,
    },
    async (request) => answer(await connectors.create(authenticatedContext(request), request.body)),
  );

  route.get(
    '/v1/auth/connectors/:id',
    { permission: 'read', summary: 'Get a single sign-on connector', params: ConnectorParams, 200: Connector },
    async (request) => answer(connectors.get(request.params.id)),
  );

  route.put(
    '/v1/auth/connectors/:id',
    {
      permission: 'update',
      grants: ['connector-roles'],
      summary: 'Replace a single sign-on connector (you must cover what it gives, before and after)',
      params: ConnectorParams,
      body: ConnectorInput,
      200: Connector,
    },
    async (request) => answer(await connectors.replace(authenticatedContext(request), request.params.id, request.body)),
  );

  route.delete(
    '/v1/auth/connectors/:id',
    {
      permission: 'delete',
      grants: ['connector-roles'],
      summary: 'Delete a single sign-on connector (its users keep their records, and sign in no more)',
      params: ConnectorParams,
      204: Type.Null(),
    },
    async (request) => {
      await connectors.remove(authenticatedContext(request), request.params.id);
    },
  );
}
