// The door kit's credential step: a secret presented at a door (typed as a password, sent as a
// bearer token) becomes a principal through the same pipeline as the API's tokens, and every
// failure counts against the caller's address and the secret itself in the shared login throttle
// (auth/login-throttle.ts: a valid secret is never throttled). A one-time ticket is redeemed once
// and must fit the door's target (its server and login; its database, user and name); a door that
// takes no tickets (Kubernetes, apps) leaves it unredeemed, so sending one there does not burn it.
import type { Principal } from '../../auth/principal.js';
import type { PrincipalPipeline } from '../../auth/principal-pipeline.js';
import type { TokenService } from '../../auth/token-service.js';
import { hashSecret } from '../../lib/secrets.js';
import type { PrincipalProof } from '../../sessions/principal-proof.js';
import { TICKET_PREFIX, type TicketRecord, type TicketService, ticketScope } from '../../sessions/tickets.js';

export interface DoorCredentialDeps {
  pipeline: Pick<PrincipalPipeline, 'tryResolve'>;
  tokens: Pick<TokenService, 'authenticate' | 'loginFailed'>;
  tickets: Pick<TicketService, 'redeem'>;
}

/** Why a credential was refused: a ticket that does not fit, a token that is not valid, or too many failures. */
export type CredentialFailure = 'ticket' | 'token' | 'throttled';

/**
 * `proof`: the secret as presented, for the door's ask for the session's upstream credential (the
 * auth tier checks it is this principal's: sessions/principal-proof.ts). Held in memory only.
 */
export type CredentialResult =
  | { principal: Principal; proof: PrincipalProof }
  | { failure: CredentialFailure; detail: string };

export async function authenticateDoorCredential(
  deps: DoorCredentialDeps,
  c: {
    door: 'ssh' | 'db' | 'kube' | 'app';
    secret: string;
    remoteAddr: string;
    /**
     * Whether a redeemed ticket was issued for what this connection asks (checked after redeeming:
     * one use). Absent: the door takes no tickets.
     */
    ticketFits?(grant: TicketRecord): boolean;
  },
): Promise<CredentialResult> {
  // The secret's hash is the throttle's key; only a failure needs it (a valid token is never counted).
  const failed = async (failure: CredentialFailure, detail: string): Promise<CredentialResult> => {
    const error = await deps.tokens.loginFailed(
      { remoteAddr: c.remoteAddr, requestId: c.door },
      `${c.door}: ${detail}`,
      'invalid_token',
      hashSecret(c.secret),
    );
    return error.code === 'rate_limited' ? { failure: 'throttled', detail: error.detail } : { failure, detail };
  };
  if (c.secret.startsWith(TICKET_PREFIX)) {
    if (!c.ticketFits) return failed('ticket', 'this door takes a Gatehouse access token, not a ticket');
    const grant = await deps.tickets.redeem(c.secret);
    if (grant && c.ticketFits(grant)) {
      // The ticket carries the scope it was asked under (credential roles, the user acted for).
      const p = deps.pipeline.tryResolve(grant.principal, ticketScope(grant));
      if (p) return { principal: { ...p, method: 'ticket' }, proof: { kind: 'ticket', ticket: c.secret } };
    }
    return failed('ticket', 'invalid, used or expired ticket');
  }
  try {
    return { principal: deps.tokens.authenticate(c.secret), proof: { kind: 'token', token: c.secret } };
  } catch (error) {
    return failed('token', (error as Error).message);
  }
}
