// Ends the sessions of an instance that died. A proxy killed mid-session cannot write their ends, and
// Boundary's users know what follows when nobody does (#5047, #1472: sessions listed as live for
// days). Every instance holds a lease under locks/instances/ that expires INSTANCE_LEASE_TTL_MS
// (15 s) after it stops renewing; a session record names the instance holding it. This job, one at a
// time across the auth tier (under its own lease), ends every active session whose instance has no
// lease any more, with the reason `proxy_lost` and a session.end event. Bound: the lease TTL plus
// one interval (≈ 20 s). When that proxy comes back, its spool uploads the recordings it kept; its
// own restart check (endOrphaned) finds them already ended.
import { runningInstances } from '../backend/instance-lease.js';
import { type LeaseRunner, runUnderLease } from '../backend/lease.js';
import type { Backend } from '../backend/types.js';
import type { SessionRegistry } from './session-registry.js';

export const SESSION_REAPER_INTERVAL_MS = 5000;
export const PROXY_LOST = 'proxy_lost';

export function startSessionReaper(
  deps: { backend: Backend; sessions: SessionRegistry; onError?: (error: unknown) => void },
  opts: { intervalMs?: number } = {},
): LeaseRunner {
  const intervalMs = opts.intervalMs ?? SESSION_REAPER_INTERVAL_MS;
  const onError = deps.onError ?? (() => undefined);
  return runUnderLease(
    deps.backend,
    'session-reaper',
    { ttlMs: Math.max(15_000, intervalMs * 3), onError },
    async (signal) => {
      while (!signal.aborted) {
        try {
          await reapOnce(deps);
        } catch (error) {
          onError(error);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, intervalMs);
          signal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              resolve();
            },
            { once: true },
          );
        });
      }
    },
  );
}

/** One pass: the active sessions whose holding instance holds no lease now are ended. */
export async function reapOnce(deps: { backend: Backend; sessions: SessionRegistry }): Promise<string[]> {
  const active = deps.sessions.list().filter((s) => s.status === 'active' && s.instance !== undefined);
  if (active.length === 0) return [];
  const alive = new Set((await runningInstances(deps.backend)).map((i) => i.instance));
  const lost = active.filter((s) => !alive.has(s.instance));
  if (lost.length === 0) return [];
  const ended = await deps.sessions.endOrphaned(
    lost.map((s) => s.id),
    PROXY_LOST,
  );
  return ended.map((s) => s.id);
}
