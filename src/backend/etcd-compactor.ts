// etcd keeps every revision of every key until the history is compacted. Each login, refresh and
// revocation is a revision (~1.1 KB of history per login, measured), so an uncompacted etcd grows
// until it reaches its quota (2 GiB by default; about 1.9 million logins) and then refuses every
// write with "database space exceeded" until an operator compacts and defragments it. As the
// Kubernetes API server does, each auth instance compacts: every interval, to the revision it saw
// one interval earlier, so watchers that reconnect within an interval resume where they were (and
// one further behind resyncs from a snapshot, etcd-watch.ts). Several instances compacting is
// harmless: a revision already compacted is refused and ignored. Compaction frees pages for reuse;
// shrinking the file afterwards is `etcdctl defrag`, an operator's choice (it blocks the member).

export interface EtcdCompactorDeps {
  /** The store's current revision. */
  currentRevision(): Promise<string>;
  /** Compacts history below `revision`. */
  compact(revision: string): Promise<unknown>;
  intervalMs: number;
}

/** etcd's answer when the revision is at or below one already compacted (another instance's). */
const ALREADY_COMPACTED = /required revision has been compacted/;

export function startEtcdCompactor(deps: EtcdCompactorDeps) {
  let previous: string | undefined;
  let running: Promise<void> | undefined;

  async function tick(): Promise<void> {
    const now = await deps.currentRevision();
    const target = previous;
    previous = now;
    if (target === undefined || BigInt(target) <= 1n) return;
    try {
      await deps.compact(target);
    } catch (error) {
      if (!ALREADY_COMPACTED.test(String((error as Error)?.message))) throw error;
    }
  }

  // An unreachable etcd is retried at the next interval; the store's own calls report unavailability.
  const timer = setInterval(() => {
    running ??= tick()
      .catch(() => {})
      .finally(() => {
        running = undefined;
      });
  }, deps.intervalMs);
  timer.unref();

  return {
    tick,
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
