// An AuditStore decorator that times appends and counts the ones not yet durable. Every other
// member passes through untouched, so the decorator keeps up with additions to the interface.
import type { AuditEvent, AuditStore } from '../audit/types.js';
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
