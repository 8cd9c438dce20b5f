import { toDeliveryResponse, toWebhookResponse, type WebhookService } from '../../webhooks/webhook-service.js';
import type { App } from '../app-types.js';
import { collectionRoutes } from '../collection-routes.js';
import { declareRoutes } from '../declare-routes.js';
import { listBody } from '../list-answer.js';
import {
  CreateWebhook,
  DeliveryList,
  DeliveryQuery,
  NewWebhook,
  Webhook,
  WebhookList,
  WebhookParams,
  WebhookPatch,
  WebhookQuery,
} from './webhooks.schema.js';

export function webhookRoutes(app: App, deps: { webhooks: WebhookService }): void {
  const { webhooks } = deps;
  const route = declareRoutes(app, { tags: ['webhooks'], resource: 'webhooks' });

  const items = collectionRoutes(route, '/v1/webhooks', WebhookParams);

  items.list({ summary: 'List webhooks', querystring: WebhookQuery, 200: WebhookList }, (query) =>
    listBody('webhooks', webhooks.list(query), toWebhookResponse),
  );

  items.create(
    {
      summary: 'Create a webhook (its signing secret is shown once)',
      grants: ['events-readable'],
      body: CreateWebhook,
      201: NewWebhook,
    },
    async (ctx, body) => {
      const { webhook, secret } = await webhooks.create(ctx, body);
      return { ...toWebhookResponse(webhook), secret };
    },
  );

  items.get({ summary: 'Get a webhook', 200: Webhook }, webhooks.getItem, toWebhookResponse);

  items.update(
    {
      summary:
        'Change a webhook’s URL, event types, description or status (the name and signing secret stay); a new URL or event types, or turning it back on, needs the right to read audit events and makes you the one it lives on',
      grants: ['events-readable'],
      body: WebhookPatch,
      200: Webhook,
    },
    async (ctx, id, body) => toWebhookResponse(await webhooks.update(ctx, id, body)),
  );

  items.remove({ summary: 'Delete a webhook and its delivery records', grants: [] }, (ctx, id) =>
    webhooks.remove(ctx, id),
  );

  route.get(
    '/v1/webhooks/:id/deliveries',
    {
      permission: 'read',
      summary: "List a webhook's deliveries, newest first, with every attempt",
      params: WebhookParams,
      querystring: DeliveryQuery,
      200: DeliveryList,
    },
    async (request) =>
      listBody('deliveries', webhooks.listDeliveries(request.params.id, request.query), toDeliveryResponse),
  );
}
