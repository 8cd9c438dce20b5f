// What opened a session, kept on its record so that a live session can be checked again when what
// it stands on changes (session-guard.ts): the token, SSH key or ticket it came with, and the scope
// it acts under. Never answered by the API (the session schema leaves it out).
import type { Principal, TokenRef } from '../auth/principal.js';
import type { PrincipalScope } from '../auth/principal-pipeline.js';

export interface SessionOrigin {
  method: NonNullable<Principal['method']>;
  /** The access token it was opened with or, for a ticket, the one the ticket was asked with. */
  token?: TokenRef;
  /** The SSH key it logged in with. */
  ssh_key_id?: string;
  /** An agent credential's roles and id, the user a delegated agent acts for. */
  scope: Pick<PrincipalScope, 'roles' | 'credential_id' | 'on_behalf_of'>;
}

/** The origin of a session a principal opens now. */
export function originOf(p: Principal): SessionOrigin {
  const token: TokenRef | undefined = p.token
    ? { id: p.token.id, ...(p.token.expires_at !== undefined ? { expires_at: p.token.expires_at } : {}) }
    : p.ticketToken;
  return {
    method: p.method ?? (p.token ? 'token' : p.sshKeyId ? 'publickey' : 'ticket'),
    ...(token ? { token } : {}),
    ...(p.sshKeyId !== undefined ? { ssh_key_id: p.sshKeyId } : {}),
    scope: {
      ...(p.kind === 'agent' ? { roles: [...p.roles] } : {}),
      ...(p.credentialId ? { credential_id: p.credentialId } : {}),
      ...(p.onBehalfOf ? { on_behalf_of: { kind: 'user', id: p.onBehalfOf.id } } : {}),
    },
  };
}
