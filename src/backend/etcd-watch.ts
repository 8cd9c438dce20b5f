// Watch for the etcd backend: a snapshot at one revision, then one etcd watch on Gatehouse's whole
// prefix from the next revision, filtered to the watcher's prefixes — so a write anywhere in the
// prefix also tells the watcher that the backend moved on (the cache's waitFor needs it). A process
// has one such watch (its state cache), which fans changes out to everything else in it. The etcd3
// client resumes a watch across reconnects and leader changes by itself; when etcd has compacted past
// where a watch stood, it cancels it, and this resyncs: a fresh snapshot, compared with the keys the
// watcher holds, becomes the puts and deletes it missed — so a consumer never stalls nor loses a change.
import type { Watcher as EtcdWatcher, IKeyValue, Namespace } from 'etcd3';
import { rangeInPages } from './etcd-range.js';
import type { Item, WatchEvent, Watcher } from './types.js';

type Listener = (events: WatchEvent[], revision: number) => void;

export function createEtcdWatch(
  kv: Namespace,
  opts: { namespace: string; decode(kv: IKeyValue): Item; live(item: Item): boolean },
) {
  const active = new Set<() => void>();

  async function snapshot(prefixes: string[]): Promise<{ items: Item[]; revision: number }> {
    const res = await rangeInPages(kv, opts.namespace);
    const items = res.kvs.map(opts.decode).filter((i) => opts.live(i) && prefixes.some((p) => i.key.startsWith(p)));
    return { items, revision: Number(res.revision) };
  }

  return {
    async watch(prefixes: string[], listener: Listener): Promise<Watcher> {
      const first = await snapshot(prefixes);
      /** Keys (and revisions) the listener has been told exist, for resyncs. */
      let known = new Map(first.items.map((i) => [i.key, i.revision]));
      let current: EtcdWatcher | undefined;
      let stopped = false;
      const mine = (key: string) => prefixes.some((p) => key.startsWith(p));

      function onData(events: Array<{ type: string; kv: IKeyValue }>, at: number): void {
        const out: WatchEvent[] = [];
        for (const e of events) {
          const key = opts.decode(e.kv).key;
          if (!mine(key)) continue;
          if (e.type === 'Delete') {
            known.delete(key);
            out.push({ type: 'delete', key, revision: Number(e.kv.mod_revision) });
          } else {
            const item = opts.decode(e.kv);
            known.set(key, item.revision);
            out.push({ type: 'put', item });
          }
        }
        listener(out, at);
      }

      async function attach(from: number): Promise<void> {
        const w = await kv.watch().prefix('').startRevision(String(from)).create();
        if (stopped) return void w.cancel().catch(() => {});
        current = w;
        w.on('data', (res) => onData(res.events, Number(res.header.revision)));
        w.on('error', () => {
          if (current !== w || stopped) return;
          current = undefined;
          void w.cancel().catch(() => {});
          retry(100);
        });
      }

      /** etcd compacted past the watch (or cancelled it): tell the listener what changed, then go on. */
      async function resync(): Promise<void> {
        const snap = await snapshot(prefixes);
        const now = new Map(snap.items.map((i) => [i.key, i]));
        const events: WatchEvent[] = [];
        for (const key of known.keys())
          if (!now.has(key)) events.push({ type: 'delete', key, revision: snap.revision });
        for (const item of now.values()) if (known.get(item.key) !== item.revision) events.push({ type: 'put', item });
        known = new Map([...now.values()].map((i) => [i.key, i.revision]));
        listener(events, snap.revision);
        await attach(snap.revision + 1);
      }

      function retry(delay: number): void {
        if (stopped) return;
        // Jittered backoff: many instances losing etcd at once must not return in step.
        const wait = delay * (0.5 + Math.random());
        setTimeout(() => void resync().catch(() => retry(Math.min(delay * 2, 5000))), wait).unref();
      }

      await attach(first.revision + 1);
      const stop = () => {
        stopped = true;
        active.delete(stop);
        void current?.cancel().catch(() => {});
      };
      active.add(stop);
      return { initial: first.items, revision: first.revision, stop };
    },
    stop(): void {
      for (const stop of [...active]) stop();
    },
  };
}
