// The upstream credential of a session a door is opening (issue 29): the seam between the doors and
// the secrets. A door asks for the credential of one session — its id, who it is for (the principal
// and what it came with, as its record will name them), the resource and "as whom" — and gets only
// that: an SSH certificate for a key the proxy made for this connection (and the server's own key
// where one is registered), a database login, a Kubernetes credential. The issuer answers only after
// the principal is resolved again and the one access checker allows it (the session guard's verdict),
// and records the issuance (never the secret). Two implementations, one interface: in one process the
// doors call the issuer directly; a proxy of a cluster calls the auth tier's internal API
// (remote-upstream-credentials.ts), so it holds no seal key and reads nothing under secrets/.
import type { AuditLog } from '../audit/audit-log.js';
import { actorOfPrincipal } from '../auth/principal.js';
import type { StateStore } from '../backend/state.js';
import type { Clock } from '../lib/clock.js';
import { forbidden, GatehouseError } from '../lib/errors.js';
import type { DbUpstream } from '../resources/db-upstream.js';
import type { KubeUpstream } from '../resources/kube-upstream.js';
import type { ResourceService } from '../resources/resource-service.js';
import type { UserCa } from '../ssh-keys/user-ca.js';
import type { PrincipalProof, PrincipalProofs } from './principal-proof.js';
import type { SessionGuard } from './session-guard.js';
import type { ConnectionGrounds, SessionRecord, SessionType } from './session-registry.js';

/** Who the session is for and where to, as its record names them; `session_id` is the one it will have. */
export type CredentialGrounds = ConnectionGrounds & { session_id: string; type?: SessionType };

export interface SshUpstreamCredential {
  /** An OpenSSH user certificate from the user CA for the public key the door sent, this login only. */
  certificate: string;
  /** The server's own key (OpenSSH text), when one is registered for it (authorized_keys targets). */
  server_key?: string;
}

export interface UpstreamCredentials {
  /**
   * `public_key`: the ssh-ed25519 line of a key the door made for this connection and keeps;
   * `permit_port_forwarding`: asked for, and granted only if a role allows forwarding there.
   */
  ssh(grounds: CredentialGrounds, o: SshAsk & Proven): Promise<SshUpstreamCredential>;
  /** undefined: a read-only session on a database without a read-only login. */
  db(grounds: CredentialGrounds, o: { read_only: boolean } & Proven): Promise<DbUpstream | undefined>;
  /** undefined: the cluster has no upstream credential registered. */
  kube(grounds: CredentialGrounds, o: Proven): Promise<KubeUpstream | undefined>;
  /** The headers the MCP gateway sends this MCP server (an app); none when it has no credential. */
  mcp(grounds: CredentialGrounds, o: Proven): Promise<Record<string, string>>;
}

export interface SshAsk {
  public_key: string;
  permit_port_forwarding: boolean;
}

/** What the principal presented at the door (principal-proof.ts): without it, nothing is issued. */
export interface Proven {
  proof: PrincipalProof | undefined;
}

export type CredentialRequest = (
  | ({ kind: 'ssh'; grounds: CredentialGrounds } & SshAsk)
  | { kind: 'db'; grounds: CredentialGrounds; read_only: boolean }
  | { kind: 'kube'; grounds: CredentialGrounds }
  | { kind: 'mcp'; grounds: CredentialGrounds }
) &
  Proven;

/** The proxy process asking: its announced instance and, for a joined proxy, its verified identity. */
export interface CredentialCaller {
  instance?: string;
  identity?: string;
}

const SESSION_ID = /^sess_[0-9a-z]{20,40}$/;
const RESOURCE_KIND = { ssh: 'server', db: 'database', kube: 'kube_cluster', mcp: 'app' } as const;
const SESSION_KIND = { ssh: 'ssh', db: 'db', kube: 'kube', mcp: 'app' } as const;
/** A per-session certificate: long enough for the login, not a key to keep. */
const CERT_TTL_S = 300;

export type CredentialIssuer = ReturnType<typeof createCredentialIssuer>;

export function createCredentialIssuer(deps: {
  state: Pick<StateStore, 'get'>;
  audit: AuditLog;
  clock: Clock;
  guard: Pick<SessionGuard, 'verdict'>;
  resources: Pick<ResourceService, 'upstreamKey' | 'dbUpstream' | 'kubeUpstream' | 'mcpUpstream'>;
  userCa: Pick<UserCa, 'certify'>;
  /** Whether the principal named is the one connected: its own token, ticket or SSH signature. */
  proofs: Pick<PrincipalProofs, 'verify'>;
  /** Whether an instance id (a session record's) belongs to the caller. */
  owns(caller: CredentialCaller, instance: string | undefined): boolean;
}) {
  /** The session must be the caller's own (if it exists yet) and be for these grounds. */
  function checkSession(caller: CredentialCaller, g: CredentialGrounds): void {
    if (typeof g.session_id !== 'string' || !SESSION_ID.test(g.session_id))
      throw new GatehouseError('invalid_request', 'grounds.session_id is a session id (sess_…)');
    const existing = deps.state.get<SessionRecord>(`sessions/${g.session_id}`)?.value;
    if (!existing) return;
    if (!deps.owns(caller, existing.instance))
      throw forbidden(`session ${g.session_id} is not this proxy's: it asks only for the sessions it brokers`);
    if (existing.status !== 'active') throw forbidden(`session ${g.session_id} has ended`);
    if (
      existing.principal.id !== g.principal?.id ||
      existing.resource.id !== g.resource?.id ||
      existing.login !== g.login
    )
      throw forbidden(`session ${g.session_id} is for another principal, resource or login`);
  }

  async function refused(caller: CredentialCaller, req: CredentialRequest, reason: string, detail: string) {
    const g = req.grounds;
    await deps.audit.record({
      type: 'cluster.credential.refused',
      actor: g?.principal ? actorOfPrincipal(g.principal) : { kind: 'anonymous' },
      ...(g?.resource?.id ? { target: g.resource } : {}),
      ...(typeof g?.session_id === 'string' && SESSION_ID.test(g.session_id) ? { session_id: g.session_id } : {}),
      success: false,
      data: {
        credential: req.kind,
        login: g?.login,
        // The proxy that asked: the refusal is its ask, whoever it named.
        ...(caller.instance ? { instance: caller.instance } : {}),
        ...(caller.identity ? { identity: caller.identity } : {}),
        reason,
      },
    });
    return forbidden(`no ${req.kind} credential for this session: ${detail}`);
  }

  return {
    /** Checks, issues and records one credential; a refusal is recorded too, and answered as 403. */
    async issue(caller: CredentialCaller, req: CredentialRequest): Promise<unknown> {
      const g = req.grounds;
      if (!g || typeof g !== 'object' || !g.principal || !g.resource)
        throw new GatehouseError('invalid_request', 'grounds (principal, resource, login, session_id) are required');
      if (g.kind !== SESSION_KIND[req.kind] || g.resource.kind !== RESOURCE_KIND[req.kind])
        throw new GatehouseError('invalid_request', `a ${req.kind} credential is for a ${RESOURCE_KIND[req.kind]}`);
      try {
        checkSession(caller, g);
      } catch (error) {
        if (error instanceof GatehouseError && error.code === 'forbidden')
          throw await refused(caller, req, 'not_its_session', error.detail);
        throw error;
      }
      // The principal's own proof first: a proxy naming someone who is not connected through it gets nothing.
      const unproven = await deps.proofs.verify(req.proof, g);
      if (unproven) throw await refused(caller, req, unproven.reason, unproven.detail);
      // Resolved again and asked of the one access checker, as the guard asks of a live session.
      const why = deps.guard.verdict(g);
      if (why) throw await refused(caller, req, why.reason, why.detail);
      const issued = open(req);
      // For MCP, the header names (its credential's kind), as the API answers them.
      const what = Object.keys(issued ?? {}).filter((k) => k !== 'url' && k !== 'ca' && k !== 'user');
      await deps.audit.record({
        type: 'cluster.credential.issued',
        actor: actorOfPrincipal({ ...g.principal, ...(g.on_behalf_of ? { onBehalfOf: g.on_behalf_of } : {}) }),
        target: g.resource,
        session_id: g.session_id,
        data: {
          credential: req.kind,
          login: g.login,
          ...(g.db_name !== undefined ? { db_name: g.db_name } : {}),
          ...(caller.instance ? { instance: caller.instance } : {}),
          // Which kinds of secret went out (certificate, server_key, password, key, token…), never one.
          issued: what.length ? what : ['none'],
        },
      });
      return issued;
    },
  };

  function open(req: CredentialRequest): unknown {
    const { grounds: g } = req;
    if (req.kind === 'ssh') {
      const [type, data] = String(req.public_key ?? '')
        .trim()
        .split(/\s+/);
      if (type !== 'ssh-ed25519' || !data)
        throw new GatehouseError('invalid_request', 'public_key is an ssh-ed25519 public key line');
      const serverKey = deps.resources.upstreamKey(g.resource.id);
      const who = g.on_behalf_of ?? g.principal;
      const cert = deps.userCa.certify(Buffer.from(data, 'base64'), {
        login: g.login,
        keyId: `gatehouse session ${g.session_id} ${who.kind}:${who.name} ${g.login}@${g.resource.name}`,
        ttlSeconds: CERT_TTL_S,
        now: new Date(deps.clock()),
        // Only where a role allows forwarding (the door asks again as each forward opens).
        permitPortForwarding:
          req.permit_port_forwarding === true && deps.guard.verdict({ ...g, type: 'port_forward' }) === undefined,
      });
      return { certificate: cert.certificate, ...(serverKey ? { server_key: serverKey } : {}) };
    }
    if (req.kind === 'db')
      return deps.resources.dbUpstream(g.resource.id, g.login, req.read_only === true ? 'read_only' : 'read_write');
    if (req.kind === 'mcp') return deps.resources.mcpUpstream(g.resource.id);
    return deps.resources.kubeUpstream(g.resource.id);
  }
}

/** The doors' side in one process: the issuer itself, as this process's instance. */
export function localUpstreamCredentials(issuer: CredentialIssuer, instance: () => string): UpstreamCredentials {
  const caller = (): CredentialCaller => ({ instance: instance() });
  return {
    ssh: (grounds, o) => issuer.issue(caller(), { kind: 'ssh', grounds, ...o }) as Promise<SshUpstreamCredential>,
    db: (grounds, o) => issuer.issue(caller(), { kind: 'db', grounds, ...o }) as Promise<DbUpstream | undefined>,
    kube: (grounds, o) => issuer.issue(caller(), { kind: 'kube', grounds, ...o }) as Promise<KubeUpstream | undefined>,
    mcp: (grounds, o) => issuer.issue(caller(), { kind: 'mcp', grounds, ...o }) as Promise<Record<string, string>>,
  };
}

/**
 * A Kubernetes cluster's or an MCP server's credential serves every request to it: asked for once per
 * resource and kept this long, so a request costs no round trip to auth (nor an issuance event); a
 * new credential (a PATCH moves the resource's record) is asked for at once, a withdrawn one or a
 * removed proxy takes effect within the bound. The same object is answered meanwhile (the kube door
 * keeps one keep-alive agent per credential object).
 */
export function cachingPerResource(
  creds: UpstreamCredentials,
  deps: { clock: Clock; revisionOf(resourceId: string): number | undefined },
  ttlMs = 60_000,
): UpstreamCredentials {
  function cached<T>(ask: (g: CredentialGrounds, o: Proven) => Promise<T>) {
    const held = new Map<string, { value: Promise<T>; until: number; revision: number | undefined }>();
    return (grounds: CredentialGrounds, o: Proven): Promise<T> => {
      const now = deps.clock();
      const id = grounds.resource.id;
      const revision = deps.revisionOf(id);
      const hit = held.get(id);
      if (hit && hit.until > now && hit.revision === revision) return hit.value;
      const value = ask(grounds, o);
      held.set(id, { value, until: now + ttlMs, revision });
      // A refusal is not kept: the next request (perhaps another principal's) asks again.
      value.catch(() => held.delete(id));
      return value;
    };
  }
  return { ...creds, kube: cached(creds.kube), mcp: cached(creds.mcp) };
}
