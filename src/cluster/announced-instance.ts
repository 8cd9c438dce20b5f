// Which instance a proxy's call to the auth tier comes from: every internal call carries the proxy's
// instance id (the session bus's, the one its lease and its session records name), and the auth tier
// binds what the call writes to it (cluster/proxy-writes.ts, cluster/proxy-events.ts). Self-declared:
// all proxies share one cluster token, so the id is what the proxy says, until each has its own identity.
import type { AuthPool } from '../net/auth-client.js';

export const INSTANCE_HEADER = 'x-gatehouse-instance';
/** The session bus makes `inst_` and 16 hex digits; the auth tier takes any id of this shape. */
export const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export type AnnouncingPool = AuthPool & {
  /** From now on every call names this instance (set once the session bus has its id). */
  announce(instance: string): void;
};

/** The pool, with every call naming this instance once announce() was called. */
export function announcingInstance(pool: AuthPool): AnnouncingPool {
  let instance: string | undefined;
  return {
    ...pool,
    announce(id) {
      instance = id;
    },
    fetch(path, init = {}) {
      if (instance === undefined) return pool.fetch(path, init);
      const headers = new Headers(init.headers);
      headers.set(INSTANCE_HEADER, instance);
      return pool.fetch(path, { ...init, headers });
    },
  };
}
