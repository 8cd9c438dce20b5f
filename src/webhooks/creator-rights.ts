// A webhook is a feed of audit events, so it may deliver only while whoever created it could still
// read them (the check at creation is not enough: rights are taken away, users suspended or deleted,
// agents revoked). The dispatcher asks this before every attempt, against the rights held now.
import type { PolicyResolver } from '../auth/policy-resolver.js';
import { type AgentRecord, keys, type UserRecord } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import type { Policy } from '../rbac/policy.js';
import type { WebhookRecord } from './records.js';

const readsEvents = (p: Policy) => p.can('events', 'list').allowed && p.can('events', 'read').allowed;

/** Why the webhook's creator may no longer be fed audit events, or undefined while they may. */
export function creatorLostRights(
  state: StateStore,
  policies: Pick<PolicyResolver, 'forUser' | 'forAgent'>,
  hook: Pick<WebhookRecord, 'created_by'>,
): string | undefined {
  const c = hook.created_by;
  // Webhooks created before creators were recorded have nobody to re-check (docs/threat-model.md).
  if (!c) return undefined;
  const user = (id: string) => state.get<UserRecord>(keys.user(id))?.value;
  if (c.on_behalf_of !== undefined) {
    const delegator = user(c.on_behalf_of);
    if (delegator?.status !== 'active' || !readsEvents(policies.forUser(delegator))) {
      return 'the user its creator acted for may no longer read audit events';
    }
  }
  if (c.kind === 'user') {
    const u = user(c.id);
    if (!u) return `its creator ${c.name} was deleted`;
    if (u.status !== 'active') return `its creator ${c.name} is suspended`;
    return readsEvents(policies.forUser(u)) ? undefined : `its creator ${c.name} may no longer read audit events`;
  }
  const a = state.get<AgentRecord>(keys.agent(c.id))?.value;
  if (!a) return `its creator, agent ${c.name}, was deleted`;
  if (a.status !== 'active') return `its creator, agent ${c.name}, is ${a.status}`;
  // The roles its token carried, still within the agent's and its owner's (forAgent intersects).
  const roles = (c.roles ?? a.roles).filter((r) => a.roles.includes(r));
  return readsEvents(policies.forAgent(a, roles))
    ? undefined
    : `its creator, agent ${c.name}, may no longer read audit events`;
}
