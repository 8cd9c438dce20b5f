// What a proxy may change in the cluster state through auth's internal API. A proxy holds no store
// credentials; what it writes is bounded to the records its listeners own (Teleport's builtin Proxy
// role plays this part there), so a compromised proxy host cannot mint users, keys, roles or tokens.
import type { Backend, Condition, Operation } from '../backend/types.js';

/** Prefixes of records a proxy writes as part of brokering access (and why). */
const PROXY_WRITABLE = [
  'sessions/', // the live session registry: start, bytes, end, recording upload state
  'tickets/', // one-time connection tickets are consumed (deleted) by the proxy that redeems them
  'usage/', // last_used_at of agents and credentials
  'locks/instances/', // the proxy's own instance lease (the auth tier's reaper reads them)
];

/** A resource record may only gain its first-use SSH host key pin (and updated_at) from a proxy. */
const PIN_FIELDS = new Set(['ssh_host_key', 'updated_at']);

function onlyPinChanged(before: string, after: string): boolean {
  const a = JSON.parse(before) as Record<string, unknown>;
  const b = JSON.parse(after) as Record<string, unknown>;
  if (a.ssh_host_key !== undefined) return false; // pinned already: a proxy never moves a pin
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (PIN_FIELDS.has(key)) continue;
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) return false;
  }
  return b.ssh_host_key !== undefined;
}

/**
 * The first key of operations a proxy may not write, or undefined when all are allowed. A pin must be
 * conditional on the revision checked here, so the record cannot change between check and write.
 */
export async function refusedProxyWrite(
  backend: Pick<Backend, 'get'>,
  conditions: Condition[],
  operations: Operation[],
): Promise<string | undefined> {
  for (const op of operations) {
    if (PROXY_WRITABLE.some((p) => op.key.startsWith(p))) continue;
    if (op.type === 'put' && /^resources\/[^/]+$/.test(op.key)) {
      const current = await backend.get(op.key);
      const expected = conditions.find((c) => c.key === op.key && 'revision' in c) as { revision: number } | undefined;
      // Conditional on an older revision: the store itself refuses it (compare_failed: revisions only
      // grow, so it can never hold again), and the proxy must hear that — another proxy pinned first —
      // to read the pin and compare, not a 403. A later revision is refused here: the record could
      // reach it between this check and the write.
      if (current && expected && expected.revision < current.revision) continue;
      if (current && expected && onlyPinChanged(current.value, op.value)) continue;
    }
    return op.key;
  }
  return undefined;
}
