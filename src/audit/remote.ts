// The audit store of a proxy-only instance: events go to the auth tier, which acknowledges them only
// once its own store has them durably (so a proxy's "recorded" means what an auth instance's does).
// Queries, tails and retention are the auth tier's: a proxy forwards /v1/audit rather than reading.

import { GatehouseError } from '../lib/errors.js';
import { type AuthPool, AuthUnreachable } from '../net/auth-client.js';
import type { AuditStore } from './types.js';

const unavailable = (detail: string, cause?: unknown) =>
  new GatehouseError('audit_unavailable', `the audit store cannot be reached through the auth tier: ${detail}`, {
    headers: { 'retry-after': '1' },
    cause,
  });

function notOnAProxy(what: string): never {
  throw new Error(`${what} runs on the auth tier, not on a proxy-only instance`);
}

export function createRemoteAuditStore(pool: AuthPool): AuditStore {
  async function send(path: string, init: RequestInit & { idempotent?: boolean }): Promise<void> {
    let res: Response;
    try {
      res = await pool.fetch(path, init);
    } catch (error) {
      throw unavailable(error instanceof AuthUnreachable ? error.message : String(error), error);
    }
    if (res.status === 204) return;
    const body = (await res.json().catch(() => ({}))) as { detail?: string };
    throw unavailable(`${res.status} ${body.detail ?? ''}`.trim());
  }
  return {
    // Not idempotent across servers: a resend after a lost answer could store an event twice, so a
    // failure is the caller's 503 (the request that wanted the event did not succeed).
    append: (events) =>
      send('/internal/v1/audit/events', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      }),
    query: () => notOnAProxy('querying the audit trail'),
    tail: () => notOnAProxy('tailing the audit trail'),
    deleteBefore: () => notOnAProxy('audit retention'),
    ping: () => send('/internal/v1/audit/ping', { idempotent: true }),
    async close() {},
  };
}
