// What a proxy may read of the cluster state through auth's internal API (get, getRange, watch). Join
// tokens and proxy identities (cluster/) are the auth tier's alone, whoever asks; so is everything
// sealed under secrets/ (upstream passwords, keys and tokens, the CAs' private keys, the cluster's
// signing key): a door asks for one session's credential instead (sessions/upstream-credentials.ts).
// The CAs' records reach proxies as their public halves only, which is all that verifying a
// certificate or pinning the Kubernetes CA needs. This holds for the deprecated shared token too.
import type { Item, WatchEvent } from '../backend/types.js';

interface Reader {
  /** A joined proxy's identity; undefined for the deprecated shared token. */
  identity?: string | undefined;
}

const HIDDEN: Array<{ prefix: string; from: (r: Reader) => boolean; why: string }> = [
  { prefix: 'cluster/', from: () => true, why: 'join tokens and proxy identities are the auth tier’s' },
  {
    prefix: 'secrets/',
    from: () => true,
    why: 'sealed secrets are the auth tier’s: a proxy asks for one session’s credential (POST /internal/v1/credentials)',
  },
];

/** Records under secrets/ a proxy reads without their sealed fields: the CAs' public halves. */
const PUBLIC_HALVES: Record<string, string[]> = {
  'secrets/ssh-user-ca': ['private_sealed'],
  'secrets/ssh-client-ca': ['private_sealed'],
  'secrets/kube-ca': ['key_sealed'],
};
/**
 * Records elsewhere that carry a sealed field a proxy has no use for: it holds no seal key, and the
 * blob is not sent either (agent JWT keys: their public halves serve /.well-known/jwks.json).
 */
const SEALED_FIELDS: Array<{ prefix: string; fields: string[] }> = [
  { prefix: 'jwks/', fields: ['private_sealed'] },
  { prefix: 'webhooks/', fields: ['secret'] },
  { prefix: 'sso/connectors/', fields: ['client_secret'] },
];
const sealedFieldsOf = (key: string): string[] | undefined =>
  Object.hasOwn(PUBLIC_HALVES, key) ? PUBLIC_HALVES[key] : SEALED_FIELDS.find((s) => key.startsWith(s.prefix))?.fields;

// The lists above name the sealed fields known today; a record that gains one under another prefix
// must not reach proxies until someone remembers to list it. So any string in lib/secret-box.ts's
// shape (v1.<iv>.<tag>.<ciphertext>, base64) is dropped wherever it sits: deny by default.
const SEALED_IN_JSON = /"v1\.[A-Za-z0-9+/]{16}\.[A-Za-z0-9+/]{22}==\./;
const SEALED_VALUE = /^v1\.[A-Za-z0-9+/]{16}\.[A-Za-z0-9+/]{22}==\.[A-Za-z0-9+/]*={0,2}$/;
const SEALED_ANYWHERE = /v1\.[A-Za-z0-9+/]{16}\.[A-Za-z0-9+/]{22}==\.[A-Za-z0-9+/]*={0,2}/g;
const isSealed = (v: unknown): boolean => typeof v === 'string' && SEALED_VALUE.test(v);

/** The value without any sealed string in it, at any depth (one that is nothing else becomes null). */
function withoutSealed(v: unknown): unknown {
  if (isSealed(v)) return null;
  if (Array.isArray(v)) return v.filter((x) => !isSealed(x)).map(withoutSealed);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (!isSealed(x)) out[k] = withoutSealed(x);
  return out;
}

/** Why this key (or every key under this prefix) is hidden from the reader; undefined if it is not. */
export function hiddenFromProxy(key: string, reader: Reader): string | undefined {
  if (Object.hasOwn(PUBLIC_HALVES, key)) return undefined;
  return HIDDEN.find((h) => key.startsWith(h.prefix) && h.from(reader))?.why;
}

/** The item as a proxy sees it: without its sealed fields (listed, or in a sealed value's shape). */
export function asProxySees(item: Item): Item {
  const listed = sealedFieldsOf(item.key);
  if (!listed && !SEALED_IN_JSON.test(item.value)) return item;
  let value: unknown;
  try {
    value = JSON.parse(item.value);
  } catch {
    // Not a record: nothing to strip field by field, so the sealed text itself goes.
    return { ...item, value: item.value.replace(SEALED_ANYWHERE, '') };
  }
  if (listed && value && typeof value === 'object')
    for (const field of listed) delete (value as Record<string, unknown>)[field];
  return { ...item, value: JSON.stringify(withoutSealed(value)) };
}

const keyOf = (x: Item | WatchEvent): string => ('item' in x ? x.item.key : x.key);
const mayHoldSealed = (x: Item | WatchEvent): boolean => {
  const item = 'item' in x ? x.item : 'value' in x ? x : undefined;
  return item !== undefined && (sealedFieldsOf(item.key) !== undefined || SEALED_IN_JSON.test(item.value));
};
const shown = <T extends Item | WatchEvent>(x: T): T =>
  ('item' in x ? { ...x, item: asProxySees(x.item) } : 'value' in x ? asProxySees(x) : x) as T;

/** Items or watch events without those the reader may not see (a range read or watch over a parent). */
export function withoutHidden<T extends Item | WatchEvent>(xs: T[], reader: Reader): T[] {
  const visible = xs.some((x) => hiddenFromProxy(keyOf(x), reader))
    ? xs.filter((x) => !hiddenFromProxy(keyOf(x), reader))
    : xs;
  return visible.some(mayHoldSealed) ? visible.map(shown) : visible;
}
