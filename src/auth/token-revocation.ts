// Revoking tokens is writing them back with revoked_at (and why), kept as tombstones so a holder
// hears why its token stopped working. Built as operations, so a revocation can share one atomic
// write with the change that causes it (an agent suspended, a user deleted).
import type { StateStore } from '../backend/state.js';
import type { Operation } from '../backend/types.js';
import type { TokenRecord } from './records.js';

/** Revoked tokens (and other revoked credentials) are kept this long past expiry so a caller hears why, then swept. */
export const TOMBSTONE_MS = 24 * 3_600_000;

/**
 * Expired tokens that nobody revoked are kept only this long past expiry (token_expired), then
 * swept (invalid_token): every login's records stay in every instance's memory while kept, and a
 * day of them was most of a login's footprint (issue 36). A client that slept longer than that
 * hears its token is unknown, which asks for the same thing: log in again.
 */
export const EXPIRED_KEPT_MS = 3_600_000;

/** The write that stores a token record (at its key): kept an hour past its expiry, a day once revoked. */
export const tokenPut = (key: string, record: TokenRecord): Operation => ({
  type: 'put',
  key,
  value: JSON.stringify(record),
  expiresAt: record.expires_at + (record.revoked_at === undefined ? EXPIRED_KEPT_MS : TOMBSTONE_MS),
});

export function tokenRevocationOps(
  state: StateStore,
  tokenKeys: Iterable<string>,
  now: number,
  reason?: string,
): Operation[] {
  const ops: Operation[] = [];
  for (const key of new Set(tokenKeys)) {
    const item = state.get<TokenRecord>(key);
    if (!item || item.value.revoked_at !== undefined) continue;
    const revoked: TokenRecord = { ...item.value, revoked_at: now, ...(reason ? { revoked_reason: reason } : {}) };
    ops.push(tokenPut(key, revoked));
  }
  return ops;
}
