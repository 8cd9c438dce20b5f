// Single sign-on connectors over the API. Every mutating route is a grant (connector-roles): the
// service refuses a connector whose claims_to_roles could give a role the caller does not cover.
import { page } from '../../lib/paging.js';
import { type ConnectorService, toConnectorResponse } from '../../sso/connector-service.js';
import type { App } from '../app-types.js';
import { collectionRoutes } from '../collection-routes.js';
import { declareRoutes } from '../declare-routes.js';
import { listBody } from '../list-answer.js';
import { Connector, ConnectorInput, ConnectorList, ConnectorParams, ConnectorQuery } from './connectors.schema.js';

export function connectorRoutes(app: App, deps: { connectors: ConnectorService; webPublicUrl: () => string }): void {
  const { connectors } = deps;
  const answer = (c: Parameters<typeof toConnectorResponse>[0]) => toConnectorResponse(c, deps.webPublicUrl());
  const route = declareRoutes(app, { tags: ['single sign-on'], resource: 'connectors' });

  const items = collectionRoutes(route, '/v1/auth/connectors', ConnectorParams);

  items.list({ summary: 'List single sign-on connectors', querystring: ConnectorQuery, 200: ConnectorList }, (query) =>
    listBody('connectors', page(connectors.list(), query), answer),
  );

  items.create(
    {
      summary: 'Create a single sign-on connector (answers the redirect_uri to register at the provider)',
      grants: ['connector-roles'],
      body: ConnectorInput,
      201: Connector,
    },
    async (ctx, body) => answer(await connectors.create(ctx, body)),
  );

  items.get({ summary: 'Get a single sign-on connector', 200: Connector }, connectors.getItem, answer);

  items.replace(
    {
      summary: 'Replace a single sign-on connector (you must cover what it gives, before and after)',
      grants: ['connector-roles'],
      body: ConnectorInput,
      200: Connector,
    },
    async (ctx, id, body) => answer(await connectors.replace(ctx, id, body)),
  );

  items.remove(
    {
      summary: 'Delete a single sign-on connector (its users keep their records; the logins it made end)',
      grants: ['connector-roles'],
    },
    (ctx, id) => connectors.remove(ctx, id),
  );
}
