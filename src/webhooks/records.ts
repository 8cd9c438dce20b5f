// The shapes webhooks keep in the state backend, and where they keep them.
import { foldName } from '../auth/records.js';

export interface WebhookRecord {
  id: string;
  name: string;
  url: string;
  description: string;
  /** Exact types (`user.created`), prefixes (`session.*`), or `*`. */
  event_types: string[];
  status: 'active' | 'disabled';
  /** The signing secret, sealed by the secret box; never leaves the server again after creation. */
  secret: string;
  created_at: string;
  updated_at: string;
  /** Deliveries that failed after their last retry, since the last one that succeeded. */
  consecutive_failures: number;
  last_failure_at?: string;
  last_error?: string;
  disabled_at?: string;
  /**
   * Who created it, and for an agent the roles its token carried and the user it acted for: a
   * webhook is a feed of audit events, so it delivers only while they may still read them. Absent on
   * webhooks created before creators were recorded.
   */
  created_by?: WebhookCreator;
}

export interface WebhookCreator {
  kind: 'user' | 'agent';
  id: string;
  name: string;
  roles?: string[];
  on_behalf_of?: string;
}

export interface DeliveryAttempt {
  at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export interface DeliveryRecord {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  created_at: string;
  updated_at: string;
  /** Epoch ms of the next attempt while pending. */
  next_attempt_at: number | null;
  attempts: DeliveryAttempt[];
  /** The exact body sent at every attempt (only the timestamp header and signature change). */
  payload: string;
}

export const webhookKeys = {
  webhook: (id: string) => `webhooks/${id}`,
  /** Webhook records only (the prefix leaves out webhooks/dispatch/…). */
  webhooks: 'webhooks/whk_',
  name: (name: string) => `index/webhooks/name/${name}`,
  /** Folded name → webhook: names are unique regardless of case. */
  foldedName: (name: string) => `index/webhooks/folded/${foldName(name)}`,
  deliveries: (webhookId: string) => `webhook_deliveries/${webhookId}/`,
  delivery: (webhookId: string, id: string) => `webhook_deliveries/${webhookId}/${id}`,
  allDeliveries: 'webhook_deliveries/',
  /** The dispatcher's position in the audit store (its outbox). */
  dispatchPosition: 'webhooks/dispatch/position',
};

/** Whether a webhook subscribed to event type: `*`, an exact type, or a `prefix.*`. */
export function subscribes(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
}
