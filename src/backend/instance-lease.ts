// Every running Gatehouse process holds a lease of its own under `locks/instances/` (created at start,
// renewed at TTL/2, deleted on a clean stop, expiring one TTL after a crash), so that offline tools
// such as `gatehouse admin reset` can tell whether a server is using the state store.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type LeaseRunner, leaseKey, runUnderLease } from './lease.js';
import type { Backend } from './types.js';

const PREFIX = 'instances/';
export const INSTANCE_LEASE_TTL_MS = 15_000;

export interface InstanceHolder {
  /** Who holds it, for operators: `gatehouse pid 1234 on host`. */
  holder: string;
  /** When it took the lease. */
  since: string;
  /** When the lease runs out if the holder stops renewing it (epoch ms). */
  expiresAt?: number;
  /** The roles it runs (auth, proxy), when it said. */
  roles?: string[];
  /** Host and data dir: the same on a restart, so a new process can tell its own crashed predecessor. */
  home?: string;
  /** The process's instance id (the session bus's), to tell itself from the others. */
  instance?: string;
}

export function holdInstanceLease(
  backend: Backend,
  opts: {
    ttlMs?: number;
    onError?: (error: unknown) => void;
    info?: Pick<InstanceHolder, 'roles' | 'home' | 'instance'>;
  } = {},
): LeaseRunner {
  const name = `${PREFIX}${randomBytes(8).toString('hex')}`;
  return runUnderLease(
    backend,
    name,
    {
      ttlMs: opts.ttlMs ?? INSTANCE_LEASE_TTL_MS,
      holder: `gatehouse pid ${process.pid} on ${hostname()}`,
      ...(opts.info ? { info: opts.info } : {}),
      ...(opts.onError ? { onError: opts.onError } : {}),
    },
    // Nothing to do but hold it until stop() (or until it is lost, when the runner takes it again).
    (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
  );
}

/** The processes holding an unexpired instance lease on this backend now. */
export async function runningInstances(backend: Pick<Backend, 'getRange'>): Promise<InstanceHolder[]> {
  const items = await backend.getRange(leaseKey(PREFIX));
  return items.map((item) => {
    let value: { holder?: unknown; acquired_at?: unknown; roles?: unknown; home?: unknown; instance?: unknown } = {};
    try {
      value = JSON.parse(item.value) as typeof value;
    } catch {
      // an unreadable lease still counts as held
    }
    return {
      holder: typeof value.holder === 'string' ? value.holder : 'an unidentified process',
      since: typeof value.acquired_at === 'string' ? value.acquired_at : 'an unknown time',
      ...(item.expiresAt !== undefined ? { expiresAt: item.expiresAt } : {}),
      ...(Array.isArray(value.roles) ? { roles: value.roles.filter((r): r is string => typeof r === 'string') } : {}),
      ...(typeof value.home === 'string' ? { home: value.home } : {}),
      ...(typeof value.instance === 'string' ? { instance: value.instance } : {}),
    };
  });
}
