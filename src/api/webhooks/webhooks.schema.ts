import { Type } from '@sinclair/typebox';
import { idPattern } from '../../lib/ids.js';
import { CreatedBy, Description, Name, Timestamp } from '../../lib/shapes.js';
import { listQuery, listResponse, pathId } from '../schemas.js';

export const WebhookId = Type.String({ pattern: idPattern('webhook'), description: 'whk_…' });
export const WebhookParams = Type.Object({ id: pathId('webhook') }, { additionalProperties: false });

const Status = Type.Union([Type.Literal('active'), Type.Literal('disabled')]);
const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]);

const EventTypePattern = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^(\\*|[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*(\\.\\*)?)$',
  description: 'An event type (user.created), a prefix (session.*), or * for every event',
});

export const Webhook = Type.Object(
  {
    id: WebhookId,
    name: Name,
    url: Type.String(),
    description: Type.String(),
    event_types: Type.Array(Type.String()),
    status: Status,
    created_at: Timestamp,
    updated_at: Timestamp,
    failure: Type.Object(
      {
        consecutive_failures: Type.Integer({
          minimum: 0,
          description: 'Deliveries that failed after their last retry, since the last success',
        }),
        last_failure_at: Type.Union([Timestamp, Type.Null()]),
        last_error: Type.Union([Type.String(), Type.Null()]),
        disabled_at: Type.Union([Timestamp, Type.Null()]),
      },
      { additionalProperties: false },
    ),
    created_by: CreatedBy,
  },
  { additionalProperties: false },
);

export const NewWebhook = Type.Object(
  {
    ...Webhook.properties,
    secret: Type.String({
      description:
        'The signing secret (whsec_…, Standard Webhooks), shown only in this response: verify webhook-signature with it',
    }),
  },
  { additionalProperties: false },
);

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$',
  description: 'https URL (http and private addresses only for hosts in webhook_allowed_hosts)',
});
const EventTypes = Type.Array(EventTypePattern, { minItems: 1, maxItems: 32 });

export const CreateWebhook = Type.Object(
  { name: Name, url: Url, event_types: EventTypes, description: Type.Optional(Description) },
  { additionalProperties: false },
);

export const WebhookPatch = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    status: Type.Optional(Status),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const WebhookQuery = listQuery({ status: Type.Optional(Status) });
export const WebhookList = listResponse('webhooks', Webhook);

export const Delivery = Type.Object(
  {
    id: Type.String({ description: 'dlv_…; the webhook-id header, the same at every attempt' }),
    webhook_id: WebhookId,
    event_id: Type.String(),
    event_type: Type.String(),
    status: DeliveryStatus,
    created_at: Timestamp,
    updated_at: Timestamp,
    next_attempt_at: Type.Union([Timestamp, Type.Null()]),
    attempts: Type.Array(
      Type.Object(
        {
          at: Timestamp,
          status_code: Type.Union([Type.Integer(), Type.Null()]),
          latency_ms: Type.Integer({ minimum: 0 }),
          error: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const DeliveryQuery = listQuery({ status: Type.Optional(DeliveryStatus) });
export const DeliveryList = listResponse('deliveries', Delivery);
