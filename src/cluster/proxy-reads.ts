// What a proxy may read of the cluster state through auth's internal API (get, getRange, watch). Join
// tokens and proxy identities (cluster/) are the auth tier's alone, whoever asks.
import type { Item, WatchEvent } from '../backend/types.js';

interface Reader {
  /** A joined proxy's identity; undefined for the deprecated shared token. */
  identity?: string | undefined;
}

const HIDDEN: Array<{ prefix: string; from: (r: Reader) => boolean; why: string }> = [
  { prefix: 'cluster/', from: () => true, why: 'join tokens and proxy identities are the auth tier’s' },
];

/** Why this key (or every key under this prefix) is hidden from the reader; undefined if it is not. */
export function hiddenFromProxy(key: string, reader: Reader): string | undefined {
  return HIDDEN.find((h) => key.startsWith(h.prefix) && h.from(reader))?.why;
}

const keyOf = (x: Item | WatchEvent): string => ('item' in x ? x.item.key : x.key);

/** Items or watch events without those the reader may not see (a range read or watch over a parent). */
export function withoutHidden<T extends Item | WatchEvent>(xs: T[], reader: Reader): T[] {
  return xs.some((x) => hiddenFromProxy(keyOf(x), reader)) ? xs.filter((x) => !hiddenFromProxy(keyOf(x), reader)) : xs;
}
