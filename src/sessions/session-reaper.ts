// Ends the sessions of an instance that died. A proxy killed mid-session cannot write their ends, and
// Boundary's users know what follows when nobody does (#5047, #1472: sessions listed as live for
// days). Every instance holds a lease under locks/instances/ that expires INSTANCE_LEASE_TTL_MS
// (15 s) after it stops renewing; a session record names the instance holding it. This job, one at a
// time across the auth tier (under its own lease), ends every active session whose instance has no
// lease on two passes in a row, with the reason `proxy_lost` and a session.end event. Bound: the
// lease TTL plus two intervals (≈ 25 s). When that proxy comes back, its spool uploads the recordings
// it kept; its own restart check (endOrphaned) finds them already ended.
import { runningInstances } from '../backend/instance-lease.js';
import { type LeaseRunner, runUnderLease } from '../backend/lease.js';
import type { Backend } from '../backend/types.js';
import { sleep } from '../lib/sleep.js';
import type { SessionRegistry } from './session-registry.js';

export const SESSION_REAPER_INTERVAL_MS = 5000;
export const PROXY_LOST = 'proxy_lost';

export function startSessionReaper(
  deps: { backend: Backend; sessions: SessionRegistry; onError?: (error: unknown) => void },
  opts: { intervalMs?: number } = {},
): LeaseRunner {
  const intervalMs = opts.intervalMs ?? SESSION_REAPER_INTERVAL_MS;
  const onError = deps.onError ?? (() => undefined);
  const suspects = new Set<string>();
  return runUnderLease(
    deps.backend,
    'session-reaper',
    { ttlMs: Math.max(15_000, intervalMs * 3), onError },
    async (signal) => {
      while (!signal.aborted) {
        try {
          await reapOnce(deps, suspects);
        } catch (error) {
          onError(error);
        }
        await sleep(intervalMs, signal);
      }
    },
  );
}

/**
 * One pass: the active sessions whose holding instance holds no lease now are ended — if it held none
 * on the pass before either (`suspects` carries that over). An instance whose lease lapsed only because
 * the store was unreachable (etcd without quorum) renews it as soon as the store is back, before a
 * second pass can find it missing, so its live sessions are not ended under it.
 */
export async function reapOnce(
  deps: { backend: Backend; sessions: SessionRegistry },
  suspects: Set<string> = new Set(),
): Promise<string[]> {
  const active = deps.sessions.list().filter((s) => s.status === 'active' && s.instance !== undefined);
  if (active.length === 0) {
    suspects.clear();
    return [];
  }
  const alive = new Set((await runningInstances(deps.backend)).map((i) => i.instance));
  const missing = new Set(active.map((s) => s.instance as string).filter((i) => !alive.has(i)));
  const lost = active.filter((s) => missing.has(s.instance as string) && suspects.has(s.instance as string));
  suspects.clear();
  for (const i of missing) suspects.add(i);
  if (lost.length === 0) return [];
  const ended = await deps.sessions.endOrphaned(
    lost.map((s) => s.id),
    PROXY_LOST,
  );
  return ended.map((s) => s.id);
}
