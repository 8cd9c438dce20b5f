// What a domain service changes and records with, named once: each service's deps are these and
// the few collaborators of its own.
import type { StateStore } from '../backend/state.js';
import type { Clock } from '../lib/clock.js';
import type { AuditLog } from './audit-log.js';

/** The state a service changes, the audit trail it records each change in, and the time. */
export interface ServiceDeps {
  state: StateStore;
  audit: AuditLog;
  clock: Clock;
}
