// Singleton background jobs (docs/architecture.md): whoever creates `locks/<name>` (create-if-absent, with a
// TTL) runs the job, renews the key at TTL/2, and deletes it when done. An instance that dies stops
// renewing, the key expires, and another instance takes over. A holder that cannot renew before its
// lease runs out aborts its job, so two holders never work at once for longer than a renewal round.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { sleep } from '../lib/sleep.js';
import { type Backend, BackendError, type Item } from './types.js';

export interface LeaseOptions {
  ttlMs: number;
  /** How often a waiting instance tries to take the lease (default TTL/4). */
  retryMs?: number;
  /** Identifies this holder in the lock's value, for operators. */
  holder?: string;
  /** More fields for the lock's value, for whoever lists the holders (e.g. an instance's roles). */
  info?: Record<string, unknown>;
  onError?: (error: unknown) => void;
}

export interface LeaseRunner {
  /** Whether this instance holds the lease now. */
  readonly held: boolean;
  /** Aborts the job, waits for it to return, and releases the lease. */
  stop(): Promise<void>;
}

export const leaseKey = (name: string): string => `locks/${name}`;

/**
 * Runs job whenever this instance holds the lease `name`. The job gets a signal that aborts when the
 * lease is lost or stop() is called; it should then wind down and return. If it returns on its own,
 * the lease is released and taken again after retryMs.
 */
export function runUnderLease(
  backend: Backend,
  name: string,
  opts: LeaseOptions,
  job: (signal: AbortSignal) => Promise<void>,
): LeaseRunner {
  const key = leaseKey(name);
  const { ttlMs } = opts;
  const retryMs = opts.retryMs ?? Math.max(10, Math.floor(ttlMs / 4));
  const holder = opts.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const stopping = new AbortController();
  let held = false;

  async function tryAcquire(): Promise<Item | undefined> {
    try {
      const value = JSON.stringify({ ...opts.info, holder, acquired_at: new Date().toISOString() });
      return await backend.create(key, value, { expiresAt: Date.now() + ttlMs });
    } catch (error) {
      if (!(error instanceof BackendError)) opts.onError?.(error);
      return undefined;
    }
  }

  async function hold(acquired: Item): Promise<void> {
    held = true;
    let item = acquired;
    let expiresAt = acquired.expiresAt ?? Date.now() + ttlMs;
    const lost = new AbortController();
    const abortJob = () => lost.abort();
    stopping.signal.addEventListener('abort', abortJob, { once: true });

    let renewTimer: NodeJS.Timeout | undefined;
    let renewing: Promise<void> = Promise.resolve();
    const scheduleRenew = (ms: number) => {
      renewTimer = setTimeout(() => {
        renewing = renew();
      }, ms);
    };
    async function renew(): Promise<void> {
      if (lost.signal.aborted) return;
      try {
        const next = Date.now() + ttlMs;
        item = await backend.compareAndSwap(key, item.revision, item.value, { expiresAt: next });
        expiresAt = next;
        scheduleRenew(ttlMs / 2);
      } catch (error) {
        if (error instanceof BackendError) {
          lost.abort(); // expired and taken, or deleted: someone else may be running the job now
          return;
        }
        opts.onError?.(error);
        // The backend is unreachable: keep trying while the lease lasts, give up before it ends.
        if (Date.now() + ttlMs / 10 >= expiresAt) lost.abort();
        else scheduleRenew(ttlMs / 10);
      }
    }
    scheduleRenew(ttlMs / 2);

    try {
      await job(lost.signal);
    } catch (error) {
      opts.onError?.(error);
    } finally {
      lost.abort();
      clearTimeout(renewTimer);
      await renewing;
      clearTimeout(renewTimer); // a renewal that was in flight may have scheduled another
      stopping.signal.removeEventListener('abort', abortJob);
      held = false;
      // Release only our own lease (the revision proves it is still ours), so a successor starts at once.
      await backend.atomicWrite([{ key, revision: item.revision }], [{ type: 'delete', key }]).catch(() => undefined);
    }
  }

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      const acquired = await tryAcquire();
      if (acquired && !stopping.signal.aborted) await hold(acquired);
      else if (acquired) {
        await backend.atomicWrite([{ key, revision: acquired.revision }], [{ type: 'delete', key }]).catch(() => {});
      }
      await sleep(retryMs, stopping.signal);
    }
  })();

  return {
    get held() {
      return held;
    },
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
