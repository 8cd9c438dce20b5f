// Revoking tokens is writing them back with revoked_at (and why), kept as tombstones so a holder
// hears why its token stopped working. Built as operations, so a revocation can share one atomic
// write with the change that causes it (an agent suspended, a user deleted).
import type { StateStore } from '../backend/state.js';
import type { Operation } from '../backend/types.js';
import type { TokenRecord } from './records.js';

/** Revoked and expired tokens are kept this long so a caller hears why, then swept. */
export const TOMBSTONE_MS = 24 * 3_600_000;

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
    ops.push({ type: 'put', key, value: JSON.stringify(revoked), expiresAt: item.value.expires_at + TOMBSTONE_MS });
  }
  return ops;
}
