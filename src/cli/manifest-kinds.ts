// The kinds `gatehouse apply` and `gatehouse get` know, each as a document `{kind, name, spec}`: the
// spec is the API's own body without the name and without what the server alone decides (ids, times,
// fingerprints) or never answers (secrets). How each is found by name, created, and changed: roles
// and connectors are replaced whole (PUT), users, resources, agents and webhooks patched (PATCH: a
// field left out stays).
// An object is read with its ETag and changed with If-Match: a change someone else made in between is
// the server's 412, never overwritten (docs/api.md, concurrent changes).
import { isDeepStrictEqual } from 'node:util';
import type { Gatehouse } from '../sdk/index.js';
import { GatehouseProblem } from '../sdk/index.js';
import { CliError } from './context.js';

export type Spec = Record<string, unknown>;
type Obj = Record<string, unknown> & { id: string; name: string };
/** An object as read from its own URL, with the version a change of it must name. */
export interface Found {
  obj: Obj;
  etag: string | undefined;
}

export interface Kind {
  kind: 'role' | 'user' | 'resource' | 'connector' | 'agent' | 'webhook';
  /** Where the list is (paged). */
  listPath: '/v1/roles' | '/v1/users' | '/v1/resources' | '/v1/auth/connectors' | '/v1/agents' | '/v1/webhooks';
  /** The API's answer to a change replaces the object whole (PUT) rather than patching it. */
  replaces: boolean;
  /** Fields the server answers but never takes back, or decides itself. */
  readOnly: string[];
  /** Spec fields the server never answers (secrets, credentials): a document with one is always sent. */
  writeOnly: string[];
  /** What the server sets a field a replacement leaves out to, where that is not empty. */
  defaults?: Spec;
  /** What the table shows beside the name. */
  summary: (spec: Spec) => string;
  find(gh: Gatehouse, name: string, spec?: Spec): Promise<Found[]>;
  create(gh: Gatehouse, name: string, spec: Spec): Promise<unknown>;
  /** Changes `current` only if it is still at `current.etag` (If-Match). */
  update(gh: Gatehouse, current: Found, name: string, spec: Spec): Promise<unknown>;
}

const TIMES = ['id', 'name', 'created_at', 'updated_at'];

const send = async (gh: Gatehouse, method: string, path: string, body: unknown, etag?: string): Promise<unknown> =>
  (
    await gh.fetch(path, {
      method,
      headers: { 'content-type': 'application/json', ...(etag !== undefined && { 'if-match': etag }) },
      body: JSON.stringify(body),
    })
  ).json();

/** A change of an object read before: with If-Match, so a change made since is refused, not overwritten. */
function change(gh: Gatehouse, method: string, path: string, body: unknown, current: Found): Promise<unknown> {
  if (current.etag === undefined)
    throw new CliError(`the server answered no ETag for ${path}: it cannot change it without risking a lost change`);
  return send(gh, method, path, body, current.etag);
}

/** The object at this path with its ETag, or none when the server says there is none (404). */
async function byPath(gh: Gatehouse, path: string): Promise<Found[]> {
  try {
    const res = await gh.fetch(path);
    return [{ obj: (await res.json()) as Obj, etag: res.headers.get('etag') ?? undefined }];
  } catch (e) {
    if (e instanceof GatehouseProblem && e.status === 404) return [];
    throw e;
  }
}

const at = (base: string, name: string) => `${base}/${encodeURIComponent(name)}`;
const list = (v: unknown) => (Array.isArray(v) ? v.join(',') : '');

const byName = (base: string) => (gh: Gatehouse, name: string) => byPath(gh, at(base, name));

/** Found through the list's exact name filter, then read at its own URL for its ETag. */
const byQuery = (base: '/v1/agents', key: 'agents') => async (gh: Gatehouse, name: string) => {
  const page = (await (await gh.fetch(`${base}?${new URLSearchParams({ name })}`)).json()) as Record<string, Obj[]>;
  const found = page[key] ?? [];
  if (found.length !== 1) return found.map((obj) => ({ obj, etag: undefined }));
  return byPath(gh, at(base, String(found[0]?.id)));
};

/** Found by walking the list (it has no name filter), then read at its own URL for its ETag. */
const byListing = (base: '/v1/webhooks') => async (gh: Gatehouse, name: string) => {
  for await (const item of gh.list(base)) {
    const obj = item as Obj;
    if (obj.name === name) return byPath(gh, at(base, obj.id));
  }
  return [];
};

export const KINDS: Kind[] = [
  {
    kind: 'role',
    listPath: '/v1/roles',
    replaces: true,
    readOnly: [...TIMES, 'builtin'],
    writeOnly: [],
    summary: (s) => String(s.description ?? ''),
    find: byName('/v1/roles'),
    create: (gh, name, spec) => send(gh, 'POST', '/v1/roles', { name, ...spec }),
    update: (gh, current, name, spec) => change(gh, 'PUT', at('/v1/roles', current.obj.id), { name, ...spec }, current),
  },
  {
    kind: 'user',
    listPath: '/v1/users',
    replaces: false,
    readOnly: [...TIMES, 'status', 'auth'],
    writeOnly: [],
    summary: (s) => `roles: ${list(s.roles)}`,
    find: byName('/v1/users'),
    create: (gh, name, spec) => send(gh, 'POST', '/v1/users', { name, ...spec }),
    update: (gh, current, _name, spec) => change(gh, 'PATCH', at('/v1/users', current.obj.id), spec, current),
  },
  {
    kind: 'resource',
    listPath: '/v1/resources',
    replaces: false,
    // kube, db and mcp are answered as summaries (credential kind, fingerprints), never as given.
    readOnly: [
      ...TIMES,
      'ssh_public_key',
      'ssh_host_key_fingerprint',
      'ssh_host_key_pinned',
      'public_url',
      'mcp_url',
      'kube',
      'db',
      'mcp',
    ],
    writeOnly: ['kube', 'db', 'mcp', 'ssh_host_key'],
    summary: (s) => `${s.kind} ${s.address ?? s.uri ?? ''}`.trim(),
    async find(gh, name, spec) {
      const query = new URLSearchParams({ name, ...(typeof spec?.kind === 'string' ? { kind: spec.kind } : {}) });
      const page = (await (await gh.fetch(`/v1/resources?${query}`)).json()) as { resources: Obj[] };
      // Several of that name (kinds differ) are reported by the caller; one is read at its own URL for its ETag.
      if (page.resources.length !== 1) return page.resources.map((obj) => ({ obj, etag: undefined }));
      return byPath(gh, at('/v1/resources', String(page.resources[0]?.id)));
    },
    create: (gh, name, spec) => send(gh, 'POST', '/v1/resources', { name, ...spec }),
    async update(gh, current, name, spec) {
      const { kind, ...patch } = spec;
      if (kind !== undefined && kind !== current.obj.kind)
        throw new CliError(`resource/${name}: is a ${current.obj.kind}; a resource's kind cannot change`);
      return change(gh, 'PATCH', at('/v1/resources', current.obj.id), patch, current);
    },
  },
  {
    kind: 'connector',
    listPath: '/v1/auth/connectors',
    replaces: true,
    readOnly: [...TIMES, 'redirect_uri'],
    writeOnly: ['client_secret'],
    // As the server fills them in (src/sso/connector-service.ts), so a document may leave them out.
    defaults: {
      scopes: ['openid', 'profile', 'email'],
      username_claim: 'preferred_username',
      enabled: true,
      max_session_ttl: 43200,
    },
    summary: (s) => `${s.issuer} ${s.enabled === false ? '(off)' : ''}`.trim(),
    find: byName('/v1/auth/connectors'),
    create: (gh, name, spec) => send(gh, 'POST', '/v1/auth/connectors', { name, ...spec }),
    update: (gh, current, name, spec) =>
      change(gh, 'PUT', at('/v1/auth/connectors', current.obj.id), { name, ...spec }, current),
  },
  {
    kind: 'agent',
    listPath: '/v1/agents',
    replaces: false,
    // Its status changes through `gatehouse agents suspend` and the kill switch, not a document.
    readOnly: [...TIMES, 'status', 'last_used_at', 'created_by'],
    writeOnly: [],
    summary: (s) => `roles: ${list(s.roles)}`,
    find: byQuery('/v1/agents', 'agents'),
    create: (gh, name, spec) => send(gh, 'POST', '/v1/agents', { name, ...spec }),
    update(gh, current, name, spec) {
      const { owner, ...patch } = spec;
      if (owner !== undefined && owner !== current.obj.owner)
        throw new CliError(`agent/${name}: is owned by ${current.obj.owner}; an agent's owner cannot change`);
      return change(gh, 'PATCH', at('/v1/agents', current.obj.id), patch, current);
    },
  },
  {
    kind: 'webhook',
    listPath: '/v1/webhooks',
    replaces: false,
    // Its status is the dispatcher's and the API's (a pause, a resume), not a document's; its signing
    // secret is answered once, at creation (apply prints it then).
    readOnly: [...TIMES, 'status', 'failure', 'created_by'],
    writeOnly: [],
    summary: (s) => `${s.url} (${list(s.event_types)})`,
    find: byListing('/v1/webhooks'),
    create: (gh, name, spec) => send(gh, 'POST', '/v1/webhooks', { name, ...spec }),
    update: (gh, current, _name, spec) => change(gh, 'PATCH', at('/v1/webhooks', current.obj.id), spec, current),
  },
];

/** `role`, `roles`, `Role`… → its kind, or a usage error naming the kinds there are. */
export function kindNamed(name: string): Kind {
  const k = KINDS.find((x) => x.kind === name.toLowerCase().replace(/s$/, ''));
  if (!k) throw new CliError(`unknown kind ${JSON.stringify(name)}: one of ${KINDS.map((x) => x.kind).join(', ')}`, 2);
  return k;
}

/** The spec of an object as the server answers it: nothing read-only, nothing secret. */
export function specOf(kind: Kind, obj: Record<string, unknown>): Spec {
  return Object.fromEntries(Object.entries(obj).filter(([key]) => !kind.readOnly.includes(key)));
}

const isEmpty = (v: unknown) =>
  v === undefined ||
  v === null ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

/**
 * Whether applying `desired` would change nothing. A secret is never answered, so a document
 * carrying one is always sent; a field left out of a replaced object must be empty there already.
 */
export function unchanged(kind: Kind, desired: Spec, current: Spec): boolean {
  for (const [key, value] of Object.entries(desired)) {
    if (kind.writeOnly.includes(key)) return false;
    if (!isDeepStrictEqual(value, current[key])) return false;
  }
  if (!kind.replaces) return true;
  return Object.entries(current).every(([key, value]) => key in desired || keptWhenLeftOut(kind, key, value));
}

/** Whether a replacement that leaves this field out keeps its value: empty, or the server's default. */
export function keptWhenLeftOut(kind: Kind, key: string, value: unknown): boolean {
  return isEmpty(value) || isDeepStrictEqual(value, kind.defaults?.[key]);
}
