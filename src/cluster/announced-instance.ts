// Which process a proxy's call to the auth tier comes from: every internal call carries the proxy's
// instance id (the session bus's, the one its lease and its session records name), and the auth tier
// binds what the call writes to it (cluster/proxy-writes.ts, cluster/proxy-events.ts). A joined proxy's
// instance is `<identity>-<8 hex>`, and auth refuses one that is not of the identity its credential
// proves (cluster/cluster-peers.ts); under the deprecated shared token it is self-declared.
import { type AuthPool, INSTANCE_HEADER } from '../net/auth-client.js';

export { INSTANCE_HEADER };
/** The session bus makes `inst_` and 16 hex digits; the auth tier takes any id of this shape. */
export const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export type AnnouncingPool = AuthPool & {
  /** From now on every call names this instance (set once the session bus has its id). */
  announce(instance: string): void;
  /** Told of every call auth refused (401): the credential may be expired, or the identity removed. */
  onRefused(listener: () => void): void;
};

/** The pool, with every call naming this instance once announce() was called. */
export function announcingInstance(pool: AuthPool): AnnouncingPool {
  let instance: string | undefined;
  let refused: (() => void) | undefined;
  const told = (res: Response) => {
    if (res.status === 401) refused?.();
    return res;
  };
  return {
    ...pool,
    announce(id) {
      instance = id;
    },
    onRefused(listener) {
      refused = listener;
    },
    fetch(path, init = {}) {
      if (instance === undefined) return pool.fetch(path, init).then(told);
      const headers = new Headers(init.headers);
      headers.set(INSTANCE_HEADER, instance);
      return pool.fetch(path, { ...init, headers }).then(told);
    },
  };
}
