// Which tokens belong to whom: kept from the cache's change feed, so revoking every token of a
// principal, an API key or a family touches only those tokens.
//
// Sized for many live tokens (each login adds two, kept until they expire): a group with one token —
// every login's own family — holds the key itself, a few an exact-length array, more a Set; groups are
// keyed by the id itself, one map per kind; a token's groups are worked out again from the record the
// cache held when it goes (the cache hands it over), so the index keeps no record of its own; and the
// cache holds token records compact (decode below: principal and key ids shared, one object). A live
// login kept 1,605 bytes of heap before these, 1,007–1,017 after (npm run bench:memory).
//
// It also keeps each API key's logins in the order they last got a token, so the token service can
// end a key's least recently used logins in O(1) when the key holds too many (login-bounds.ts).
import type { StateStore } from '../backend/state.js';
import { type PrincipalRef, prefixes, type TokenRecord } from './records.js';

type GroupKind = 'p' | 'f' | 'c' | 'xf' | 'xk' | 'xc';
/**
 * A group's tokens: the key itself while it has one (every login's own family at first), an array of
 * exact length while it has a few (a Set and its hash table cost ~150 bytes more), a Set beyond.
 */
type Members = string | string[] | Set<string>;
const SMALL_GROUP = 8;

/** The group with `key` added: the same value when it was there or the Set took it, else a new one. */
function withMember(members: Members, key: string): Members {
  if (typeof members === 'string') return members === key ? members : [members, key];
  if (Array.isArray(members)) {
    if (members.includes(key)) return members;
    return members.length < SMALL_GROUP ? [...members, key] : new Set([...members, key]);
  }
  members.add(key);
  return members;
}

/** The group without `key`: undefined once empty. */
function without(members: Members, key: string): Members | undefined {
  if (typeof members === 'string') return members === key ? undefined : members;
  if (Array.isArray(members)) {
    if (!members.includes(key)) return members;
    const left = members.filter((m) => m !== key);
    return left.length === 1 ? left[0] : left;
  }
  members.delete(key);
  return members.size === 0 ? undefined : members;
}

export type TokenIndex = ReturnType<typeof createTokenIndex>;

export function createTokenIndex(state: StateStore) {
  /** One map per kind of group, keyed by the id itself: no per-login "kind:id" string is kept. */
  const byGroup: Record<GroupKind, Map<string, Members>> = {
    p: new Map(),
    f: new Map(),
    c: new Map(),
    xf: new Map(),
    xk: new Map(),
    xc: new Map(),
  };
  /** Per API key: its logins (families) → how many of their tokens are stored, least recently issued first. */
  const loginsByKey = new Map<string, Map<string, number>>();
  /** Tokens of ended logins whose deletion is on its way: their login has already left the order. */
  const departing = new Set<string>();
  /**
   * One copy of each principal reference and API key id, shared by every token record that names it
   * (each parsed record had its own: ~270 bytes a login). Dropped when its group empties.
   */
  const principals = new Map<string, PrincipalRef>();
  const apiKeyIds = new Map<string, string>();

  function intern(t: TokenRecord): void {
    const p = principals.get(t.principal.id);
    if (p === undefined) principals.set(t.principal.id, t.principal);
    else if (p.kind === t.principal.kind) t.principal = p;
    if (t.api_key_id !== undefined) {
      const k = apiKeyIds.get(t.api_key_id);
      if (k === undefined) apiKeyIds.set(t.api_key_id, t.api_key_id);
      else t.api_key_id = k;
    }
    // The login's other tokens hold its family already: share their string.
    const family = byGroup.f.get(t.family);
    const sibling = family === undefined ? undefined : typeof family === 'string' ? family : [...family][0];
    const shared = sibling === undefined ? undefined : state.get<TokenRecord>(sibling)?.value.family;
    if (shared === t.family) t.family = shared;
  }

  /**
   * A token record as this process holds it: the fields every token has in one object literal (a
   * parsed object of six fields kept two of them in a separate property array), the rest copied after,
   * names shared with the other records that hold them.
   */
  function decode(json: string): TokenRecord {
    const r = JSON.parse(json) as TokenRecord;
    const { kind, principal, family, issued_at, expires_at, api_key_id } = r;
    const held: TokenRecord =
      api_key_id === undefined
        ? { kind, principal, family, issued_at, expires_at }
        : { kind, principal, family, issued_at, expires_at, api_key_id };
    for (const [field, value] of Object.entries(r))
      if (!(field in held)) (held as unknown as Record<string, unknown>)[field] = value;
    intern(held);
    return held;
  }

  // A delegated token belongs to both principals: ending either ends it. It also belongs, apart
  // (x…), to the logins, keys and credentials of the tokens it was exchanged from: ending one of those
  // revokes it, but it never counts as one of that login's own tokens (login-bounds.ts trims those).
  const groups = (t: TokenRecord): Array<[GroupKind, string]> => {
    const g: Array<[GroupKind, string]> = [
      ['p', t.principal.id],
      ['f', t.family],
    ];
    // An API key's own tokens are its logins' (loginsByKey → families): no group of their own.
    if (t.credential_id) g.push(['c', t.credential_id]);
    if (t.on_behalf_of && t.on_behalf_of.id !== t.principal.id) g.push(['p', t.on_behalf_of.id]);
    for (const source of t.exchanged_from ? [t.exchanged_from.subject, t.exchanged_from.actor] : []) {
      g.push(['xf', source.family]);
      if (source.api_key_id) g.push(['xk', source.api_key_id]);
      if (source.credential_id) g.push(['xc', source.credential_id]);
    }
    return g;
  };
  function ungroup(key: string, record: TokenRecord): void {
    for (const [kind, id] of groups(record)) {
      const map = byGroup[kind];
      const members = map.get(id);
      if (members === undefined) continue;
      const left = without(members, key);
      if (left !== undefined) {
        if (left !== members) map.set(id, left);
        continue;
      }
      map.delete(id);
      if (kind === 'p') principals.delete(id);
    }
  }
  function group(key: string, record: TokenRecord): void {
    for (const [kind, id] of groups(record)) {
      const map = byGroup[kind];
      const members = map.get(id);
      const joined = members === undefined ? key : withMember(members, key);
      if (joined !== members) map.set(id, joined);
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
      if (logins.size === 0) {
        loginsByKey.delete(t.api_key_id as string);
        apiKeyIds.delete(t.api_key_id as string);
      }
    }
  }
  function remove(key: string, record: TokenRecord): void {
    ungroup(key, record);
    // Counted out when its login was ended: a token that login got since (a refresh) keeps it listed.
    if (!departing.delete(key)) loginLost(record);
  }
  /** `before`: the record the cache held under this key until now (the index keeps no copy of its own). */
  function add(key: string, record: TokenRecord, before: TokenRecord | undefined): void {
    if (before !== undefined) ungroup(key, before);
    group(key, record);
    // A token rewritten in place (revoked, marked used) is not a new use of its login.
    if (before === undefined) loginGained(record);
    else if (before.family !== record.family || before.api_key_id !== record.api_key_id) {
      loginLost(before);
      loginGained(record);
    }
  }

  state.cache.decodeUnder(prefixes.tokens, decode);
  for (const item of state.list<TokenRecord>(prefixes.tokens)) add(item.key, item.value, undefined);
  state.cache.onChange((key, item, previous) => {
    if (!key.startsWith(prefixes.tokens)) return;
    if (item) add(key, item.value as TokenRecord, previous?.value as TokenRecord | undefined);
    else if (previous) remove(key, previous.value as TokenRecord);
  });

  const members = (kind: GroupKind, id: string): string[] => {
    const m = byGroup[kind].get(id);
    return m === undefined ? [] : typeof m === 'string' ? [m] : [...m];
  };
  return {
    ofPrincipal: (id: string) => members('p', id),
    // A group's own tokens and those exchanged from them.
    ofFamily: (family: string) => [...members('f', family), ...members('xf', family)],
    ofApiKey(id: string): string[] {
      // The key's logins' tokens (a hash entry fewer per token than a group of the key's own), and
      // those of logins ended to make room whose deletion is still on its way.
      const own = new Set([...(loginsByKey.get(id)?.keys() ?? [])].flatMap((family) => members('f', family)));
      for (const t of departing) if (state.get<TokenRecord>(t)?.value.api_key_id === id) own.add(t);
      return [...own, ...members('xk', id)];
    },
    ofCredential: (id: string) => [...members('c', id), ...members('xc', id)],
    /** A family's tokens with their records, oldest issued first (one already expired in the cache: first). */
    familyByAge(family: string): Array<[string, TokenRecord | undefined]> {
      const age = (r: TokenRecord | undefined) => r?.issued_at ?? Number.NEGATIVE_INFINITY;
      return members('f', family)
        .map((key): [string, TokenRecord | undefined] => [key, state.get<TokenRecord>(key)?.value])
        .sort((a, b) => age(a[1]) - age(b[1]));
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
      const tokens = ended.flatMap(([f]) => members('f', f));
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
