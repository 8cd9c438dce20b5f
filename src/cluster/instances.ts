// What an instance learns about the others from their instance leases in the state store
// (backend/instance-lease.ts): whether another proxy runs (several proxies need Redis), and how many
// auth instances are alive (the auth_cluster_health metric). No discovery of our own: a lease is
// renewed every TTL/2 by a live process and runs out one TTL after it dies.
import { runningInstances } from '../backend/instance-lease.js';
import type { Backend } from '../backend/types.js';
import { StartupError } from '../lib/errors.js';

type Backendish = Pick<Backend, 'getRange'>;

const alive = async (backend: Backendish, now: number) =>
  (await runningInstances(backend)).filter((i) => i.expiresAt === undefined || i.expiresAt > now);

/**
 * Refuses a second proxy without Redis: throttles, agent limits and session confirmations would
 * silently count per proxy behind a load balancer. Called once this instance's own lease is written,
 * so two proxies starting at the same moment see each other (and both refuse) rather than neither.
 * A lease left by this same home (host and data dir) is this instance's own crashed predecessor.
 */
export async function refuseSecondProxyWithoutRedis(
  backend: Backendish,
  self: { instance: string; home: string },
  now = Date.now(),
): Promise<void> {
  const others = (await alive(backend, now)).filter(
    (i) => i.roles?.includes('proxy') && i.instance !== self.instance && i.home !== self.home,
  );
  const other = others[0];
  if (!other) return;
  throw new StartupError(
    `another proxy instance already uses this state store (${other.holder}, since ${other.since}); ` +
      'several proxies need Redis so that rate limits, login throttles and session termination hold across them: ' +
      'set redis_url (GATEHOUSE_REDIS_URL) on every instance',
  );
}

/** Auth instances other than this one whose lease is alive now. */
export async function authPeers(backend: Backendish, selfInstance: string, now = Date.now()): Promise<number> {
  return (await alive(backend, now)).filter((i) => i.roles?.includes('auth') && i.instance !== selfInstance).length;
}
