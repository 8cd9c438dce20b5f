// Delivers audit events to webhooks, at least once. The audit store is the outbox: the dispatcher
// reads events after its position (kept in the backend) and, in one atomic write, records a delivery
// per event × subscribed webhook and moves the position. Deliveries are attempted in the background
// with bounded concurrency and retried on a jittered schedule; one instance does this, under a lease.
import type { AuditLog } from '../audit/audit-log.js';
import { decodePosition } from '../audit/sqlite.js';
import type { AuditActor, AuditEvent, AuditStore } from '../audit/types.js';
import type { PolicyResolver } from '../auth/policy-resolver.js';
import { type LeaseRunner, runUnderLease } from '../backend/lease.js';
import type { StateStore } from '../backend/state.js';
import { type Backend, BackendError, type Condition, type Operation } from '../backend/types.js';
import type { Config } from '../config/schema.js';
import { type Clock, isoTime } from '../lib/clock.js';
import { parseDuration } from '../lib/duration.js';
import { newId } from '../lib/ids.js';
import type { SecretBox } from '../lib/secret-box.js';
import { creatorLostRights } from './creator-rights.js';
import { type AttemptOutcome, postWebhook } from './http-attempt.js';
import { type DeliveryRecord, subscribes, type WebhookRecord, webhookKeys } from './records.js';
import { webhookHeaders } from './signature.js';
import type { UrlPolicy } from './url-policy.js';

export interface DispatcherOptions {
  pollIntervalMs: number;
  /** Events read from the audit store per step. */
  batchSize: number;
  /** Attempts in flight at once, overall and per webhook (one slow receiver cannot take every slot). */
  concurrency: number;
  perWebhookConcurrency: number;
  timeoutMs: number;
  /** Upper bounds of the waits before retries 1, 2, …; each wait is uniformly random below its bound. */
  retryScheduleMs: number[];
  /** Consecutive failed deliveries after which the webhook is disabled. */
  disableAfterFailures: number;
  deliveryRetentionMs: number;
  leaseTtlMs: number;
  /** On stop, how long in-flight attempts may still run before they are cut (and retried later). */
  shutdownGraceMs: number;
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = {
  pollIntervalMs: 500,
  batchSize: 100,
  concurrency: 16,
  perWebhookConcurrency: 4,
  timeoutMs: 5000,
  retryScheduleMs: [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000],
  disableAfterFailures: 5,
  deliveryRetentionMs: 7 * 86_400_000,
  leaseTtlMs: 15_000,
  shutdownGraceMs: 3000,
};

/** The operator-facing knobs (config key `webhooks`), as dispatcher options. */
export function dispatcherOptionsFrom(c: Config['webhooks']): Partial<DispatcherOptions> {
  const ms = (d: string) => parseDuration(d) as number;
  return {
    timeoutMs: ms(c.timeout),
    retryScheduleMs: c.retry_schedule.map(ms),
    disableAfterFailures: c.disable_after_failures,
    deliveryRetentionMs: ms(c.delivery_retention),
    pollIntervalMs: ms(c.poll_interval),
    concurrency: c.concurrency,
  };
}

export const DISPATCHER_ACTOR: AuditActor = { kind: 'system', id: 'webhook-dispatcher', name: 'webhook dispatcher' };

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
type OnError = (error: unknown, what: string) => void;

/** How old a head must be before the dispatcher, with no webhook, skips to it (see skipToHead). */
const SKIP_DELAY_MS = 1000;

export function createWebhookDispatcher(deps: {
  backend: Backend;
  state: StateStore;
  auditStore: Pick<AuditStore, 'tail' | 'head'>;
  audit: Pick<AuditLog, 'record'>;
  box: SecretBox;
  policy: UrlPolicy;
  /** The creator's rights now, re-checked before each attempt (creator-rights.ts). */
  policies: Pick<PolicyResolver, 'forUser' | 'forAgent'>;
  clock: Clock;
  options?: Partial<DispatcherOptions>;
  random?: () => number;
}) {
  const { state, clock } = deps;
  const opts: DispatcherOptions = { ...DEFAULT_DISPATCHER_OPTIONS, ...deps.options };
  const random = deps.random ?? Math.random;
  let runner: LeaseRunner | undefined;

  /** One term of holding the lease: ingest and attempt until the signal aborts, then wind down. */
  async function work(signal: AbortSignal, onError: OnError): Promise<void> {
    const due = new Map<string, number>(); // delivery key → epoch ms of its next attempt
    const inFlight = new Map<string, Promise<void>>();
    const perWebhook = new Map<string, number>();
    const cut = new AbortController(); // ends attempts still running after the grace period
    let nap: { until: number; wake: () => void } | undefined;

    const schedule = (key: string, at: number) => {
      due.set(key, at);
      if (nap && at < nap.until) nap.wake();
    };
    for (const item of state.list<DeliveryRecord>(webhookKeys.allDeliveries)) {
      if (item.value.status === 'pending') due.set(item.key, item.value.next_attempt_at ?? 0);
    }

    const launchDue = () => {
      if (signal.aborted) return;
      const now = clock();
      const ready = [...due].filter(([, at]) => at <= now).sort((a, b) => a[1] - b[1]);
      for (const [key] of ready) {
        if (inFlight.size >= opts.concurrency) break;
        const webhookId = key.split('/')[1] as string;
        const busy = perWebhook.get(webhookId) ?? 0;
        if (busy >= opts.perWebhookConcurrency) continue;
        due.delete(key);
        perWebhook.set(webhookId, busy + 1);
        const run = attempt(key, cut.signal, schedule)
          .catch((error) => {
            onError(error, 'webhook delivery attempt');
            schedule(key, clock() + Math.max(opts.pollIntervalMs, 1000));
          })
          .finally(() => {
            inFlight.delete(key);
            perWebhook.set(webhookId, (perWebhook.get(webhookId) ?? 1) - 1);
            launchDue();
          });
        inFlight.set(key, run);
      }
    };

    while (!signal.aborted) {
      let more = false;
      try {
        more = await ingest((key) => schedule(key, clock()));
      } catch (error) {
        if (!(error instanceof BackendError)) onError(error, 'reading events for webhooks');
      }
      launchDue();
      if (more) continue;
      // Sleep until the next poll or the next retry; deliveries already due but waiting for a free
      // slot are launched when an attempt ends, not by spinning here.
      const now = clock();
      let next = now + opts.pollIntervalMs;
      for (const at of due.values()) if (at > now && at < next) next = at;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          nap = undefined;
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, next - clock()));
        nap = { until: next, wake: done };
        signal.addEventListener('abort', done, { once: true });
      });
    }

    // Stopping or lost the lease: let attempts in flight finish for a while, then cut them.
    const settled = Promise.allSettled(inFlight.values());
    let graceTimer: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise((r) => (graceTimer = setTimeout(r, opts.shutdownGraceMs)))]);
    clearTimeout(graceTimer);
    cut.abort();
    await Promise.allSettled(inFlight.values());
  }

  const activeHooks = () =>
    state
      .list<WebhookRecord>(webhookKeys.webhooks)
      .map((i) => i.value)
      .filter((h) => h.status === 'active');

  /**
   * With no active webhook, the position moves to the store's head without reading (and parsing) the
   * events: reading them cost ~3% of a login's CPU, with a state write per 100 events. It moves to a
   * head read at least SKIP_DELAY_MS earlier, with no webhook seen then or now: a webhook created on
   * another instance reaches this one's cache in milliseconds (p99 14 ms, bench:cluster), so every
   * event skipped committed before any webhook existed, and wants() would skip it for that webhook
   * anyway (events from before a webhook are not sent to it).
   */
  let earlier: { head: string | undefined; at: number } | undefined;
  async function skipToHead(positionItem: { value: { position: string }; revision: number }) {
    const head = await deps.auditStore.head?.();
    if (activeHooks().length > 0) {
      earlier = undefined;
      return undefined;
    }
    const now = Date.now();
    if (earlier === undefined) earlier = { head, at: now };
    if (now - earlier.at < SKIP_DELAY_MS) return false;
    const target = earlier.head;
    earlier = { head, at: now };
    const at = positionItem.value.position;
    if (target !== undefined && BigInt(decodePosition(target)) > BigInt(decodePosition(at))) {
      await state.write(
        [{ key: webhookKeys.dispatchPosition, revision: positionItem.revision }],
        [{ type: 'put', key: webhookKeys.dispatchPosition, value: JSON.stringify({ position: target }) }],
      );
    }
    return false;
  }

  /** Reads the next events and records their deliveries; true if there may be more right away. */
  async function ingest(onCreated: (key: string) => void): Promise<boolean> {
    const positionItem = state.get<{ position: string }>(webhookKeys.dispatchPosition);
    // A first start (no position yet) reads as before, so the position exists from the first poll.
    if (deps.auditStore.head && positionItem && activeHooks().length === 0) {
      const skipped = await skipToHead(positionItem);
      if (skipped !== undefined) return skipped;
    }
    earlier = undefined;
    const from = positionItem?.value.position;
    let { events, position } = await deps.auditStore.tail(from, opts.batchSize);
    if (events.length === 0 || position === undefined) return false;

    const hooks = activeHooks();
    // The position and its deliveries are one write, which etcd bounds (128 operations): with many
    // webhooks, fewer events are taken this step (at least one), read again to learn their position.
    const fitting = eventsThatFit(events, hooks, state.maxWriteOperations - 1);
    const narrowed = fitting < events.length;
    if (narrowed) {
      ({ events, position } = await deps.auditStore.tail(from, fitting));
      if (events.length === 0 || position === undefined) return false;
    }
    const deliveries: Array<{ key: string; record: DeliveryRecord }> = [];
    const used = new Set<string>();
    for (const event of events) {
      for (const hook of hooks) {
        if (!wants(hook, event)) continue;
        const now = clock();
        const record: DeliveryRecord = {
          id: newId('delivery', now),
          webhook_id: hook.id,
          event_id: event.id,
          event_type: event.type,
          status: 'pending',
          created_at: isoTime(now),
          updated_at: isoTime(now),
          next_attempt_at: now,
          attempts: [],
          payload: JSON.stringify({ type: event.type, timestamp: event.time, data: event }),
        };
        deliveries.push({ key: webhookKeys.delivery(hook.id, record.id), record });
        used.add(webhookKeys.webhook(hook.id));
      }
    }
    const expiresAt = Date.now() + opts.deliveryRetentionMs;
    // The position only moves together with the deliveries it implies (and only from where we read
    // it: a second dispatcher that somehow ran too would fail here instead of duplicating).
    const conditions: Condition[] = [
      positionItem
        ? { key: webhookKeys.dispatchPosition, revision: positionItem.revision }
        : { key: webhookKeys.dispatchPosition, is: 'absent' },
      ...[...used].map((key): Condition => ({ key, is: 'present' })),
    ];
    const operations: Operation[] = [
      ...deliveries.map((d): Operation => ({ type: 'put', key: d.key, value: JSON.stringify(d.record), expiresAt })),
      { type: 'put', key: webhookKeys.dispatchPosition, value: JSON.stringify({ position }) },
    ];
    await state.write(conditions, operations);
    for (const d of deliveries) onCreated(d.key);
    // Events left behind by a narrowed step are read at once, not a poll later.
    return narrowed || events.length >= opts.batchSize;
  }

  /** How many of the events, from the first, fit in one write of at most `room` deliveries (at least 1). */
  function eventsThatFit(events: AuditEvent[], hooks: WebhookRecord[], room: number): number {
    let used = 0;
    for (let i = 0; i < events.length; i++) {
      const event = events[i] as AuditEvent;
      used += hooks.filter((hook) => wants(hook, event)).length;
      if (used > room) return Math.max(1, i);
    }
    return events.length;
  }

  function wants(hook: WebhookRecord, event: AuditEvent): boolean {
    if (!subscribes(hook.event_types, event.type)) return false;
    // Events from before the webhook existed are not sent to it (the dispatcher may be catching up).
    if (Date.parse(event.time) < Date.parse(hook.created_at)) return false;
    // A webhook is not told about its own failed deliveries: that would feed on itself.
    return !(event.type === 'webhook.delivery.failed' && event.target?.id === hook.id);
  }

  async function attempt(key: string, cut: AbortSignal, schedule: (key: string, at: number) => void): Promise<void> {
    const item = state.get<DeliveryRecord>(key);
    if (item?.value.status !== 'pending') return;
    const delivery = item.value;
    const hook = state.get<WebhookRecord>(webhookKeys.webhook(delivery.webhook_id))?.value;
    if (!hook) {
      // The webhook was deleted (its deletion removes the deliveries it knew of; this one came late).
      await state.remove(key).catch(() => undefined);
      return;
    }
    const startedAt = clock();
    const lost = hook.status === 'active' ? creatorLostRights(state, deps.policies, hook) : undefined;
    if (lost !== undefined) await disableForCreator(hook, lost);
    const active = hook.status === 'active' && lost === undefined;

    let outcome: AttemptOutcome;
    let secret: string | undefined;
    try {
      secret = deps.box.open(hook.secret, hook.id);
    } catch {
      secret = undefined;
    }
    if (lost !== undefined) {
      outcome = { ok: false, statusCode: null, latencyMs: 0, error: `not sent: ${lost}` };
    } else if (!active) {
      outcome = { ok: false, statusCode: null, latencyMs: 0, error: 'not sent: the webhook is disabled' };
    } else if (secret === undefined) {
      outcome = {
        ok: false,
        statusCode: null,
        latencyMs: 0,
        error: 'not sent: the signing secret cannot be opened with this instance’s webhook-secret.key',
      };
    } else {
      const timestamp = Math.floor(startedAt / 1000);
      const headers = webhookHeaders(secret, delivery.id, timestamp, delivery.payload);
      outcome = await postWebhook(hook.url, headers, delivery.payload, {
        timeoutMs: opts.timeoutMs,
        policy: deps.policy,
        signal: cut,
      });
      // Cut short by shutdown: not a verdict on the receiver; the delivery stays pending as it was.
      if (cut.aborted && !outcome.ok) return;
    }

    const attempts = [
      ...delivery.attempts,
      { at: isoTime(startedAt), status_code: outcome.statusCode, latency_ms: outcome.latencyMs, error: outcome.error },
    ];
    const retries = opts.retryScheduleMs;
    const retryable = active && attempts.length <= retries.length;
    const nextAt =
      outcome.ok || !retryable ? null : clock() + Math.floor(random() * (retries[attempts.length - 1] ?? 0));
    const updated: DeliveryRecord = {
      ...delivery,
      attempts,
      status: outcome.ok ? 'succeeded' : nextAt === null ? 'failed' : 'pending',
      next_attempt_at: nextAt,
      updated_at: isoTime(clock()),
    };
    try {
      await state.replace(key, item.revision, updated, item.expiresAt ? { expiresAt: item.expiresAt } : {});
    } catch (error) {
      if (error instanceof BackendError) return; // deleted meanwhile
      throw error;
    }
    if (nextAt !== null) schedule(key, nextAt);
    if (outcome.ok && hook.consecutive_failures > 0) {
      await updateWebhook(hook.id, (h) =>
        h.consecutive_failures === 0 ? undefined : { ...h, consecutive_failures: 0 },
      );
    }
    if (updated.status === 'failed' && active) await deliveryFailed(hook, updated, outcome);
  }

  /** Disables a webhook whose creator may no longer read audit events, with an event saying why. */
  async function disableForCreator(hook: WebhookRecord, why: string): Promise<void> {
    const now = isoTime(clock());
    let disabledNow = false;
    await updateWebhook(hook.id, (h) => {
      if (h.status !== 'active') return undefined;
      disabledNow = true;
      return { ...h, status: 'disabled', disabled_at: now, last_error: `disabled: ${why}`, updated_at: now };
    });
    if (!disabledNow) return;
    await deps.audit.record({
      type: 'webhook.disabled',
      actor: DISPATCHER_ACTOR,
      target: { kind: 'webhook', id: hook.id, name: hook.name },
      success: false,
      data: { reason: 'creator_lost_rights', detail: why },
    });
  }

  async function deliveryFailed(hook: WebhookRecord, delivery: DeliveryRecord, outcome: AttemptOutcome) {
    const target = { kind: 'webhook', id: hook.id, name: hook.name };
    await deps.audit.record({
      type: 'webhook.delivery.failed',
      actor: DISPATCHER_ACTOR,
      target,
      success: false,
      data: {
        delivery_id: delivery.id,
        event_id: delivery.event_id,
        event_type: delivery.event_type,
        attempts: delivery.attempts.length,
        last_error: outcome.error,
      },
    });
    const now = isoTime(clock());
    let disabledNow = false;
    const after = await updateWebhook(hook.id, (h) => {
      const failures = h.consecutive_failures + 1;
      disabledNow = h.status === 'active' && failures >= opts.disableAfterFailures;
      return {
        ...h,
        consecutive_failures: failures,
        last_failure_at: now,
        last_error: outcome.error ?? 'failed',
        updated_at: now,
        ...(disabledNow ? { status: 'disabled' as const, disabled_at: now } : {}),
      };
    });
    if (after && disabledNow) {
      await deps.audit.record({
        type: 'webhook.disabled',
        actor: DISPATCHER_ACTOR,
        target,
        success: false,
        data: {
          reason: 'failures',
          consecutive_failures: after.consecutive_failures,
          last_error: after.last_error ?? null,
        },
      });
    }
  }

  /** Read-modify-write of a webhook with a revision check, retried on a concurrent change. */
  async function updateWebhook(
    id: string,
    change: (h: WebhookRecord) => WebhookRecord | undefined,
  ): Promise<WebhookRecord | undefined> {
    for (let i = 0; i < 5; i++) {
      const item = state.get<WebhookRecord>(webhookKeys.webhook(id));
      if (!item) return undefined;
      const next = change(item.value);
      if (!next) return undefined;
      try {
        await state.replace(item.key, item.revision, next);
        return next;
      } catch (error) {
        if (!(error instanceof BackendError)) throw error;
      }
    }
    return undefined;
  }

  return {
    options: opts,
    /** Starts competing for the lease; the instance that holds it delivers. */
    start(onError: OnError = () => undefined): void {
      if (runner) return;
      runner = runUnderLease(
        deps.backend,
        'webhook-dispatcher',
        { ttlMs: opts.leaseTtlMs, onError: (e) => onError(e, 'webhook dispatcher lease') },
        (signal) => work(signal, onError),
      );
    },
    /** Stops polling, lets attempts in flight finish (bounded), and releases the lease. */
    async stop(): Promise<void> {
      const r = runner;
      runner = undefined;
      await r?.stop();
    },
    get delivering(): boolean {
      return runner?.held ?? false;
    },
  };
}
