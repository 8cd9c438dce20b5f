// Who is connecting over SSH, and may they reach this server as this login: the shared access
// checker decides (one role must select the server and allow the login; denies apply across roles);
// this file only adds what is SSH's own (the `login@server` user name, principals by reference).

import type { AccessChecker, ResourceRef } from '../../access/access-checker.js';
import type { Principal } from '../../auth/principal.js';
import type { PrincipalPipeline, PrincipalScope } from '../../auth/principal-pipeline.js';
import type { PrincipalRef } from '../../auth/records.js';
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

export function createSshAccess(deps: {
  /** The one access checker, built by the composition root. */
  checker: Pick<AccessChecker, 'find' | 'authorize'>;
  pipeline: Pick<PrincipalPipeline, 'tryResolve'>;
}) {
  const { checker } = deps;
  const findServer = (name: string): ServerRef | undefined => checker.find<ServerRef & ResourceRef>('server', name);

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
      const d = checker.authorize<ServerRef & ResourceRef>(principal, { kind: 'server', name: serverName }, [
        { field: 'logins', value: login },
      ]);
      if (d.allowed) return { allowed: true, server: d.resource, options: d.options };
      return { allowed: false, reason: d.reason, ...(d.resource ? { server: d.resource } : {}) };
    },
  };
}
