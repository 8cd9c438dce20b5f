// Which agent created which. An agent created by an agent names it (`created_by`), and what an agent
// starts ends with it: every door refuses an agent while an agent above it is not active (so the
// creator's status write alone stops the whole line below it, at once), and the kill switch marks
// that line suspended or revoked too (agents/kill-switch.ts), so that reactivating the creator
// does not wake it: each is reactivated on its own.
import type { CachedItem } from '../backend/cache.js';
import type { StateStore } from '../backend/state.js';
import { type AgentRecord, type AgentStatus, keys, prefixes } from './records.js';

/**
 * How deep agents may nest (an agent's creator, its creator, …). Every door walks the line up on each
 * request it resolves anew, so it is kept short; no legitimate pipeline of agents nests deeper.
 */
export const MAX_LINEAGE_DEPTH = 8;

/** The agent that created this one, if an agent did. */
export const creatorAgentOf = (a: Pick<AgentRecord, 'created_by'>): string | undefined =>
  a.created_by?.kind === 'agent' ? a.created_by.id : undefined;

/** An agent above this one that stops it: not active, or gone (deleted). */
export interface StoppedAncestor {
  id: string;
  status: Exclude<AgentStatus, 'active'> | 'deleted';
}

/** The nearest agent above this one that is not active (or no longer exists), if any. */
export function stoppedAncestor(state: Pick<StateStore, 'get'>, agent: AgentRecord): StoppedAncestor | undefined {
  let current = agent;
  for (let depth = 0; depth <= MAX_LINEAGE_DEPTH; depth++) {
    const parentId = creatorAgentOf(current);
    if (parentId === undefined) return undefined;
    const parent = state.get<AgentRecord>(keys.agent(parentId))?.value;
    if (!parent) return { id: parentId, status: 'deleted' };
    if (parent.status !== 'active') return { id: parent.id, status: parent.status };
    current = parent;
  }
  // Deeper than creation allows (records written by hand): refused rather than walked on.
  return { id: current.id, status: 'revoked' };
}

/** How many agents are above this one. */
export function lineageDepth(state: Pick<StateStore, 'get'>, agent: AgentRecord): number {
  let depth = 0;
  let current: AgentRecord | undefined = agent;
  for (; current && depth <= MAX_LINEAGE_DEPTH; depth++) {
    const parentId = creatorAgentOf(current);
    if (parentId === undefined) return depth;
    current = state.get<AgentRecord>(keys.agent(parentId))?.value;
  }
  return depth;
}

/**
 * Every agent below this one (created by it, by those, …), creators before what they created. An
 * agent in `skip` is left out with its own line (a caller that stops it separately).
 */
export function descendantsOf(
  state: Pick<StateStore, 'list'>,
  agentId: string,
  skip: ReadonlySet<string> = new Set(),
): Array<CachedItem<AgentRecord>> {
  const children = new Map<string, Array<CachedItem<AgentRecord>>>();
  for (const item of state.list<AgentRecord>(prefixes.agents)) {
    const parent = creatorAgentOf(item.value);
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(item);
    children.set(parent, list);
  }
  const found: Array<CachedItem<AgentRecord>> = [];
  const seen = new Set([agentId]);
  for (let queue = [agentId], i = 0; i < queue.length; i++) {
    for (const child of children.get(queue[i] as string) ?? []) {
      // A line is a tree (a creator exists before what it creates); `seen` guards hand-written cycles.
      if (seen.has(child.value.id) || skip.has(child.value.id)) continue;
      seen.add(child.value.id);
      found.push(child);
      queue.push(child.value.id);
    }
  }
  return found;
}
