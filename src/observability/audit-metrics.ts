// An AuditStore decorator that times appends and counts the ones not yet durable. Every other
// member passes through untouched, so the decorator keeps up with additions to the interface.
import { Gauge } from 'prom-client';
import type { AuditEvent, AuditStore, AuditStoreStatus } from '../audit/types.js';
import type { Metrics } from './metrics.js';

export function instrumentAuditStore<T extends AuditStore>(
  store: T,
  metrics: Pick<Metrics, 'auditWriteDuration' | 'auditQueueDepth'>,
): T {
  async function append(events: AuditEvent[]): Promise<void> {
    const stop = metrics.auditWriteDuration.startTimer();
    metrics.auditQueueDepth.inc();
    try {
      await store.append(events);
    } finally {
      metrics.auditQueueDepth.dec();
      stop();
    }
  }
  return new Proxy(store, {
    get(target, property) {
      if (property === 'append') return append;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Gauges read from a replicated audit store at scrape time (one status() call per scrape): which
 * host takes writes, the read replica's lag, seconds since the last commit, synchronous standbys in sync.
 */
export function watchAuditStatus(store: Pick<AuditStore, 'status'>, metrics: Pick<Metrics, 'prefix' | 'registry'>) {
  const status = store.status?.bind(store);
  if (!status) return;
  let last: { at: number; value: Promise<AuditStoreStatus> } | undefined;
  const read = () => {
    if (!last || Date.now() - last.at > 500) last = { at: Date.now(), value: status().catch(() => ({})) };
    return last.value;
  };
  const registers = [metrics.registry];
  const p = metrics.prefix;
  new Gauge({
    name: `${p}_audit_primary`,
    help: '1 for the audit database host (host:port) that takes writes; no series while there is none.',
    labelNames: ['host'] as const,
    registers,
    async collect() {
      this.reset();
      const s = await read();
      if (s.primary) this.set({ host: s.primary }, 1);
    },
  });
  const gauge = (name: string, help: string, pick: (s: AuditStoreStatus) => number | undefined) =>
    new Gauge({
      name: `${p}_${name}`,
      help,
      registers,
      async collect() {
        this.reset();
        const v = pick(await read());
        if (v !== undefined) this.set(v);
      },
    });
  gauge('audit_replica_lag_seconds', 'Replay lag of the audit read replica.', (s) => s.replicaLagSeconds);
  gauge(
    'audit_seconds_since_last_commit',
    'Seconds since this instance last committed audit events.',
    (s) => s.sinceLastCommitSeconds,
  );
  gauge(
    'audit_synchronous_standbys_in_sync',
    'Standbys in sync with the audit primary, when it requires synchronous ones (0: commits wait).',
    (s) => s.synchronousStandbys?.inSync,
  );
}
