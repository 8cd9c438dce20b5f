// The state a proxy's write depends on: rules that judge a write by the record it replaces read that
// record once, and hold the write to it — it must be conditional on the very revision judged (or on
// the key's absence, for a creation), so nothing can change between the check and the write.
import { type Backend, BackendError, type Condition, type Item } from '../backend/types.js';

/**
 * Who writes: the process instance the call announced — bound to the identity its credential proves
 * (cluster/cluster-peers.ts), or self-declared under the deprecated shared token — and when.
 */
export interface ProxyWriter {
  instance?: string;
  /** The joined proxy's verified identity; absent under the shared token. */
  identity?: string;
  /** The auth tier's clock (epoch ms). */
  now: number;
}

/** A proxy's clock may be off by this much, either way, from the auth tier's (docs/deploy.md: run NTP). */
export const CLOCK_SKEW_MS = 60_000;

export interface CheckedWrite {
  backend: Pick<Backend, 'get'>;
  conditions: Condition[];
  writer: ProxyWriter;
  /** Reads made for this write, by key: each record is read once however many rules ask. */
  read: Map<string, Promise<Item | undefined>>;
}

export function readOnce(write: CheckedWrite, key: string): Promise<Item | undefined> {
  let item = write.read.get(key);
  if (!item) {
    item = write.backend.get(key);
    write.read.set(key, item);
  }
  return item;
}

/**
 * The record the write replaces — `{}` for a creation conditional on the key's absence (the store
 * refuses it if the key exists) — or why the write may not be judged (a string). A condition on a
 * revision the record is past, or on a record that is gone, throws compare_failed as the store would:
 * the proxy raced another writer and reads again. A revision the record has not reached is refused:
 * the record could reach it between this check and the write.
 */
export async function checkedState(
  write: CheckedWrite,
  key: string,
  opts: { creation: boolean },
): Promise<{ current?: Item } | string> {
  const condition = write.conditions.find((c) => c.key === key);
  const unconditional = 'a proxy writes this record only conditional on the revision it read (or on its absence)';
  if (condition === undefined) return unconditional;
  if ('is' in condition) {
    if (condition.is !== 'absent') return unconditional;
    return opts.creation ? {} : 'nothing to remove where the record is absent';
  }
  if (!Number.isSafeInteger(condition.revision)) return 'a revision is an integer';
  const current = await readOnce(write, key);
  if (!current || current.revision > condition.revision) throw new BackendError('compare_failed', key);
  if (current.revision < condition.revision) return 'conditional on a revision the record has not reached';
  return { current };
}

/** A record's JSON as an object, or undefined for anything else. */
export function parseRecord(value: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(value) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
