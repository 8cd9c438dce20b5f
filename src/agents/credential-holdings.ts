// How many credential records each agent holds, and which of them can go. Every issuance (the
// credentials endpoint, every token exchange) writes a record that is kept until a day past its
// expiry, for listings and so a revoked JWT stays revoked. At the default issuance limit (60 a
// minute) and lifetime (up to 24 h) one agent in a loop would hold ~170,000 records (~170 MB on every
// instance). So an agent holds at most `agents.max_credentials` (credential-issuer.ts): an issuance
// over it first removes the agent's oldest records that no longer let anyone in — expired or revoked,
// whose tokens every door already refuses (principal-pipeline.ts) — and is refused if there are none.
import type { CredentialRecord } from '../auth/records.js';
import { keys, prefixes } from '../auth/records.js';
import type { TokenIndex } from '../auth/token-index.js';
import type { StateStore } from '../backend/state.js';
import type { Operation } from '../backend/types.js';

/** Records one issuance removes at most: its write stays within one etcd transaction. */
export const MAX_REMOVED_PER_ISSUANCE = 4;
const TOKENS_REMOVED_WITH_A_RECORD = 20;

interface Held {
  id: string;
  /** Epoch ms from which it lets nobody in: its expiry, or 0 once revoked. */
  endsAt: number;
}

export type CredentialHoldings = ReturnType<typeof createCredentialHoldings>;

export function createCredentialHoldings(
  state: Pick<StateStore, 'list' | 'get' | 'cache'>,
  tokenIndex: Pick<TokenIndex, 'ofCredential'>,
) {
  // agent id → credential key → what ends it; a Map keeps arrival order, which is issue order.
  const byAgent = new Map<string, Map<string, Held>>();

  const agentOf = (key: string) =>
    key.slice(prefixes.credentials.length, key.indexOf('/', prefixes.credentials.length));
  function put(key: string, record: CredentialRecord): void {
    const agentId = agentOf(key);
    let held = byAgent.get(agentId);
    if (!held) {
      held = new Map();
      byAgent.set(agentId, held);
    }
    const endsAt = record.revoked_at !== undefined ? 0 : Date.parse(record.expires_at);
    held.set(key, { id: record.id, endsAt });
  }
  function remove(key: string): void {
    const agentId = agentOf(key);
    const held = byAgent.get(agentId);
    if (!held) return;
    held.delete(key);
    if (held.size === 0) byAgent.delete(agentId);
  }

  for (const item of state.list<CredentialRecord>(prefixes.credentials)) put(item.key, item.value);
  state.cache.onChange((key, item) => {
    if (!key.startsWith(prefixes.credentials)) return;
    if (item) put(key, item.value as CredentialRecord);
    else remove(key);
  });

  return {
    held: (agentId: string): number => byAgent.get(agentId)?.size ?? 0,

    /**
     * The writes that remove up to `count` of the agent's records that let nobody in any more
     * (expired or revoked), oldest first: the record, its last-use mark, its API key and tokens.
     */
    removable(agentId: string, now: number, count: number): { removed: number; ops: Operation[] } {
      const ops: Operation[] = [];
      let removed = 0;
      for (const [key, held] of byAgent.get(agentId) ?? []) {
        if (removed >= count) break;
        if (held.endsAt > now) continue;
        removed++;
        ops.push({ type: 'delete', key }, { type: 'delete', key: keys.usage('credential', held.id) });
        const record = state.get<CredentialRecord>(key)?.value;
        if (record?.api_key_id) {
          const apiKey = state.get<{ hash: string }>(keys.apiKey(record.api_key_id));
          if (apiKey)
            ops.push({ type: 'delete', key: apiKey.key }, { type: 'delete', key: keys.apiKeyHash(apiKey.value.hash) });
        }
        // A token credential has one token; an API key's logins may have thousands, which their own
        // expiry (and the login bound) already limit: those are left to the expiry sweep.
        const tokens = tokenIndex.ofCredential(held.id);
        if (tokens.length <= TOKENS_REMOVED_WITH_A_RECORD)
          for (const token of tokens) ops.push({ type: 'delete', key: token });
      }
      return { removed, ops };
    },
  };
}
