// Which instance holds which live session, and a way to ask that instance to end one and hear back
// that it did. Ending a session is first a write to the state store (the record turns `terminated`
// and its holder ends it through the watch: durable, works without Redis); this bus adds the
// acknowledgement, so an API answer can say which sessions were *confirmed* ended, and it reaches
// the holder directly rather than after the watch.
//
// With Redis: `gatehouse:session:<id>` names the holder (refreshed while the session lives, so a
// crashed instance's entries expire) and then that the session ended; each instance listens on its
// own sharded channel for "end" requests and answers "ack" on the asker's channel once the session
// is over. Without Redis (one process, or Redis down), only sessions held by this process can be
// confirmed.
import { randomBytes } from 'node:crypto';
import type { RedisLink } from './redis-link.js';

export interface SessionBus {
  readonly instanceId: string;
  /** This process holds the session now. */
  held(id: string): void;
  /** The session held here has ended (its end was written): whoever waits for it hears so. */
  released(id: string): void;
  /** How this process ends one of its live sessions; false when it holds no such session. */
  setEnder(ender: (id: string, reason: string) => boolean): void;
  /** Asks each session's holder to end it; answers the ids confirmed ended within timeoutMs. */
  confirmEnded(ids: string[], reason: string, timeoutMs?: number): Promise<string[]>;
  close(): Promise<void>;
}

export const CONFIRM_TIMEOUT_MS = 3000;
const LIVE_TTL_MS = 30_000;
const REFRESH_MS = 10_000;
const ENDED_TTL_MS = 120_000;
const RECENT_MAX = 10_000;

type Message =
  | { t: 'end'; id: string; reason: string; from: string; n: string }
  | { t: 'ack'; id: string; n: string; ended: boolean };

const channelOf = (instanceId: string) => `gatehouse:instance:{${instanceId}}`;
const registryKey = (id: string) => `gatehouse:session:${id}`;

function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(fallback), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The bus of one process: the in-process part, plus the Redis registry and channels when given a link. */
export function createSessionBus(
  link?: RedisLink,
  onError: (error: unknown) => void = () => {},
  /** A joined proxy's identity: this process is `<identity>-<8 hex>`, an instance of it (cluster-peers.ts). */
  identity?: string,
): SessionBus {
  const instanceId =
    identity === undefined ? `inst_${randomBytes(8).toString('hex')}` : `${identity}-${randomBytes(4).toString('hex')}`;
  const live = new Set<string>();
  /** Sessions that ended here lately: asked about after the watch beat the request, they count as ended. */
  const endedHere = new Set<string>();
  const waiters = new Map<string, Array<() => void>>();
  const pendingAcks = new Map<string, (ended: boolean) => void>();
  let ender: (id: string, reason: string) => boolean = () => false;

  /** Ends a session held here and waits for its end (true), or says it is not running here (true). */
  async function endHere(id: string, reason: string, timeoutMs: number): Promise<boolean> {
    if (!live.has(id)) return true;
    const over = new Promise<boolean>((resolve) => {
      const list = waiters.get(id) ?? [];
      list.push(() => resolve(true));
      waiters.set(id, list);
    });
    if (!ender(id, reason)) return true;
    return withTimeout(over, timeoutMs, false);
  }

  /** Writes the registry entry, retrying a few times: a missing entry means an unconfirmable session. */
  async function register(id: string, state: 'live' | 'ended'): Promise<void> {
    if (!link) return;
    const value = JSON.stringify({ i: instanceId, s: state });
    for (let attempt = 0; attempt < 4; attempt++) {
      if (state === 'live' && !live.has(id)) return; // ended meanwhile: the 'ended' write wins
      try {
        await link.run((r) => r.set(registryKey(id), value, { PX: state === 'live' ? LIVE_TTL_MS : ENDED_TTL_MS }));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 250 * (attempt + 1)).unref());
      }
    }
    // Still lost: the periodic refresh (live sessions) restores it once Redis answers.
  }

  const publish = (to: string, message: Message) =>
    (link as RedisLink).run((r) => r.sPublish(channelOf(to), JSON.stringify(message)));

  if (link) {
    void link.subscribe(channelOf(instanceId), (raw) => {
      let message: Message;
      try {
        message = JSON.parse(raw) as Message;
      } catch {
        return;
      }
      if (message.t === 'ack') {
        pendingAcks.get(message.n)?.(message.ended);
        return;
      }
      endHere(message.id, message.reason, CONFIRM_TIMEOUT_MS)
        .then((ended) => publish(message.from, { t: 'ack', id: message.id, n: message.n, ended }))
        .catch(onError);
    });
  }
  // While Redis was away the entries may have expired (or Redis restarted empty): keep them fresh.
  const refresh = link
    ? setInterval(() => {
        for (const id of live) void register(id, 'live');
      }, REFRESH_MS)
    : undefined;
  refresh?.unref();
  link?.onChange((up) => {
    if (up) for (const id of live) void register(id, 'live');
  });

  /** Asks the instance the registry names; true only on its acknowledgement. */
  async function confirmRemote(id: string, reason: string, timeoutMs: number): Promise<boolean> {
    if (!link) return false;
    const entry = await link.run((r) => r.get(registryKey(id))).catch(() => null);
    if (!entry) return false;
    const holder = JSON.parse(entry) as { i: string; s: 'live' | 'ended' };
    if (holder.s === 'ended') return true;
    const n = randomBytes(8).toString('hex');
    const acked = new Promise<boolean>((resolve) => pendingAcks.set(n, resolve));
    try {
      const receivers = await publish(holder.i, { t: 'end', id, reason, from: instanceId, n });
      if (receivers === 0) return false; // nobody listens there: the holder is gone
      return await withTimeout(acked, timeoutMs, false);
    } catch {
      return false;
    } finally {
      pendingAcks.delete(n);
    }
  }

  return {
    instanceId,
    held(id) {
      live.add(id);
      void register(id, 'live');
    },
    released(id) {
      if (!live.delete(id)) return;
      if (endedHere.size >= RECENT_MAX) endedHere.clear();
      endedHere.add(id);
      void register(id, 'ended');
      const list = waiters.get(id);
      waiters.delete(id);
      for (const w of list ?? []) w();
    },
    setEnder(next) {
      ender = next;
    },
    async confirmEnded(ids, reason, timeoutMs = CONFIRM_TIMEOUT_MS) {
      const results = await Promise.all(
        ids.map(async (id) => {
          if (live.has(id)) return endHere(id, reason, timeoutMs);
          if (endedHere.has(id)) return true;
          return confirmRemote(id, reason, timeoutMs);
        }),
      );
      return ids.filter((_, i) => results[i]);
    },
    async close() {
      if (refresh) clearInterval(refresh);
      for (const resolve of pendingAcks.values()) resolve(false);
    },
  };
}
