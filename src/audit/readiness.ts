// What /readyz says about the audit store: that it answers, and for a replicated PostgreSQL store
// which host takes writes, how far the read replica is behind and when the last append committed.
// A primary that requires a synchronous standby with none in sync holds every commit until one
// returns, so the instance is not ready to acknowledge anything: that is a failed check that says so.
import type { AuditStore } from './types.js';

/** A failed readiness check that explains itself (/readyz shows `readiness` instead of "unreachable"). */
export class NotReadyError extends Error {
  constructor(readonly readiness: string) {
    super(readiness);
    this.name = 'NotReadyError';
  }
}

/** Resolves with a one-line detail ("ok; primary 127.0.0.1:5432; …"), or throws NotReadyError. */
export async function auditReadiness(store: Pick<AuditStore, 'ping' | 'status'>): Promise<string | undefined> {
  await store.ping();
  const status = await store.status?.();
  if (!status) return undefined;
  const parts: string[] = [];
  if (status.primary) parts.push(`primary ${status.primary}`);
  if (status.replica) {
    const lag = status.replicaLagSeconds === undefined ? '' : `, lag ${status.replicaLagSeconds.toFixed(3)} s`;
    parts.push(`replica ${status.replica}${lag}`);
  }
  if (status.sinceLastCommitSeconds !== undefined) {
    parts.push(`last commit ${status.sinceLastCommitSeconds.toFixed(1)} s ago`);
  }
  const sync = status.synchronousStandbys;
  if (sync) parts.push(`synchronous standbys in sync: ${sync.inSync} (synchronous_standby_names = ${sync.required})`);
  if (sync && sync.inSync === 0) {
    throw new NotReadyError(`writes blocked: no synchronous standby is in sync; ${parts.join('; ')}`);
  }
  return ['ok', ...parts].join('; ');
}
