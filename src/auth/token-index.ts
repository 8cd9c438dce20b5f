// Which tokens belong to whom: kept from the cache's change feed, so revoking every token of a
// principal, an API key or a family touches only those tokens.
//
// Sized for many live tokens (each login adds two, kept until they expire): a group with one token —
// every login's own family — holds the key itself instead of a Set, and a token's groups are worked
// out again from its cached record when it goes instead of being kept as strings. Kept as strings
// and one-element Sets, they were ~570 of the ~2,500 bytes a login kept (heap snapshot, 50k logins).
//
// It also keeps each API key's logins in the order they last got a token, so the token service can
// end a key's least recently used logins in O(1) when the key holds too many (login-bounds.ts).
import type { StateStore } from '../backend/state.js';
import { prefixes, type TokenRecord } from './records.js';

export type TokenIndex = ReturnType<typeof createTokenIndex>;

export function createTokenIndex(state: StateStore) {
  const byGroup = new Map<string, string | Set<string>>();
  /** Each indexed token's record as it was indexed: its groups, worked out again on removal. */
  const indexed = new Map<string, TokenRecord>();
  /** Per API key: its logins (families) → how many of their tokens are stored, least recently issued first. */
  const loginsByKey = new Map<string, Map<string, number>>();
  /** Tokens of ended logins whose deletion is on its way: their login has already left the order. */
  const departing = new Set<string>();

  // A delegated token belongs to both principals: ending either ends it. It also belongs, apart
  // (x…), to the logins, keys and credentials of the tokens it was exchanged from: ending one of those
  // revokes it, but it never counts as one of that login's own tokens (login-bounds.ts trims those).
  const groups = (t: TokenRecord): string[] => {
    const g = [`p:${t.principal.id}`, `f:${t.family}`];
    if (t.api_key_id) g.push(`k:${t.api_key_id}`);
    if (t.credential_id) g.push(`c:${t.credential_id}`);
    if (t.on_behalf_of) g.push(`p:${t.on_behalf_of.id}`);
    for (const source of t.exchanged_from ? [t.exchanged_from.subject, t.exchanged_from.actor] : []) {
      g.push(`xf:${source.family}`);
      if (source.api_key_id) g.push(`xk:${source.api_key_id}`);
      if (source.credential_id) g.push(`xc:${source.credential_id}`);
    }
    return [...new Set(g)];
  };
  function ungroup(key: string, record: TokenRecord): void {
    for (const g of groups(record)) {
      const members = byGroup.get(g);
      if (members === key) byGroup.delete(g);
      else if (members instanceof Set) {
        members.delete(key);
        if (members.size === 0) byGroup.delete(g);
      }
    }
  }
  function group(key: string, record: TokenRecord): void {
    for (const g of groups(record)) {
      const members = byGroup.get(g);
      if (members === undefined) byGroup.set(g, key);
      else if (members instanceof Set) members.add(key);
      else if (members !== key) byGroup.set(g, new Set([members, key]));
    }
  }
  /** A new token moves its login to the most recent end of its key's order. */
  function loginGained(t: TokenRecord): void {
    if (!t.api_key_id) return;
    let logins = loginsByKey.get(t.api_key_id);
    if (logins === undefined) {
      logins = new Map();
      loginsByKey.set(t.api_key_id, logins);
    }
    const count = logins.get(t.family) ?? 0;
    logins.delete(t.family);
    logins.set(t.family, count + 1);
  }
  function loginLost(t: TokenRecord): void {
    const logins = t.api_key_id ? loginsByKey.get(t.api_key_id) : undefined;
    const count = logins?.get(t.family);
    if (logins === undefined || count === undefined) return;
    if (count > 1) logins.set(t.family, count - 1);
    else {
      logins.delete(t.family);
      if (logins.size === 0) loginsByKey.delete(t.api_key_id as string);
    }
  }
  function remove(key: string): void {
    const record = indexed.get(key);
    if (record === undefined) return;
    indexed.delete(key);
    ungroup(key, record);
    // Counted out when its login was ended: a token that login got since (a refresh) keeps it listed.
    if (!departing.delete(key)) loginLost(record);
  }
  function add(key: string, record: TokenRecord): void {
    const before = indexed.get(key);
    if (before !== undefined) ungroup(key, before);
    indexed.set(key, record);
    group(key, record);
    // A token rewritten in place (revoked, marked used) is not a new use of its login.
    if (before === undefined) loginGained(record);
    else if (before.family !== record.family || before.api_key_id !== record.api_key_id) {
      loginLost(before);
      loginGained(record);
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
  /** A group's own tokens and those exchanged from them. */
  const withExchanged = (group: string): string[] => [...members(group), ...members(`x${group}`)];
  return {
    ofPrincipal: (id: string) => members(`p:${id}`),
    ofFamily: (family: string) => withExchanged(`f:${family}`),
    ofApiKey: (id: string) => withExchanged(`k:${id}`),
    ofCredential: (id: string) => withExchanged(`c:${id}`),
    /** A family's tokens with their records, oldest issued first. */
    familyByAge(family: string): Array<[string, TokenRecord]> {
      return members(`f:${family}`)
        .map((key): [string, TokenRecord] => [key, indexed.get(key) as TokenRecord])
        .sort((a, b) => a[1].issued_at - b[1].issued_at);
    },
    /**
     * Makes room for a new login of the key, so that it holds at most `max` once the logins in flight
     * have landed: the least recently used logins to end leave the order at once (their tokens stay
     * indexed until their deletion arrives), so logins in flight together end different ones.
     * `undo` puts them back if the write fails.
     */
    admitLogin(
      apiKeyId: string,
      family: string,
      max: number,
      /** Logins one admission may end: a key far over a lowered bound comes down over several logins. */
      atMost = Number.POSITIVE_INFINITY,
    ): { ended: string[]; tokens: string[]; undo(): void } {
      let logins = loginsByKey.get(apiKeyId);
      if (logins === undefined) {
        logins = new Map();
        loginsByKey.set(apiKeyId, logins);
      }
      const ended: Array<[string, number]> = [];
      for (const [f, count] of logins) {
        if (logins.size - ended.length < max || ended.length >= atMost) break;
        // A login still being written has no token to delete yet: it counts, but is not ended; the
        // key is over its bound by the logins in flight until the next login ends the excess.
        if (count === 0) continue;
        ended.push([f, count]);
      }
      for (const [f] of ended) logins.delete(f);
      const tokens = ended.flatMap(([f]) => members(`f:${f}`));
      for (const t of tokens) departing.add(t);
      // Held in place until its tokens arrive (count 0), so later logins count it.
      if (!logins.has(family)) logins.set(family, 0);
      return {
        ended: ended.map(([f]) => f),
        tokens,
        undo() {
          for (const t of tokens) departing.delete(t);
          const now = loginsByKey.get(apiKeyId) ?? new Map<string, number>();
          if (now.get(family) === 0) now.delete(family);
          // An ended login that got a token meanwhile is listed again: its counts add up.
          const back = ended.map(([f, count]): [string, number] => [f, count + (now.get(f) ?? 0)]);
          const restored = new Map([...back, ...[...now].filter(([f]) => !back.some(([b]) => b === f))]);
          if (restored.size === 0) loginsByKey.delete(apiKeyId);
          else loginsByKey.set(apiKeyId, restored);
        },
      };
    },
  };
}
