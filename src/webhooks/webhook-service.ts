// Webhooks: where audit events are sent. The signing secret is shown once and kept sealed (the
// dispatcher must sign with it); URLs must pass the SSRF policy; deliveries are listed per webhook.
import type { AuditLog } from '../audit/audit-log.js';
import { EVENT_TYPES } from '../audit/catalogue.js';
import type { Covering } from '../auth/covering.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import { heldFoldedKey, nameConflicts } from '../auth/unique-names.js';
import { translateConflicts } from '../backend/conflicts.js';
import type { StateStore } from '../backend/state.js';
import { type Clock, isoTime } from '../lib/clock.js';
import { found, invalidField } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { page } from '../lib/paging.js';
import type { SecretBox } from '../lib/secret-box.js';
import { type DeliveryRecord, type WebhookCreator, type WebhookRecord, webhookKeys } from './records.js';
import { generateWebhookSecret } from './signature.js';
import { checkWebhookUrl, type UrlPolicy } from './url-policy.js';

export interface CreateWebhookInput {
  name: string;
  url: string;
  event_types: string[];
  description?: string;
}

export const toWebhookResponse = (w: WebhookRecord) => ({
  id: w.id,
  name: w.name,
  url: w.url,
  description: w.description,
  event_types: w.event_types,
  status: w.status,
  created_at: w.created_at,
  updated_at: w.updated_at,
  failure: {
    consecutive_failures: w.consecutive_failures,
    last_failure_at: w.last_failure_at ?? null,
    last_error: w.last_error ?? null,
    disabled_at: w.disabled_at ?? null,
  },
  created_by: w.created_by ? { kind: w.created_by.kind, id: w.created_by.id } : null,
});

export const toDeliveryResponse = (d: DeliveryRecord) => ({
  id: d.id,
  webhook_id: d.webhook_id,
  event_id: d.event_id,
  event_type: d.event_type,
  status: d.status,
  created_at: d.created_at,
  updated_at: d.updated_at,
  next_attempt_at: d.next_attempt_at === null ? null : isoTime(d.next_attempt_at),
  attempts: d.attempts,
});

/** Exact types must exist in the catalogue (a typo would silently never match); prefixes may be any. */
function checkEventTypes(types: string[]): string[] {
  types.forEach((t, i) => {
    if (t !== '*' && !t.endsWith('.*') && !(t in EVENT_TYPES)) {
      throw invalidField(`/body/event_types/${i}`, `unknown event type ${JSON.stringify(t)}; see docs/events`);
    }
  });
  return [...new Set(types)];
}

function creatorRecord(p: Principal): WebhookCreator {
  return {
    kind: p.kind,
    id: p.id,
    name: p.name,
    ...(p.kind === 'agent' ? { roles: [...p.roles] } : {}),
    ...(p.onBehalfOf ? { on_behalf_of: p.onBehalfOf.id } : {}),
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

export function createWebhookService(deps: {
  state: StateStore;
  audit: Pick<AuditLog, 'record'>;
  clock: Clock;
  box: SecretBox;
  policy: UrlPolicy;
  covering: Pick<Covering, 'require'>;
}) {
  const { state, audit, clock } = deps;

  const findItem = (id: string) => found(state.get<WebhookRecord>(webhookKeys.webhook(id)), 'webhook', id);
  const find = (id: string): WebhookRecord => findItem(id).value;

  return {
    list(q: { page: number; per_page: number; status?: WebhookRecord['status'] }) {
      const all = state
        .list<WebhookRecord>(webhookKeys.webhooks)
        .map((i) => i.value)
        .filter((w) => q.status === undefined || w.status === q.status);
      return page(all, q);
    },

    get: find,

    /** Creates the webhook; the secret in the answer is the only copy that ever leaves the server. */
    async create(ctx: RequestContext, input: CreateWebhookInput): Promise<{ webhook: WebhookRecord; secret: string }> {
      // A webhook is a feed of audit events: whoever creates one must be able to read them.
      await deps.covering.require(
        ctx,
        { roles: [{ name: '(webhook)', allow: { rules: [{ resources: ['events'], verbs: ['list', 'read'] }] } }] },
        { kind: 'webhook', name: input.name },
        `create webhook ${input.name}, which would send you audit events`,
      );
      const verdict = checkWebhookUrl(input.url, deps.policy);
      if (!verdict.ok) throw invalidField('/body/url', `the URL ${verdict.reason}`);
      const eventTypes = checkEventTypes(input.event_types);
      const now = clock();
      const id = newId('webhook', now);
      const secret = generateWebhookSecret();
      const webhook: WebhookRecord = {
        id,
        name: input.name,
        url: verdict.url.href,
        description: input.description ?? '',
        event_types: eventTypes,
        status: 'active',
        secret: deps.box.seal(secret, id),
        created_at: isoTime(now),
        updated_at: isoTime(now),
        consecutive_failures: 0,
        ...(ctx.principal ? { created_by: creatorRecord(ctx.principal) } : {}),
      };
      const index = { exact: webhookKeys.name(webhook.name), folded: webhookKeys.foldedName(webhook.name) };
      await translateConflicts(
        () => state.insert(webhookKeys.webhook(id), webhook, { indexKeys: [index.exact, index.folded] }),
        nameConflicts(state, 'a webhook', webhook.name, index),
      );
      await audit.record({
        type: 'webhook.created',
        actor: actorOf(ctx),
        target: { kind: 'webhook', id, name: webhook.name },
        ...eventContext(ctx),
        // The origin only: a URL's path or query may itself carry a token.
        data: { url_origin: verdict.url.origin, event_types: eventTypes },
      });
      return { webhook, secret };
    },

    /** Deletes the webhook and its delivery records; attempts not yet made are not made. */
    async remove(ctx: RequestContext, id: string): Promise<void> {
      const item = findItem(id);
      const deliveries = state.list(webhookKeys.deliveries(id));
      await translateConflicts(() =>
        state.write(
          [{ key: item.key, revision: item.revision }],
          [
            { type: 'delete', key: item.key },
            { type: 'delete', key: webhookKeys.name(item.value.name) },
            ...heldFoldedKey(state, webhookKeys.foldedName(item.value.name), item.key).map((key) => ({
              type: 'delete' as const,
              key,
            })),
            ...deliveries.map((d) => ({ type: 'delete' as const, key: d.key })),
          ],
        ),
      );
      await audit.record({
        type: 'webhook.deleted',
        actor: actorOf(ctx),
        target: { kind: 'webhook', id, name: item.value.name },
        ...eventContext(ctx),
        data: { deleted_deliveries: deliveries.length },
      });
    },

    /** A webhook's deliveries, newest first (ids sort by creation time). */
    listDeliveries(id: string, q: { page: number; per_page: number; status?: DeliveryRecord['status'] }) {
      find(id);
      const all = state
        .list<DeliveryRecord>(webhookKeys.deliveries(id))
        .map((i) => i.value)
        .filter((d) => q.status === undefined || d.status === q.status)
        .reverse();
      return page(all, q);
    },
  };
}
