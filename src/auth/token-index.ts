// Which tokens belong to whom: kept from the cache's change feed, so revoking every token of a
// principal, an API key or a family touches only those tokens.
//
// Sized for many live tokens (each login adds two, kept until they expire): a group with one token —
// every login's own family — holds the key itself instead of a Set, and a token's groups are worked
// out again from its cached record when it goes instead of being kept as strings. Kept as strings
// and one-element Sets, they were ~570 of the ~2,500 bytes a login kept (heap snapshot, 50k logins).
import type { StateStore } from '../backend/state.js';
import { prefixes, type TokenRecord } from './records.js';

export type TokenIndex = ReturnType<typeof createTokenIndex>;

export function createTokenIndex(state: StateStore) {
  const byGroup = new Map<string, string | Set<string>>();
  /** Each indexed token's record as it was indexed: its groups, worked out again on removal. */
  const indexed = new Map<string, TokenRecord>();

  // A delegated token belongs to both principals: ending either ends it.
  const groups = (t: TokenRecord): string[] => {
    const g = [`p:${t.principal.id}`, `f:${t.family}`];
    if (t.api_key_id) g.push(`k:${t.api_key_id}`);
    if (t.credential_id) g.push(`c:${t.credential_id}`);
    if (t.on_behalf_of) g.push(`p:${t.on_behalf_of.id}`);
    return g;
  };
  function remove(key: string): void {
    const record = indexed.get(key);
    if (record === undefined) return;
    indexed.delete(key);
    for (const g of groups(record)) {
      const members = byGroup.get(g);
      if (members === key) byGroup.delete(g);
      else if (members instanceof Set) {
        members.delete(key);
        if (members.size === 0) byGroup.delete(g);
      }
    }
  }
  function add(key: string, record: TokenRecord): void {
    remove(key);
    indexed.set(key, record);
    for (const g of groups(record)) {
      const members = byGroup.get(g);
      if (members === undefined) byGroup.set(g, key);
      else if (members instanceof Set) members.add(key);
      else if (members !== key) byGroup.set(g, new Set([members, key]));
    }
  }

  for (const item of state.list<TokenRecord>(prefixes.tokens)) add(item.key, item.value);
  state.cache.onChange((key, item) => {
    if (!key.startsWith(prefixes.tokens)) return;
    if (item) add(key, item.value as TokenRecord);
    else remove(key);
  });

  const members = (group: string): string[] => {
    const m = byGroup.get(group);
    return m === undefined ? [] : typeof m === 'string' ? [m] : [...m];
  };
  return {
    ofPrincipal: (id: string) => members(`p:${id}`),
    ofFamily: (family: string) => members(`f:${family}`),
    ofApiKey: (id: string) => members(`k:${id}`),
    ofCredential: (id: string) => members(`c:${id}`),
  };
}
