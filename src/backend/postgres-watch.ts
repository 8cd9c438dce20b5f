// Watch for the PostgreSQL backend: a snapshot at one revision, then the change log read forward by
// revision. One LISTEN connection per Backend wakes the reader when any instance commits; the reader
// then asks `revision > last` of state_changes, so a notification is only a hint: one that is lost
// (the listener was down) costs nothing, since the next read — after reconnecting and LISTENing again,
// or on the periodic poll — picks up where the watcher stood. Revisions have no gaps (the counter is
// serialized and every revision has a change row), so a hole at the start of what is read means the
// log was pruned past a watcher: it resyncs as the etcd backend does after a compaction — a fresh
// snapshot, compared with the keys it was told about, becomes the puts and deletes it missed.
import pg from 'pg';
import type { Item, WatchEvent, Watcher } from './types.js';

type Listener = (events: WatchEvent[], revision: number) => void;

export interface Snapshot {
  items: Item[];
  revision: number;
}

export interface FeedOptions {
  pool: pg.Pool;
  connectionString: string;
  /** Quoted schema name. */
  schema: string;
  channel: string;
  snapshot(prefixes: string[]): Promise<Snapshot>;
  toItem(row: { key: string; value: string; revision: string; expires_at: string | null }): Item;
  /** A read of the log even without a notification: the safety net for a silently dead listener. */
  pollIntervalMs: number;
  /** First wait before reconnecting the listener; doubles up to 5 s. */
  reconnectDelayMs: number;
  onError(error: unknown): void;
}

interface Entry {
  prefixes: string[];
  listener: Listener;
  /** The revision this watcher has been brought to. */
  last: number;
  /** Keys (and revisions) the watcher has been told exist, for resyncs. */
  known: Map<string, number>;
}

interface ChangeRow {
  revision: string;
  key: string;
  value: string | null;
  expires_at: string | null;
}

const PAGE = 2000;

export function createPostgresFeed(opts: FeedOptions) {
  const entries = new Set<Entry>();
  let reading = false;
  let again = false;
  let stopped = false;
  let client: pg.Client | undefined;
  let connecting = false;
  let delay = opts.reconnectDelayMs;
  const poller = setInterval(() => poke(), opts.pollIntervalMs);
  poller.unref();

  const mine = (e: Entry, key: string) => e.prefixes.some((p) => key.startsWith(p));

  function deliver(e: Entry, events: WatchEvent[], revision: number): void {
    for (const ev of events) {
      if (ev.type === 'put') e.known.set(ev.item.key, ev.item.revision);
      else e.known.delete(ev.key);
    }
    e.last = revision;
    try {
      e.listener(events, revision);
    } catch (error) {
      opts.onError(error); // one consumer's bug must not stop delivery to the others
    }
  }

  async function resync(e: Entry): Promise<void> {
    const snap = await opts.snapshot(e.prefixes);
    if (!entries.has(e)) return;
    const now = new Map(snap.items.map((i) => [i.key, i]));
    const events: WatchEvent[] = [];
    for (const key of e.known.keys()) if (!now.has(key)) events.push({ type: 'delete', key, revision: snap.revision });
    for (const item of now.values()) if (e.known.get(item.key) !== item.revision) events.push({ type: 'put', item });
    deliver(e, events, snap.revision);
  }

  /** One read of the log from the least advanced watcher; true if there may be more to read. */
  async function readOnce(): Promise<boolean> {
    const active = [...entries];
    if (active.length === 0) return false;
    const from = Math.min(...active.map((e) => e.last));
    const { rows } = await opts.pool.query<ChangeRow>(
      `SELECT revision, key, value, expires_at FROM ${opts.schema}.state_changes WHERE revision > $1 ORDER BY revision LIMIT $2`,
      [from, PAGE],
    );
    const first = rows[0];
    if (!first) return false;
    const firstRevision = Number(first.revision);
    if (firstRevision > from + 1) {
      // Pruned past these watchers: they start again from a snapshot; the others read on.
      for (const e of active) if (e.last < firstRevision - 1) await resync(e);
      return true;
    }
    const events: WatchEvent[] = rows.map((r) =>
      r.value === null
        ? { type: 'delete', key: r.key, revision: Number(r.revision) }
        : { type: 'put', item: opts.toItem({ ...r, value: r.value }) },
    );
    const head = Number((rows[rows.length - 1] as ChangeRow).revision);
    for (const e of active) {
      if (head <= e.last || !entries.has(e)) continue;
      const newer = events.filter((ev) => (ev.type === 'put' ? ev.item.revision : ev.revision) > e.last);
      // Every watcher hears the new revision, with or without events of its own (the cache's waitFor).
      deliver(
        e,
        newer.filter((ev) => mine(e, ev.type === 'put' ? ev.item.key : ev.key)),
        head,
      );
    }
    return rows.length === PAGE;
  }

  /** Reads the log now, or once more after the read in progress (reads never overlap). */
  function poke(): void {
    if (stopped || entries.size === 0) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    void (async () => {
      try {
        do {
          again = false;
          if (await readOnce()) again = true;
        } while (again && !stopped);
      } catch (error) {
        opts.onError(error); // the next notification or the periodic poll tries again
      } finally {
        reading = false;
      }
    })();
  }

  async function listen(): Promise<void> {
    if (client || connecting || stopped) return;
    connecting = true;
    const c = new pg.Client({
      connectionString: opts.connectionString,
      keepAlive: true,
      application_name: 'gatehouse-state-listen',
      connectionTimeoutMillis: 5_000,
    });
    let gone = false;
    const lost = (error?: unknown) => {
      if (error) opts.onError(error);
      if (gone) return; // 'error' and 'end' both report one loss
      gone = true;
      connecting = false;
      if (client === c) client = undefined;
      void c.end().catch(() => {});
      if (stopped) return;
      // Jittered, doubling: many instances losing the database at once must not return in step.
      const wait = delay * (0.5 + Math.random());
      delay = Math.min(delay * 2, 5_000);
      setTimeout(() => void listen(), wait).unref();
    };
    c.on('notification', () => poke());
    c.on('error', (error) => lost(error));
    c.on('end', () => lost());
    try {
      await c.connect();
      await c.query(`LISTEN ${opts.channel}`);
      if (stopped) {
        await c.end().catch(() => {});
        return;
      }
      client = c;
      delay = opts.reconnectDelayMs;
      // Listening again: catch up on whatever committed while nobody listened.
      poke();
      connecting = false;
    } catch (error) {
      lost(error);
    }
  }

  return {
    async watch(prefixes: string[], listener: Listener): Promise<Watcher> {
      const snap = await opts.snapshot(prefixes);
      const entry: Entry = {
        prefixes,
        listener,
        last: snap.revision,
        known: new Map(snap.items.map((i) => [i.key, i.revision])),
      };
      entries.add(entry);
      void listen();
      poke();
      return { initial: snap.items, revision: snap.revision, stop: () => entries.delete(entry) };
    },
    /** A local write committed: read now rather than wait for the notification's round trip. */
    poke,
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(poller);
      entries.clear();
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
