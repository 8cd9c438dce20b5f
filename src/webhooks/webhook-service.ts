// Webhooks: where audit events are sent. The signing secret is shown once and kept sealed (the
// dispatcher must sign with it); URLs must pass the SSRF policy; deliveries are listed per webhook.
import type { AuditLog } from '../audit/audit-log.js';
import { EVENT_TYPES } from '../audit/catalogue.js';
import type { Covering } from '../auth/covering.js';
import { unlessChanged } from '../auth/preconditions.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import { heldFoldedKey, insertNamed } from '../auth/unique-names.js';
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

/** What PATCH may change; the name and the signing secret stay. */
export interface WebhookPatch {
  url?: string;
  event_types?: string[];
  description?: string;
  status?: WebhookRecord['status'];
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

  /** A webhook is a feed of audit events: whoever points one somewhere must be able to read them. */
  const requireEventsReadable = (ctx: RequestContext, name: string, what: string) =>
    deps.covering.require(
      ctx,
      { roles: [{ name: '(webhook)', allow: { rules: [{ resources: ['events'], verbs: ['list', 'read'] }] } }] },
      { kind: 'webhook', name },
      what,
    );

  return {
    list(q: { page: number; per_page: number; status?: WebhookRecord['status'] }) {
      const all = state
        .list<WebhookRecord>(webhookKeys.webhooks)
        .map((i) => i.value)
        .filter((w) => q.status === undefined || w.status === q.status);
      return page(all, q);
    },

    get: find,
    /** The stored webhook with its revision (its ETag). */
    getItem: findItem,

    /** Creates the webhook; the secret in the answer is the only copy that ever leaves the server. */
    async create(ctx: RequestContext, input: CreateWebhookInput): Promise<{ webhook: WebhookRecord; secret: string }> {
      await requireEventsReadable(ctx, input.name, `create webhook ${input.name}, which would send you audit events`);
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
      await insertNamed(state, 'a webhook', webhookKeys.webhook(id), webhook, index);
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

    /**
     * Changes the URL, event types, description or status. Sending the feed somewhere else, widening
     * or changing what it carries, or turning it back on is the same grant as creating it: the caller
     * must read audit events, and becomes the one whose right the webhook lives on (created_by).
     * Turning it off or changing its description needs no such right. Back on, its failure count
     * starts again.
     */
    async update(ctx: RequestContext, id: string, patch: WebhookPatch): Promise<WebhookRecord> {
      const item = findItem(id);
      unlessChanged(ctx, item, `webhook ${item.value.name}`);
      const was = item.value;
      const url = patch.url === undefined ? undefined : checkWebhookUrl(patch.url, deps.policy);
      if (url && !url.ok) throw invalidField('/body/url', `the URL ${url.reason}`);
      const eventTypes = patch.event_types === undefined ? undefined : checkEventTypes(patch.event_types);
      const changed: string[] = [];
      if (url?.ok && url.url.href !== was.url) changed.push('url');
      if (eventTypes && JSON.stringify(eventTypes) !== JSON.stringify(was.event_types)) changed.push('event_types');
      if (patch.description !== undefined && patch.description !== was.description) changed.push('description');
      if (patch.status !== undefined && patch.status !== was.status) changed.push('status');
      if (changed.length === 0) return was;
      const feeds =
        changed.some((f) => f === 'url' || f === 'event_types') ||
        (changed.includes('status') && patch.status === 'active');
      if (feeds)
        await requireEventsReadable(ctx, was.name, `change webhook ${was.name}, which would send you audit events`);
      const now = isoTime(clock());
      const next: WebhookRecord = {
        ...was,
        ...(url?.ok ? { url: url.url.href } : {}),
        ...(eventTypes ? { event_types: eventTypes } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.status !== undefined ? { status: patch.status } : {}),
        ...(feeds && ctx.principal ? { created_by: creatorRecord(ctx.principal) } : {}),
        updated_at: now,
      };
      if (changed.includes('status') && patch.status === 'active') {
        next.consecutive_failures = 0;
        delete next.disabled_at;
      }
      await translateConflicts(() =>
        state.write(
          [{ key: item.key, revision: item.revision }],
          [{ type: 'put', key: item.key, value: JSON.stringify(next) }],
        ),
      );
      await audit.record({
        type: 'webhook.updated',
        actor: actorOf(ctx),
        target: { kind: 'webhook', id, name: was.name },
        ...eventContext(ctx),
        // The origin only, as at creation: a URL's path or query may itself carry a token.
        data: {
          changed,
          ...(changed.includes('url') && url?.ok ? { url_origin: url.url.origin } : {}),
          ...(changed.includes('event_types') ? { event_types: next.event_types } : {}),
          ...(changed.includes('status') ? { status: next.status } : {}),
        },
      });
      return next;
    },

    /** Deletes the webhook and its delivery records; attempts not yet made are not made. */
    async remove(ctx: RequestContext, id: string): Promise<void> {
      const item = findItem(id);
      unlessChanged(ctx, item, `webhook ${item.value.name}`);
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
