// Who is calling: the principal a bearer token resolves to, with its compiled policy.
import type { Policy } from '../rbac/policy.js';
import type { PrincipalKind } from './records.js';

export interface Principal {
  kind: PrincipalKind;
  id: string;
  name: string;
  roles: readonly string[];
  /** For an agent: the accountable user, whose permissions bound the agent's. */
  owner?: string;
  tokenHash: string;
  tokenFamily: string;
  policy: Policy;
}

/** What services need to know about the request that asks them to act. */
export interface RequestContext {
  principal?: Principal;
  remoteAddr: string;
  requestId: string;
  /** Set for Gatehouse's own actions (bootstrap, background jobs), which have no principal. */
  system?: string;
}

export function actorOf(ctx: RequestContext): {
  kind: 'user' | 'agent' | 'system' | 'anonymous';
  id?: string;
  name?: string;
} {
  const p = ctx.principal;
  if (p) return { kind: p.kind, id: p.id, name: p.name };
  return ctx.system ? { kind: 'system', name: ctx.system } : { kind: 'anonymous' };
}

export function eventContext(ctx: RequestContext): { remote_addr: string; request_id: string } {
  return { remote_addr: ctx.remoteAddr, request_id: ctx.requestId };
}
