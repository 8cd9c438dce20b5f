import { Type } from '@sinclair/typebox';
import { toDeliveryResponse, toWebhookResponse, type WebhookService } from '../../webhooks/webhook-service.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { listBody } from '../list-answer.js';
import { authenticatedContext } from '../request-context.js';
import {
  CreateWebhook,
  DeliveryList,
  DeliveryQuery,
  NewWebhook,
  Webhook,
  WebhookList,
  WebhookParams,
  WebhookQuery,
} from './webhooks.schema.js';

export function webhookRoutes(app: App, deps: { webhooks: WebhookService }): void {
  const { webhooks } = deps;
  const route = declareRoutes(app, { tags: ['webhooks'], resource: 'webhooks' });

  route.get(
    '/v1/webhooks',
    { permission: 'list', summary: 'List webhooks', querystring: WebhookQuery, 200: WebhookList },
    async (request) => listBody('webhooks', webhooks.list(request.query), toWebhookResponse),
  );

  route.post(
    '/v1/webhooks',
    {
      permission: 'create',
      grants: ['events-readable'],
      summary: 'Create a webhook (its signing secret is shown once)',
      body: CreateWebhook,
      201: NewWebhook,
      location: true,
    },
    async (request) => {
      const { webhook, secret } = await webhooks.create(authenticatedContext(request), request.body);
      return { ...toWebhookResponse(webhook), secret };
    },
  );

  route.get(
    '/v1/webhooks/:id',
    { permission: 'read', summary: 'Get a webhook', params: WebhookParams, 200: Webhook },
    async (request) => toWebhookResponse(webhooks.get(request.params.id)),
  );

  route.delete(
    '/v1/webhooks/:id',
    {
      permission: 'delete',
      grants: [],
      summary: 'Delete a webhook and its delivery records',
      params: WebhookParams,
      204: Type.Null(),
    },
    async (request) => {
      await webhooks.remove(authenticatedContext(request), request.params.id);
    },
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
