// What a proxy may change in the cluster state through auth's internal API. A proxy holds no store
// credentials; what it writes is bounded to the records its listeners own (Teleport's builtin Proxy
// role plays this part there), so a compromised proxy host cannot mint users, keys, roles or tokens,
// nor tickets, nor rewrite what a session record says once written. One named rule per kind of key:
import { INSTANCE_LEASE_TTL_MS } from '../backend/instance-lease.js';
import type { Backend, Condition, Item, Operation } from '../backend/types.js';
import { refusedSessionWrite } from './proxy-session-writes.js';
import { type CheckedWrite, CLOCK_SKEW_MS, checkedState, type ProxyWriter, parseRecord } from './proxy-write-state.js';

export type { ProxyWriter } from './proxy-write-state.js';

/** A write refused: the first key that may not be written, and why (shown to the proxy in the 403). */
export interface RefusedWrite {
  key: string;
  reason: string;
}

type Rule = (write: CheckedWrite, op: Operation) => Promise<string | undefined>;

/** A proxy's usage marks are written within a second or so of the use; this is the most they may lag. */
const USAGE_LAG_MS = 60_000;
/** An instance lease runs out one TTL after its last renewal; a proxy may not hold one much longer. */
const LEASE_MAX_MS = 2 * INSTANCE_LEASE_TTL_MS + CLOCK_SKEW_MS;

/** tickets/: issued by the auth tier only (POST /v1/sessions); a proxy redeems one by deleting it. */
const ticketRedeemedOnly: Rule = async (_write, op) => {
  if (op.type !== 'delete') return 'tickets are issued by the auth tier; a proxy only redeems (deletes) one';
  return /^tickets\/[0-9a-f]{64}$/.test(op.key) ? undefined : 'a proxy redeems one ticket at a time, by its hash';
};

/** usage/: a last-use mark of an agent or credential, as of now; never removed, never set far back. */
const usageMarkedNow: Rule = async (write, op) => {
  if (op.type === 'delete') return 'last-use marks are removed by the auth tier only';
  if (!/^usage\/(agent|credential)\/[A-Za-z0-9_-]{1,100}$/.test(op.key)) return 'not a usage key';
  const v = parseRecord(op.value);
  if (!v || Object.keys(v).length !== 1 || typeof v.last_used_at !== 'string') return 'a usage mark is {last_used_at}';
  const at = Date.parse(v.last_used_at);
  if (!(at >= write.writer.now - USAGE_LAG_MS - CLOCK_SKEW_MS && at <= write.writer.now + CLOCK_SKEW_MS))
    return `last_used_at ${v.last_used_at} is not now (auth tier: ${new Date(write.writer.now).toISOString()})`;
  return undefined;
};

/** locks/instances/: the calling instance's own lease, named by the id the call announced. */
const ownInstanceLease: Rule = async (write, op) => {
  const self = write.writer.instance;
  if (self === undefined) return 'a lease write must announce its instance (x-gatehouse-instance)';
  if (!/^locks\/instances\/[A-Za-z0-9_-]{1,64}$/.test(op.key)) return 'not an instance lease key';
  if (op.type === 'put') {
    const v = parseRecord(op.value);
    if (v?.instance !== self) return `the lease must name the announced instance ${self}`;
    if (Array.isArray(v.roles) && v.roles.includes('auth'))
      return 'an instance reaching auth this way is no auth instance';
    if (op.expiresAt === undefined || op.expiresAt > write.writer.now + LEASE_MAX_MS)
      return `an instance lease expires within ${LEASE_MAX_MS / 1000} s`;
  }
  const state = await checkedState(write, op.key, { creation: op.type === 'put' });
  if (typeof state === 'string') return state;
  if (state.current && parseRecord(state.current.value)?.instance !== self)
    return `the lease is another instance’s (announced: ${self})`;
  return undefined;
};

/** resources/<id>: only an unpinned server's first SSH host key pin (and updated_at). */
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
 * A pin must be conditional on the revision checked here, so the record cannot change between check
 * and write. Conditional on an older revision: the store itself refuses it (compare_failed: revisions
 * only grow, so it can never hold again), and the proxy must hear that — another proxy pinned first —
 * to read the pin and compare, not a 403. A later revision is refused here: the record could reach it
 * between this check and the write.
 */
const firstHostKeyPin: Rule = async (write, op) => {
  const refused = 'a proxy may only pin an unpinned server’s first host key';
  if (op.type !== 'put' || !/^resources\/[^/]+$/.test(op.key)) return refused;
  const current = await write.backend.get(op.key);
  const expected = write.conditions.find((c) => c.key === op.key && 'revision' in c) as
    | { revision: number }
    | undefined;
  if (current && expected && expected.revision < current.revision) return undefined;
  if (current && expected && expected.revision === current.revision && onlyPinChanged(current.value, op.value))
    return undefined;
  return refused;
};

/** Prefixes of records a proxy writes as part of brokering access, each with its rule. */
const RULES: Array<[prefix: string, rule: Rule]> = [
  ['sessions/', refusedSessionWrite], // the live session registry: start, then its end
  ['tickets/', ticketRedeemedOnly], // one-time connection tickets, consumed by the proxy that redeems them
  ['usage/', usageMarkedNow], // last_used_at of agents and credentials
  ['locks/instances/', ownInstanceLease], // the proxy's own instance lease (the auth tier's reaper reads them)
  ['resources/', firstHostKeyPin], // a server's first-use SSH host key
];

/**
 * The first operation a proxy may not write, and why; undefined when all are allowed. Throws the
 * store's own compare_failed when a condition the write depends on does not hold now (as the store
 * would have), so a proxy that raced another writer reads again rather than failing.
 */
export async function refusedProxyWrite(
  backend: Pick<Backend, 'get'>,
  conditions: Condition[],
  operations: Operation[],
  writer: ProxyWriter = { now: Date.now() },
): Promise<RefusedWrite | undefined> {
  const write: CheckedWrite = { backend, conditions, writer, read: new Map<string, Promise<Item | undefined>>() };
  for (const op of operations) {
    const rule = RULES.find(([prefix]) => op.key.startsWith(prefix))?.[1];
    const reason = rule ? await rule(write, op) : 'proxies write only sessions, tickets, usage and their lease';
    if (reason !== undefined) return { key: op.key, reason };
  }
  return undefined;
}
