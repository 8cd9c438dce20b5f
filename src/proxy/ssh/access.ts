// Who is connecting over SSH, and may they reach this server as this login. The same rules as the API
// (DESIGN.md §4): the server must be visible to the principal's roles (labels, deny wins) and the
// login must be one of the principal's logins; options resolve to the most restrictive.

import type { Principal } from '../../auth/principal.js';
import type { PrincipalPipeline, PrincipalScope } from '../../auth/principal-pipeline.js';
import { keys, type PrincipalRef } from '../../auth/records.js';
import type { StateStore } from '../../backend/state.js';
import type { SessionOptions } from '../../rbac/policy.js';

export type AuthMethod = NonNullable<Principal['method']>;

export interface ServerRef {
  id: string;
  name: string;
  address: string;
  labels: Record<string, string>;
}

export type AccessDecision =
  | { allowed: true; server: ServerRef; options: SessionOptions }
  | { allowed: false; reason: string; server?: ServerRef };

/** `login@server` (the last `@` splits, so a login may not contain one but nothing else is special). */
export function parseTarget(username: string): { login: string; server: string } | undefined {
  const at = username.lastIndexOf('@');
  if (at <= 0 || at === username.length - 1 || username.length > 300) return undefined;
  const login = username.slice(0, at);
  const server = username.slice(at + 1);
  // A login is a POSIX user name; refuse anything a shell or sshd would treat specially.
  if (!/^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/.test(login)) return undefined;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(server)) return undefined;
  return { login, server };
}

export type SshAccess = ReturnType<typeof createSshAccess>;

export function createSshAccess(deps: { state: StateStore; pipeline: Pick<PrincipalPipeline, 'tryResolve'> }) {
  const { state } = deps;

  function findServer(name: string): ServerRef | undefined {
    const ref = state.get<{ ref: string }>(keys.resourceName('server', name));
    const item = ref ? state.get<ServerRef & { kind: string }>(ref.value.ref) : undefined;
    return item?.value.kind === 'server' ? item.value : undefined;
  }

  return {
    findServer,
    /**
     * A principal by reference (an SSH key's owner, a ticket's holder with the scope it was issued
     * under), through the same pipeline as API tokens; undefined if it may not act now.
     */
    principal(ref: PrincipalRef, method: AuthMethod, scope: PrincipalScope = {}): Principal | undefined {
      const p = deps.pipeline.tryResolve(ref, scope);
      return p ? { ...p, method } : undefined;
    },

    authorize(principal: Principal, serverName: string, login: string): AccessDecision {
      const server = findServer(serverName);
      // A server the principal may not see does not exist for them (as the API answers 404).
      if (!server || !principal.policy.canSee({ kind: 'server', labels: server.labels })) {
        return { allowed: false, reason: `no server named ${serverName} that ${principal.name} may reach` };
      }
      const logins = principal.policy.logins();
      if (!logins.includes(login)) {
        const allowed = logins.length ? `allowed: ${logins.join(', ')}` : 'no login is allowed';
        return { allowed: false, server, reason: `login ${login} is not allowed on ${server.name} (${allowed})` };
      }
      return { allowed: true, server, options: principal.policy.options() };
    },
  };
}
