// Which tokens belong to whom: kept from the cache's change feed, so revoking every token of a
// principal, an API key or a family touches only those tokens.
import type { StateStore } from '../backend/state.js';
import { prefixes, type TokenRecord } from './records.js';

export type TokenIndex = ReturnType<typeof createTokenIndex>;

export function createTokenIndex(state: StateStore) {
  const byGroup = new Map<string, Set<string>>();
  const groupsOf = new Map<string, string[]>();

  // A delegated token belongs to both principals: ending either ends it.
  const groups = (t: TokenRecord): string[] => {
    const g = [`p:${t.principal.id}`, `f:${t.family}`];
    if (t.api_key_id) g.push(`k:${t.api_key_id}`);
    if (t.credential_id) g.push(`c:${t.credential_id}`);
    if (t.on_behalf_of) g.push(`p:${t.on_behalf_of.id}`);
    return g;
  };
  function remove(key: string): void {
    for (const g of groupsOf.get(key) ?? []) {
      const set = byGroup.get(g);
      set?.delete(key);
      if (set?.size === 0) byGroup.delete(g);
    }
    groupsOf.delete(key);
  }
  function add(key: string, record: TokenRecord): void {
    remove(key);
    const g = groups(record);
    groupsOf.set(key, g);
    for (const name of g) {
      const set = byGroup.get(name) ?? new Set<string>();
      set.add(key);
      byGroup.set(name, set);
    }
  }

  for (const item of state.list<TokenRecord>(prefixes.tokens)) add(item.key, item.value);
  state.cache.onChange((key, item) => {
    if (!key.startsWith(prefixes.tokens)) return;
    if (item) add(key, item.value as TokenRecord);
    else remove(key);
  });

  const members = (group: string): string[] => [...(byGroup.get(group) ?? [])];
  return {
    ofPrincipal: (id: string) => members(`p:${id}`),
    ofFamily: (family: string) => members(`f:${family}`),
    ofApiKey: (id: string) => members(`k:${id}`),
    ofCredential: (id: string) => members(`c:${id}`),
  };
}
