// Writing audit events: fills in id, time and code from the catalogue and waits until the store
// has them durably. A store failure becomes 503: the action is not acknowledged without its record.

import type { Clock } from '../lib/clock.js';
import { isoTime } from '../lib/clock.js';
import { GatehouseError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { EVENT_TYPES, type EventType } from './catalogue.js';
import type { AuditActor, AuditEvent, AuditStore, AuditTarget } from './types.js';

export interface EventInput {
  type: EventType;
  actor: AuditActor;
  target?: AuditTarget;
  success?: boolean;
  session_id?: string;
  remote_addr?: string;
  request_id?: string;
  data?: Record<string, unknown>;
}

export type AuditLog = ReturnType<typeof createAuditLog>;

export function createAuditLog(deps: { store: AuditStore; clock: Clock; onError?: (e: unknown) => void }) {
  function build(input: EventInput): AuditEvent {
    const now = deps.clock();
    const event: AuditEvent = {
      id: newId('event', now),
      type: input.type,
      code: EVENT_TYPES[input.type].code,
      time: isoTime(now),
      actor: input.actor,
      success: input.success ?? true,
    };
    if (input.target) event.target = input.target;
    if (input.session_id) event.session_id = input.session_id;
    if (input.remote_addr) event.remote_addr = input.remote_addr;
    if (input.request_id) event.request_id = input.request_id;
    if (input.data) event.data = input.data;
    return event;
  }

  return {
    async record(...inputs: EventInput[]): Promise<void> {
      try {
        await deps.store.append(inputs.map(build));
      } catch (error) {
        deps.onError?.(error);
        throw new GatehouseError(
          'audit_unavailable',
          'the audit store is unavailable; this request is not confirmed, check its outcome before retrying',
          {
            cause: error,
          },
        );
      }
    },
    query: deps.store.query,
  };
}
