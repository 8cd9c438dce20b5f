// The state backend of a proxy-only instance: every call goes to the auth tier's internal API
// (api/internal/internal.routes.ts), and the watch follows auth's NDJSON stream. When that stream
// breaks (an auth instance died, a network blip) it reconnects to another instance and resyncs the
// way etcd-watch.ts does after a compaction: the fresh snapshot, compared with the keys the listener
// holds, becomes the puts and deletes it missed. All auth instances share one store, so revisions
// mean the same on every one of them.

import { GatehouseError } from '../lib/errors.js';
import { type AuthPool, AuthUnreachable } from '../net/auth-client.js';
import {
  type Backend,
  BackendError,
  type BackendFailure,
  ETCD_WRITE_LIMITS,
  type Item,
  type WatchEvent,
  type Watcher,
} from './types.js';
import { stateUnavailable } from './unavailable.js';

/** No line for this long (heartbeats come every 2 s) means the stream is dead: reconnect. */
const STALL_MS = 6000;
const READS = new Set(['get', 'getRange', 'ping']);

export function createRemoteBackend(pool: AuthPool): Backend {
  let closed = false;
  async function call<T>(op: string, ...args: unknown[]): Promise<T> {
    if (closed) throw new Error('the state backend is closed');
    let res: Response;
    try {
      res = await pool.fetch(`/internal/v1/backend/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ args }),
        idempotent: READS.has(op),
      });
    } catch (error) {
      throw error instanceof AuthUnreachable ? stateUnavailable('auth tier', error) : error;
    }
    const body = (await res.json().catch(() => ({}))) as {
      result?: T;
      backend_error?: BackendFailure;
      key?: string;
      detail?: string;
    };
    if (res.status === 200) return body.result as T;
    if (res.status === 409 && body.backend_error) throw new BackendError(body.backend_error, body.key ?? '');
    if (res.status === 503) throw stateUnavailable('auth tier', new Error(body.detail ?? 'unavailable'));
    if (res.status === 401) {
      throw new GatehouseError(
        'state_unavailable',
        'the auth tier refused this proxy: check cluster_token on both sides',
      );
    }
    throw new Error(`auth tier: ${op} answered ${res.status}: ${body.detail ?? ''}`);
  }

  const active = new Set<() => void>();

  async function openStream(prefixes: string[], signal: AbortSignal) {
    const query = prefixes.map((p) => `prefix=${encodeURIComponent(p)}`).join('&');
    let res: Response;
    try {
      res = await pool.fetch(`/internal/v1/backend/watch?${query}`, { signal, idempotent: true });
    } catch (error) {
      throw error instanceof AuthUnreachable ? stateUnavailable('auth tier', error) : error;
    }
    if (res.status !== 200 || !res.body) {
      void res.body?.cancel();
      throw stateUnavailable('auth tier', new Error(`watch answered ${res.status}`));
    }
    return res.body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Reads NDJSON lines; a line arriving resets the stall timer. */
  async function* lines(reader: ReadableStreamDefaultReader<string>, onStall: () => void) {
    let buffered = '';
    let timer = setTimeout(onStall, STALL_MS);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffered += value;
        let nl = buffered.indexOf('\n');
        while (nl >= 0) {
          clearTimeout(timer);
          timer = setTimeout(onStall, STALL_MS);
          yield JSON.parse(buffered.slice(0, nl)) as {
            initial?: Item[];
            events?: WatchEvent[];
            revision?: number;
          };
          buffered = buffered.slice(nl + 1);
          nl = buffered.indexOf('\n');
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }

  async function watch(
    prefixes: string[],
    listener: (events: WatchEvent[], revision: number) => void,
  ): Promise<Watcher> {
    let stopped = false;
    let known = new Map<string, number>();
    let abort = new AbortController();

    /** One connection: its snapshot (first: handed over; later: diffed), then its events, until it ends. */
    async function connect(first: boolean): Promise<{ initial: Item[]; revision: number; follow: Promise<void> }> {
      abort = new AbortController();
      const reader = await openStream(prefixes, abort.signal);
      const controller = abort;
      const it = lines(reader, () => controller.abort());
      const head = (await it.next()).value;
      if (!head?.initial) throw stateUnavailable('auth tier', new Error('watch stream ended before its snapshot'));
      const revision = head.revision ?? 0;
      if (!first) {
        const now = new Map(head.initial.map((i) => [i.key, i]));
        const events: WatchEvent[] = [];
        for (const key of known.keys()) if (!now.has(key)) events.push({ type: 'delete', key, revision });
        for (const item of now.values()) if (known.get(item.key) !== item.revision) events.push({ type: 'put', item });
        listener(events, revision);
      }
      known = new Map(head.initial.map((i) => [i.key, i.revision]));
      const follow = (async () => {
        for await (const line of it) {
          if (stopped) return;
          if (!line.events) continue;
          for (const e of line.events) {
            if (e.type === 'put') known.set(e.item.key, e.item.revision);
            else known.delete(e.key);
          }
          listener(line.events, line.revision ?? 0);
        }
      })();
      return { initial: head.initial, revision, follow };
    }

    function keepFollowing(follow: Promise<void>): void {
      const again = (delay: number): void => {
        if (stopped) return;
        // Jittered: every proxy losing the same auth instance must not come back in step.
        setTimeout(
          () =>
            void connect(false).then(
              (c) => keepFollowing(c.follow),
              () => again(Math.min(delay * 2, 5000)),
            ),
          delay * (0.5 + Math.random()),
        ).unref();
      };
      follow.then(
        () => again(50),
        () => again(50),
      );
    }

    if (closed) throw new Error('the state backend is closed');
    const first = await connect(true);
    keepFollowing(first.follow);
    const stop = () => {
      stopped = true;
      abort.abort();
      active.delete(stop);
    };
    active.add(stop);
    return { initial: first.initial, revision: first.revision, stop };
  }

  return {
    // The auth tier's store may be etcd: a proxy's writes keep within its bound whatever it is.
    writeLimits: ETCD_WRITE_LIMITS,
    get: (key) => call<Item | null>('get', key).then((i) => i ?? undefined),
    getRange: (prefix, opts) => call('getRange', prefix, opts ?? {}),
    create: (key, value, opts) => call('create', key, value, opts ?? {}),
    put: (key, value, opts) => call('put', key, value, opts ?? {}),
    update: (key, value, opts) => call('update', key, value, opts ?? {}),
    compareAndSwap: (key, rev, value, opts) => call('compareAndSwap', key, rev, value, opts ?? {}),
    delete: (key) => call<null>('delete', key).then(() => undefined),
    deleteRange: (prefix) => call('deleteRange', prefix),
    atomicWrite: (conditions, operations) => call('atomicWrite', conditions, operations),
    watch,
    ping: () => call<null>('ping').then(() => undefined),
    async close() {
      closed = true;
      for (const stop of [...active]) stop();
      pool.close();
    },
  };
}
