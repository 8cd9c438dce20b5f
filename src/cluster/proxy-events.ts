// Which audit events the auth tier takes from a proxy (POST /internal/v1/audit/events), and what of
// them it decides itself. A proxy records what happens at its doors — sessions, their commands,
// queries and recordings, Kubernetes requests, refusals and failed logins, a server's first host key,
// and the refusals and rate limits of the /v1 reads it answers from its cache — and nothing else. The auth tier stamps
// each event's id, code and time on receipt (the proxy's time stays as data.proxy_time), names the
// instance the call announced (data.emitted_by, self-declared until proxies have identities), and
// holds the actor and target of an event about a session to that session's record.
import { EVENT_TYPES, type EventType } from '../audit/catalogue.js';
import type { AuditActor, AuditEvent, AuditTarget } from '../audit/types.js';
import type { Backend, Item } from '../backend/types.js';
import { type Clock, isoTime } from '../lib/clock.js';
import { forbidden, GatehouseError } from '../lib/errors.js';
import { ID_PREFIXES, newId } from '../lib/ids.js';

type ActorKind = AuditActor['kind'];
const PEOPLE: ActorKind[] = ['user', 'agent'];

/**
 * The event types proxies record, found where they are recorded: who may be their actor, and whether
 * they are about one session (and must name it). A type not listed here is the auth tier's alone.
 */
export const PROXY_EVENTS: Partial<Record<EventType, { actors: ActorKind[]; session: boolean }>> = {
  // sessions/session-registry.ts (start, end; terminated by the proxy itself as `system`)
  'session.start': { actors: PEOPLE, session: true },
  'session.end': { actors: PEOPLE, session: true },
  'db.session.start': { actors: PEOPLE, session: true },
  'db.session.end': { actors: PEOPLE, session: true },
  'app.session.start': { actors: PEOPLE, session: true },
  'app.session.end': { actors: PEOPLE, session: true },
  'session.terminated': { actors: ['system'], session: true }, // and sessions/session-guard.ts
  // proxy/ssh/session-channel.ts, proxy/db/db-session.ts
  'session.command': { actors: PEOPLE, session: true },
  'session.file_transfer': { actors: PEOPLE, session: true },
  'db.query': { actors: PEOPLE, session: true },
  // the doors' refusals and failures (proxy/ssh, proxy/db, proxy/kube), before any session exists
  'session.rejected': { actors: [...PEOPLE, 'anonymous'], session: false },
  'session.upstream_failed': { actors: PEOPLE, session: false },
  'session.port_forward': { actors: PEOPLE, session: false },
  'kube.request': { actors: [...PEOPLE, 'anonymous'], session: false },
  'app.request': { actors: [...PEOPLE, 'anonymous'], session: false }, // proxy/app/app-door.ts
  // proxy/mcp/mcp-door.ts (approvals are decided and recorded by the auth tier: mcp/mcp-approvals-proxy.ts)
  ...Object.fromEntries(
    [
      'mcp.tool.call',
      'mcp.tools.listed',
      'mcp.resource.read',
      'mcp.prompt.get',
      'mcp.resources.listed',
      'mcp.prompts.listed',
    ].map((t) => [t, { actors: PEOPLE, session: false }]),
  ),
  // the SSH and PostgreSQL doors count failed logins (tokens, tickets) through auth/token-service.ts
  'auth.login.failed': { actors: ['anonymous'], session: false },
  'auth.login.throttled': { actors: ['anonymous'], session: false },
  // recordings/uploader.ts, on the proxy whose spool holds the recording
  'recording.uploaded': { actors: ['system'], session: true },
  'recording.upload_failed': { actors: ['system'], session: true },
  // resources/resource-service.ts pinHostKey, called by the SSH door
  'resource.host_key.pinned': { actors: ['system'], session: false },
  // the /v1 reads a proxy answers from its cache (api/forward.ts LOCAL_READS): api/plugins/security.ts
  // and api/plugins/agent-rate-limit.ts
  'access.denied': { actors: PEOPLE, session: false },
  'agent.rate_limited': { actors: ['agent'], session: false },
};

const FIELDS = new Set([
  'id',
  'type',
  'code',
  'time',
  'actor',
  'target',
  'session_id',
  'success',
  'remote_addr',
  'request_id',
  'data',
]);
const MAX_TEXT = 512;

const text = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_TEXT;
const opt = (v: unknown) => v === undefined || text(v);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The event as a proxy sent it, checked for shape only (a 400 otherwise). */
function shapeOf(raw: unknown, at: string): AuditEvent {
  const bad = (what: string) => new GatehouseError('invalid_request', `${at}: ${what}`);
  if (!isObject(raw)) throw bad('an event is an object');
  for (const key of Object.keys(raw)) if (!FIELDS.has(key)) throw bad(`unknown field ${key}`);
  const e = raw as Partial<AuditEvent> & Record<string, unknown>;
  if (!text(e.type)) throw bad('type is a string');
  if (!isObject(e.actor) || !text(e.actor.kind) || !opt(e.actor.id) || !opt(e.actor.name))
    throw bad('actor is {kind, id?, name?}');
  if (
    e.target !== undefined &&
    (!isObject(e.target) || !text(e.target.kind) || !text(e.target.id) || !opt(e.target.name))
  )
    throw bad('target is {kind, id, name?}');
  if (!opt(e.session_id) || !opt(e.remote_addr) || !opt(e.request_id) || !opt(e.time)) throw bad('a field is not text');
  if (typeof e.success !== 'boolean') throw bad('success is a boolean');
  if (e.data !== undefined && !isObject(e.data)) throw bad('data is an object');
  return e as AuditEvent;
}

type Read = (key: string) => Promise<Item | undefined>;

const parsed = (item: Item | undefined): Record<string, unknown> | undefined => {
  if (!item) return undefined;
  try {
    return JSON.parse(item.value) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

/** Gatehouse's own actors on a proxy: the registry, the access re-check, the uploader, the SSH door. */
const SYSTEM_ACTORS = new Set(['proxy', 'access-recheck', 'recording-uploader', 'ssh-proxy']);

/** A user or agent actor: an id of its kind, and the name its record bears while the record exists. */
async function actorProblem(actor: AuditActor, read: Read): Promise<string | undefined> {
  if (actor.kind === 'system' || actor.kind === 'anonymous') {
    if (actor.id !== undefined) return `a ${actor.kind} actor has no id`;
    if (actor.kind === 'system' && !SYSTEM_ACTORS.has(actor.name ?? '')) return `no proxy acts as system ${actor.name}`;
    return undefined;
  }
  if (!actor.id?.startsWith(ID_PREFIXES[actor.kind])) return `actor ${actor.id} is no ${actor.kind} id`;
  const record = parsed(await read(`${actor.kind}s/${actor.id}`));
  // A principal deleted since (a long kubectl watch answered after it) leaves events of its own.
  if (record && actor.name !== undefined && record.name !== actor.name)
    return `actor ${actor.kind} ${actor.id} is not named ${actor.name}`;
  return undefined;
}

/** An event about a session: that session exists, its principal is the actor, its resource the target. */
async function sessionProblem(e: AuditEvent, read: Read): Promise<string | undefined> {
  if (e.session_id === undefined) return `a ${e.type} event names its session`;
  const session = parsed(await read(`sessions/${e.session_id}`));
  if (!session) return `no session ${e.session_id}`;
  const principal = session.principal as { kind?: string; id?: string } | undefined;
  if (e.actor.kind !== 'system' && (principal?.kind !== e.actor.kind || principal?.id !== e.actor.id))
    return `the actor is not session ${e.session_id}’s principal`;
  const resource = session.resource as AuditTarget | undefined;
  const target = e.target;
  if (target && !(target.kind === 'session' ? target.id === e.session_id : target.id === resource?.id))
    return `the target is not session ${e.session_id}’s`;
  return undefined;
}

/** A first host-key pin: the server's record bears that very pin (written just before the event). */
async function pinProblem(e: AuditEvent, read: Read): Promise<string | undefined> {
  if (e.target?.kind !== 'server') return 'the target of a pin is a server';
  const pin = parsed(await read(`resources/${e.target.id}`))?.ssh_host_key as { fingerprint?: unknown } | undefined;
  if (pin?.fingerprint === undefined || pin.fingerprint !== e.data?.fingerprint)
    return `server ${e.target.id} bears no pin of that fingerprint`;
  return undefined;
}

/**
 * The events as the auth tier appends them, or a 403 naming the first event a proxy may not record
 * (nothing of the batch is appended then). `instance` is the id the call announced.
 */
export async function acceptProxyEvents(
  raw: unknown[],
  deps: { backend: Pick<Backend, 'get'>; clock: Clock; instance: string | undefined },
): Promise<AuditEvent[]> {
  if (deps.instance === undefined)
    throw forbidden('a proxy’s events must announce its instance (x-gatehouse-instance)');
  const reads = new Map<string, Promise<Item | undefined>>();
  const read: Read = (key) => {
    const known = reads.get(key);
    if (known) return known;
    const item = deps.backend.get(key);
    reads.set(key, item);
    return item;
  };
  const accepted: AuditEvent[] = [];
  for (const [i, item] of raw.entries()) {
    const e = shapeOf(item, `events/${i}`);
    const rule = Object.hasOwn(PROXY_EVENTS, e.type) ? PROXY_EVENTS[e.type as EventType] : undefined;
    if (!rule) throw forbidden(`a proxy may not record ${e.type} events`);
    if (!rule.actors.includes(e.actor.kind))
      throw forbidden(`a proxy’s ${e.type} event has no ${e.actor.kind} actor (events/${i})`);
    const problem =
      (await actorProblem(e.actor, read)) ??
      (rule.session || e.session_id !== undefined ? await sessionProblem(e, read) : undefined) ??
      (e.type === 'resource.host_key.pinned' ? await pinProblem(e, read) : undefined);
    if (problem) throw forbidden(`a proxy may not record this ${e.type} event (events/${i}): ${problem}`);
    const now = deps.clock();
    accepted.push({
      ...e,
      id: newId('event', now),
      code: EVENT_TYPES[e.type as EventType].code,
      time: isoTime(now),
      data: {
        ...e.data,
        ...(e.time === undefined ? {} : { proxy_time: e.time }),
        emitted_by: deps.instance,
      },
    });
  }
  return accepted;
}
