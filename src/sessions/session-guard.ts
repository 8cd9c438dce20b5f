// Live sessions do not outlive what allowed them. When a change reaches this instance's cache (a token
// revoked, an SSH key deleted, roles or a user or an agent changed, a credential revoked, consent
// withdrawn, a resource relabeled), each live session it holds that the change may touch is checked
// again as it was first allowed: the token, key or ticket it came with must still stand, its
// principal must still resolve (through the same pipeline as every door) and the same access checker
// must still allow its target as the same login (a port forward: with port_forwarding; a Kubernetes
// session: as the same Kubernetes user). One that fails is marked terminated with the reason (its
// holder ends it through the watch) and recorded as session.terminated. A connection held here (SSH)
// is checked the same way, and told when its grounds are gone, so its door can end it. Checks are
// batched: at most one pass per PASS_DELAY_MS, so a burst of logins costs one walk of the live sessions.

import type { AccessChecker } from '../access/access-checker.js';
import type { ServiceDeps } from '../audit/service-deps.js';
import type { Principal } from '../auth/principal.js';
import type { PrincipalPipeline, PrincipalScope } from '../auth/principal-pipeline.js';
import { type AgentRecord, keys, prefixes, type TokenRecord } from '../auth/records.js';
import type { TokenService } from '../auth/token-service.js';
import { GatehouseError } from '../lib/errors.js';
import type { AsValue } from '../rbac/policy.js';
import {
  type ConnectionGrounds,
  type SessionRecord,
  SessionRefused,
  type SessionRegistry,
  type SessionType,
} from './session-registry.js';

/** How long changes are gathered before a pass: well within the second a session may outlive its grounds. */
export const PASS_DELAY_MS = 50;

/** A session (or one about to start, or a connection: no type) as far as the check reads it. */
type Checked = ConnectionGrounds & { type?: SessionType };

/** What changed since the last pass, by what a session may stand on. */
interface Changes {
  all: boolean;
  tokens: Set<string>;
  sshKeys: Set<string>;
  principals: Set<string>;
  credentials: Set<string>;
  agents: boolean;
}

const noChanges = (): Changes => ({
  all: false,
  tokens: new Set(),
  sshKeys: new Set(),
  principals: new Set(),
  credentials: new Set(),
  agents: false,
});

/** The values a session's target was allowed as (an SSH login; a database user and name). */
function asOf(s: Checked): AsValue[] {
  if (s.kind === 'ssh') return [{ field: 'logins', value: s.login }];
  if (s.kind === 'db')
    return [
      { field: 'db_users', value: s.login },
      { field: 'db_names', value: s.db_name ?? '' },
    ];
  // A Kubernetes session: the cluster must stay visible (its groups were chosen per request).
  return [];
}

export type SessionGuard = ReturnType<typeof createSessionGuard>;

export function createSessionGuard(
  deps: ServiceDeps & {
    sessions: Pick<
      SessionRegistry,
      'liveIds' | 'holdsAny' | 'terminate' | 'terminateLive' | 'setAdmission' | 'watchedConnections'
    >;
    tokens: Pick<TokenService, 'resolveById'>;
    pipeline: Pick<PrincipalPipeline, 'resolve'>;
    access: Pick<AccessChecker, 'authorize' | 'kubeIdentity' | 'kubeUserAllowed'>;
    onError?: (error: unknown) => void;
  },
) {
  const { state, clock } = deps;

  /** The principal the session acts as now, from the token it came with (or its principal, for a key). */
  function principalNow(s: Checked): Principal {
    const scope: PrincipalScope = {
      ...(s.origin?.scope ?? {}),
      ...(s.origin?.ssh_key_id !== undefined ? { ssh_key_id: s.origin.ssh_key_id } : {}),
    };
    const token = s.origin?.token;
    if (token === undefined) return deps.pipeline.resolve(s.principal, scope);
    try {
      // Revocation, the credential, the tokens a delegated one was exchanged from: as at every request.
      return deps.tokens.resolveById(token.id).principal;
    } catch (error) {
      // A token that only expired (or was swept a day after) ended nothing: the session goes on while
      // its principal may (max_session_ttl bounds it). A revoked or deleted one ends it.
      const expired =
        error instanceof GatehouseError &&
        (error.code === 'token_expired' ||
          (error.code === 'invalid_token' && (token.expires_at ?? Number.POSITIVE_INFINITY) <= clock()));
      if (!expired) throw error;
      return deps.pipeline.resolve(s.principal, scope);
    }
  }

  /** Why the session may not go on (or start) now, or undefined if it may. */
  function verdict(s: Checked): { reason: string; detail: string } | undefined {
    let principal: Principal;
    try {
      principal = principalNow(s);
    } catch (error) {
      if (error instanceof GatehouseError) return { reason: error.code, detail: error.detail };
      throw error;
    }
    const decision = deps.access.authorize(principal, { kind: s.resource.kind, id: s.resource.id }, asOf(s));
    if (!decision.allowed) return { reason: 'access_revoked', detail: decision.reason };
    if (s.type === 'port_forward' && !decision.options.portForwarding) {
      return { reason: 'access_revoked', detail: `port forwarding is not allowed by any role of ${principal.name}` };
    }
    if (s.kind === 'kube') {
      // The user it impersonates must still be one the kube door would give it there.
      const identity = deps.access.kubeIdentity(principal, decision.resource);
      if (!deps.access.kubeUserAllowed(principal, identity, s.login)) {
        const allowed = identity.users.length
          ? `allowed: ${identity.users.join(', ')}`
          : 'no Kubernetes user is allowed';
        return {
          reason: 'access_revoked',
          detail: `Kubernetes user ${s.login} is not allowed on ${decision.resource.name} (${allowed})`,
        };
      }
    }
    return undefined;
  }

  /** Could this change touch this session or connection? (Cheap: most passes check few or none.) */
  function touched(s: Pick<Checked, 'principal' | 'on_behalf_of' | 'origin'>, c: Changes): boolean {
    if (c.all) return true;
    const o = s.origin;
    if (c.principals.has(s.principal.id) || (s.on_behalf_of && c.principals.has(s.on_behalf_of.id))) return true;
    if (s.principal.kind === 'agent') {
      if (c.agents) return true;
      const owner = state.get<AgentRecord>(keys.agent(s.principal.id))?.value.owner;
      if (owner !== undefined && c.principals.has(owner)) return true;
    }
    if (o?.ssh_key_id !== undefined && c.sshKeys.has(o.ssh_key_id)) return true;
    if (o?.scope.credential_id !== undefined && c.credentials.has(o.scope.credential_id)) return true;
    if (o?.token === undefined || c.tokens.size === 0) return false;
    if (c.tokens.has(o.token.id)) return true;
    // A delegated token also stands on the tokens it was exchanged from.
    const sources = state.get<TokenRecord>(keys.token(o.token.id))?.value.exchanged_from;
    return sources !== undefined && (c.tokens.has(sources.subject.id) || c.tokens.has(sources.actor.id));
  }

  async function end(s: SessionRecord, why: { reason: string; detail: string }): Promise<void> {
    try {
      const ended = await deps.sessions.terminate(s.id, why.reason);
      if (ended?.status !== 'terminated' || ended.end_reason !== why.reason) return; // it ended otherwise
    } catch (error) {
      // The store refused the write: end it here all the same (its end is written when it closes).
      deps.sessions.terminateLive(s.id, `gatehouse: session terminated (${why.reason}: ${why.detail})`);
      deps.onError?.(error);
      return;
    }
    await deps.audit.record({
      type: 'session.terminated',
      actor: { kind: 'system', name: 'access-recheck' },
      target: s.resource,
      session_id: s.id,
      data: { reason: why.reason, detail: why.detail, principal: s.principal, login: s.login },
    });
  }

  let pending = noChanges();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function pass(): Promise<void> {
    timer = undefined;
    const changes = pending;
    pending = noChanges();
    const ending: Promise<void>[] = [];
    for (const id of deps.sessions.liveIds()) {
      const s = state.get<SessionRecord>(keys.session(id))?.value;
      if (s?.status !== 'active' || !touched(s, changes)) continue;
      const why = verdict(s);
      if (why) ending.push(end(s, why));
    }
    // Connections after their sessions: a door ends one once none of its sessions is left.
    for (const connection of deps.sessions.watchedConnections()) {
      if (!touched(connection.grounds, changes)) continue;
      const why = verdict(connection.grounds);
      if (why) connection.lost(why);
    }
    await Promise.all(ending);
  }

  function schedule(): void {
    if (timer) return;
    timer = setTimeout(() => {
      // Passes run one after another: a change noted during a pass gets a pass of its own after it.
      const next: Promise<void> = (running ?? Promise.resolve())
        .then(pass)
        .catch((error: unknown) => deps.onError?.(error))
        .finally(() => {
          if (running === next) running = undefined;
        });
      running = next;
    }, PASS_DELAY_MS);
    timer.unref();
  }

  /** Notes what a change may touch; false when no live session can stand on it. */
  function note(key: string): boolean {
    const rest = (prefix: string) => key.slice(prefix.length);
    if (key.startsWith(prefixes.tokens)) pending.tokens.add(rest(prefixes.tokens));
    else if (key.startsWith(prefixes.sshKeys)) pending.sshKeys.add(rest(prefixes.sshKeys));
    else if (key.startsWith(prefixes.users)) pending.principals.add(rest(prefixes.users));
    else if (key.startsWith(prefixes.agents)) pending.agents = true;
    else if (key.startsWith(prefixes.credentials)) pending.credentials.add(key.slice(key.lastIndexOf('/') + 1));
    else if (key.startsWith(prefixes.delegations))
      pending.principals.add(rest(prefixes.delegations).split('/')[0] ?? '');
    else if (key.startsWith(prefixes.roles) || key.startsWith(prefixes.resources)) pending.all = true;
    else return false;
    return true;
  }

  // With nothing held here nothing is noted: a session starting later passes the admission check.
  const unsubscribe = state.cache.onChange((key) => {
    if (deps.sessions.holdsAny && note(key)) schedule();
  });
  deps.sessions.setAdmission((input) => {
    const why = verdict(input);
    if (why) throw new SessionRefused(why.reason, why.detail);
  });

  return {
    /** Why a session (or one about to start) may not go on now, or undefined if it may. */
    verdict,
    close(): void {
      unsubscribe();
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
