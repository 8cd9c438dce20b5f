import { Type } from '@sinclair/typebox';
import { toDeliveryResponse, toWebhookResponse, type WebhookService } from '../../webhooks/webhook-service.js';
import type { App } from '../app-types.js';
import { authenticatedContext } from '../request-context.js';
import { responses } from '../schemas.js';
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

const tags = ['webhooks'];

export function webhookRoutes(app: App, deps: { webhooks: WebhookService }): void {
  const { webhooks } = deps;

  app.get(
    '/v1/webhooks',
    {
      config: { permission: { resource: 'webhooks', verb: 'list' } },
      schema: { tags, summary: 'List webhooks', querystring: WebhookQuery, response: responses({ 200: WebhookList }) },
    },
    async (request) => {
      const { items, pagination } = webhooks.list(request.query);
      return { webhooks: items.map(toWebhookResponse), pagination };
    },
  );

  app.post(
    '/v1/webhooks',
    {
      config: { permission: { resource: 'webhooks', verb: 'create' }, grants: ['events-readable'] },
      schema: {
        tags,
        summary: 'Create a webhook (its signing secret is shown once)',
        body: CreateWebhook,
        response: responses({ 201: NewWebhook }),
      },
    },
    async (request, reply) => {
      const { webhook, secret } = await webhooks.create(authenticatedContext(request), request.body);
      return reply
        .code(201)
        .header('location', `/v1/webhooks/${webhook.id}`)
        .send({ ...toWebhookResponse(webhook), secret });
    },
  );

  app.get(
    '/v1/webhooks/:id',
    {
      config: { permission: { resource: 'webhooks', verb: 'read' } },
      schema: { tags, summary: 'Get a webhook', params: WebhookParams, response: responses({ 200: Webhook }) },
    },
    async (request) => toWebhookResponse(webhooks.get(request.params.id)),
  );

  app.delete(
    '/v1/webhooks/:id',
    {
      config: { permission: { resource: 'webhooks', verb: 'delete' }, grants: [] },
      schema: {
        tags,
        summary: 'Delete a webhook and its delivery records',
        params: WebhookParams,
        response: responses({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      await webhooks.remove(authenticatedContext(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: { permission: { resource: 'webhooks', verb: 'read' } },
      schema: {
        tags,
        summary: "List a webhook's deliveries, newest first, with every attempt",
        params: WebhookParams,
        querystring: DeliveryQuery,
        response: responses({ 200: DeliveryList }),
      },
    },
    async (request) => {
      const { items, pagination } = webhooks.listDeliveries(request.params.id, request.query);
      return { deliveries: items.map(toDeliveryResponse), pagination };
    },
  );
}
