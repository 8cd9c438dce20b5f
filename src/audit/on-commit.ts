// An audit event appended as soon as the state write it records has committed, while the state store
// still syncs that write: the two durable waits overlap instead of following each other (a login
// waited for the state store's WAL sync, then for the audit store's commit). Nothing is acknowledged
// before both are durable. The event is appended only once the write's outcome is decided (its
// conditions held), so it never records a change that was refused; if the sync then fails (the write's
// durability is unknown and the caller gets 503), the event stays — as a crash after the audit commit
// and before the state sync would leave it.
import type { AuditLog, EventInput } from './audit-log.js';

export interface EventOnCommit {
  /** For the state write's options: appends the events. */
  onCommitted: () => void;
  /** Once the write has resolved: waits until the events are durable (or fails audit_unavailable). */
  done(): Promise<void>;
}

export function eventOnCommit(audit: AuditLog, ...events: EventInput[]): EventOnCommit {
  let appended: Promise<void> | undefined;
  return {
    onCommitted() {
      appended = audit.record(...events);
      // Awaited by done(); a write that fails after committing never calls it.
      appended.catch(() => undefined);
    },
    done: () => appended ?? audit.record(...events),
  };
}
