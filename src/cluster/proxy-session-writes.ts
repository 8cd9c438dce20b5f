// What a proxy may write of a session record (sessions/<id>, written by sessions/session-registry.ts):
// the record of a session it starts — active, held by the instance it announced, for a principal and
// a resource that exist — and then that session's end. Never a delete; never, once written, a change
// of who, where, as whom or what (every field but the end's); nothing at all once the session ended.
import type { Operation } from '../backend/types.js';
import { ownedBy } from './proxy-identities.js';
import { type CheckedWrite, CLOCK_SKEW_MS, checkedState, parseRecord, readOnce } from './proxy-write-state.js';

type Session = Record<string, unknown>;

/** The fields the end of a session writes (end() and terminate() of the registry); all others are fixed. */
const END_FIELDS = new Set(['status', 'ended_at', 'bytes_in', 'bytes_out', 'exit_code', 'end_reason']);
/** What a session marked terminated (by the API, the kill switch) still gets from its holder as it closes. */
const CLOSING_FIELDS = new Set(['bytes_in', 'bytes_out', 'exit_code']);
const RESOURCE_KIND = { ssh: 'server', kube: 'kube_cluster', db: 'database', app: 'app' } as const;
const ID = /^[A-Za-z0-9_-]{1,64}$/;
/** sessions/<id>: an id as the registry makes them (lib/ids.ts), the only ones the API can address. */
const SESSION_ID = /^sess_[0-9a-z]{26}$/;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const nearNow = (iso: unknown, now: number) =>
  typeof iso === 'string' && Math.abs(Date.parse(iso) - now) <= CLOCK_SKEW_MS;

/** A user or agent record that exists, is active, and bears the name the session gives it. */
async function principalProblem(write: CheckedWrite, who: unknown, what: string): Promise<string | undefined> {
  const p = (who ?? {}) as { kind?: unknown; id?: unknown; name?: unknown };
  if ((p.kind !== 'user' && p.kind !== 'agent') || typeof p.id !== 'string' || !ID.test(p.id))
    return `${what} must be a user or an agent`;
  const item = await readOnce(write, `${p.kind}s/${p.id}`);
  const record = item && parseRecord(item.value);
  if (!record) return `${what} ${p.kind} ${p.id} does not exist`;
  if (record.name !== p.name) return `${what} ${p.kind} ${p.id} is not named ${String(p.name)}`;
  if (record.status !== 'active') return `${what} ${p.kind} ${p.id} is not active`;
  return undefined;
}

/** A session as it starts: active, held by the writer, now, for principals and a resource that exist. */
async function startProblem(write: CheckedWrite, id: string, next: Session): Promise<string | undefined> {
  if (next.id !== id) return 'the record’s id is not its key’s';
  if (next.status !== 'active' || next.ended_at !== null) return 'a session record starts active';
  if (next.bytes_in !== 0 || next.bytes_out !== 0 || next.exit_code !== undefined || next.end_reason !== undefined)
    return 'a session record starts with nothing counted and no end';
  if (write.writer.instance === undefined) return 'a session write must announce its instance (x-gatehouse-instance)';
  if (next.instance !== write.writer.instance)
    return `the session must be held by the announced instance ${write.writer.instance}`;
  if (!nearNow(next.started_at, write.writer.now)) return 'started_at is not now';
  const kind = RESOURCE_KIND[next.kind as keyof typeof RESOURCE_KIND];
  const resource = (next.resource ?? {}) as { kind?: unknown; id?: unknown; name?: unknown };
  if (!kind || resource.kind !== kind) return 'the session’s kind and its resource’s do not match';
  // An app session acts as no login (the app learns who from the identity JWT): its login is ''.
  if (typeof next.login !== 'string' || (next.login === '') !== (kind === 'app'))
    return kind === 'app' ? 'an app session names no login' : 'a session names its login';
  const problem =
    (await principalProblem(write, next.principal, 'principal')) ??
    (next.on_behalf_of === undefined ? undefined : await principalProblem(write, next.on_behalf_of, 'on_behalf_of'));
  if (problem) return problem;
  if ((next.on_behalf_of as { kind?: unknown } | undefined)?.kind === 'agent') return 'on_behalf_of is a user';
  const item =
    typeof resource.id === 'string' && ID.test(resource.id) && (await readOnce(write, `resources/${resource.id}`));
  const record = item ? parseRecord(item.value) : undefined;
  if (record?.kind !== kind || record.name !== resource.name)
    return `no ${kind} ${String(resource.id)} named ${String(resource.name)}`;
  return undefined;
}

/** Only the end's fields may change: once, from active; a terminated session's counters as it closes. */
function changeProblem(prev: Session, next: Session, now: number): string | undefined {
  if (prev.status !== 'active' && prev.status !== 'terminated') return 'the session has ended: its record is final';
  for (const field of new Set([...Object.keys(prev), ...Object.keys(next)])) {
    if (!END_FIELDS.has(field) && !same(prev[field], next[field])) return `a session’s ${field} never changes`;
  }
  if (!count(next.bytes_in) || !count(next.bytes_out)) return 'byte counters are counts';
  if ((next.bytes_in as number) < (prev.bytes_in as number) || (next.bytes_out as number) < (prev.bytes_out as number))
    return 'byte counters only grow';
  if (next.exit_code !== undefined && next.exit_code !== null && !Number.isSafeInteger(next.exit_code))
    return 'exit_code is an integer';
  if (prev.status === 'active') {
    if (next.status !== 'ended' && next.status !== 'terminated')
      return 'an active session’s record changes when it ends';
    if (!nearNow(next.ended_at, now)) return 'ended_at is not now';
    if (next.end_reason !== undefined && (typeof next.end_reason !== 'string' || next.end_reason.length > 200))
      return 'end_reason is a short text';
    return undefined;
  }
  for (const field of END_FIELDS) {
    if (CLOSING_FIELDS.has(field) || same(prev[field], next[field])) continue;
    if (field === 'end_reason' && prev.end_reason === undefined && typeof next.end_reason === 'string') continue;
    return `a terminated session’s ${field} never changes`;
  }
  return undefined;
}

/** sessions/<id>: see the module's opening lines. */
export async function refusedSessionWrite(write: CheckedWrite, op: Operation): Promise<string | undefined> {
  const id = op.key.slice('sessions/'.length);
  if (!SESSION_ID.test(id)) return 'not a session key';
  if (op.type === 'delete') return 'a proxy never removes a session record';
  const next = parseRecord(op.value);
  if (!next) return 'a session record is a JSON object';
  const state = await checkedState(write, op.key, { creation: true });
  if (typeof state === 'string') return state;
  if (!state.current) return startProblem(write, id, next);
  const prev = parseRecord(state.current.value);
  if (!prev) return 'the stored record is not a session';
  // A joined proxy ends only the sessions it brokers (any process of its identity: a restart's too).
  const { identity } = write.writer;
  if (identity !== undefined && !ownedBy(identity, prev.instance))
    return `the session is held by ${String(prev.instance)}, not by a process of ${identity}`;
  return changeProblem(prev, next, write.writer.now);
}
