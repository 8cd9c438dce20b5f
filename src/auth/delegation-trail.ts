// Every event recorded for an agent that acts for a user names both: the agent as the actor, the
// user in data.on_behalf_of. Wraps the audit log once, so no service has to remember it.
import type { AuditLog, EventInput } from '../audit/audit-log.js';
import { type Actor, ON_BEHALF_OF } from './principal.js';

function withOnBehalfOf(input: EventInput): EventInput {
  const subject = (input.actor as Actor)[ON_BEHALF_OF];
  if (!subject) return input;
  return { ...input, data: { ...(input.data ?? {}), on_behalf_of: { ...subject } } };
}

export function recordDelegationTrail(audit: AuditLog): AuditLog {
  return { ...audit, record: (...inputs: EventInput[]) => audit.record(...inputs.map(withOnBehalfOf)) };
}
