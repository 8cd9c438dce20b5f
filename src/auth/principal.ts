// Who is calling: the principal a bearer token resolves to, with its compiled policy.
import type { Policy } from '../rbac/policy.js';
import type { PrincipalKind } from './records.js';

/** A stored access token by its id (keys.token) and expiry (epoch ms). */
export interface TokenRef {
  id: string;
  expires_at?: number;
}

export interface PrincipalName {
  kind: PrincipalKind;
  id: string;
  name: string;
}

export interface Principal {
  kind: PrincipalKind;
  id: string;
  name: string;
  /** For an agent: the roles this token may use (a scoped credential narrows the agent's). */
  roles: readonly string[];
  /** For an agent: the accountable user, whose permissions bound the agent's. */
  owner?: string;
  /** For an agent acting for a user through token exchange (RFC 8693): that user. */
  onBehalfOf?: PrincipalName;
  /** For an agent: the credential the token belongs to, if any. */
  credentialId?: string;
  /** For an agent: its request budget per minute. */
  requestsPerMinute?: number;
  /** The bearer token it came with (absent for an SSH key or a ticket), and when it expires (epoch ms). */
  token?: { id: string; family: string; expires_at?: number };
  /** The SSH key it logged in with: removing the key ends the sessions it opened. */
  sshKeyId?: string;
  /** A ticket's holder: the access token the ticket was asked with; revoking it ends the session. */
  ticketToken?: TokenRef;
  policy: Policy;
  /** How it proved itself, when a proxy needs to say (SSH: publickey, token or ticket). */
  method?: 'token' | 'publickey' | 'ticket';
}

/** What services need to know about the request that asks them to act. */
export interface RequestContext {
  principal?: Principal;
  remoteAddr: string;
  requestId: string;
  /** Set for Gatehouse's own actions (bootstrap, background jobs), which have no principal. */
  system?: string;
  /**
   * The entity tags of If-Match on a change of one object (collection-routes.ts): the change applies
   * only to the object at one of these versions (preconditions.ts). Absent: no precondition.
   */
  ifMatch?: readonly string[];
}

/**
 * Marks an audit actor that acts for someone else. A symbol, so it never reaches the stored event by
 * itself: the delegation trail (delegation-trail.ts) turns it into `data.on_behalf_of`.
 */
export const ON_BEHALF_OF: unique symbol = Symbol('on_behalf_of');

export interface Actor {
  kind: 'user' | 'agent' | 'system' | 'anonymous';
  id?: string;
  name?: string;
  [ON_BEHALF_OF]?: PrincipalName;
}

/** The audit actor of a principal; one acting for a user carries that user (the delegation trail). */
export function actorOfPrincipal(p: Pick<Principal, 'kind' | 'id' | 'name' | 'onBehalfOf'>): Actor {
  const actor: Actor = { kind: p.kind, id: p.id, name: p.name };
  if (p.onBehalfOf) actor[ON_BEHALF_OF] = p.onBehalfOf;
  return actor;
}

export function actorOf(ctx: RequestContext): Actor {
  if (ctx.principal) return actorOfPrincipal(ctx.principal);
  return ctx.system ? { kind: 'system', name: ctx.system } : { kind: 'anonymous' };
}

export function eventContext(ctx: RequestContext): { remote_addr: string; request_id: string } {
  return { remote_addr: ctx.remoteAddr, request_id: ctx.requestId };
}
