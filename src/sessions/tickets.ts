// One-time connection tickets (POST /v1/sessions): a random secret usable once, within 60 s, as the
// SSH password for one server and login, or the PostgreSQL password for one database, user and
// name. Stored only as a SHA-256 hash, like every other secret.
import { createHash } from 'node:crypto';
import type { TokenRef } from '../auth/principal.js';
import type { PrincipalScope } from '../auth/principal-pipeline.js';
import type { PrincipalRef } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import type { Clock } from '../lib/clock.js';
import { randomBytes } from '../lib/random.js';

export const TICKET_PREFIX = 'ghs_';
export const TICKET_TTL_MS = 60_000;

export interface TicketRecord {
  principal: PrincipalRef;
  /** SSH tickets: the server; database tickets name database_id and db_name instead. */
  server_id?: string;
  database_id?: string;
  /** SSH: the login; database: the database user. */
  login: string;
  db_name?: string;
  /** The scope the ticket was asked under: an agent credential's roles, and the user it acts for. */
  roles?: string[];
  credential_id?: string;
  on_behalf_of?: PrincipalRef;
  /** The access token it was asked with: revoking that token ends the session the ticket opened. */
  ticket_token?: TokenRef;
  expires_at: number;
}

/** The scope a redeemed ticket acts under, for the principal pipeline: as it was asked for. */
export const ticketScope = (grant: TicketRecord): PrincipalScope => ({
  ...(grant.roles ? { roles: grant.roles } : {}),
  ...(grant.credential_id ? { credential_id: grant.credential_id } : {}),
  ...(grant.on_behalf_of ? { on_behalf_of: grant.on_behalf_of } : {}),
  ...(grant.ticket_token ? { ticket_token: grant.ticket_token } : {}),
});

const ticketKey = (hash: string) => `tickets/${hash}`;
const hashOf = (ticket: string) => createHash('sha256').update(ticket).digest('hex');
/**
 * The auth tier's own copy of a ticket's grant, under cluster/ (no proxy reads or writes it): what the
 * credential issuer checks the ticket against when a door forwards it as its holder's proof
 * (principal-proof.ts), after the door has redeemed (deleted) the ticket itself.
 */
export const ticketProofKey = (ticket: string) => `cluster/ticket-proofs/${hashOf(ticket)}`;
const PROOF_GRACE_MS = 60_000;

export type TicketService = ReturnType<typeof createTicketService>;

export function createTicketService(deps: { state: StateStore; clock: Clock }) {
  return {
    async issue(input: Omit<TicketRecord, 'expires_at'>): Promise<{ ticket: string; expiresAt: number }> {
      const ticket = `${TICKET_PREFIX}${randomBytes(32).toString('base64url')}`;
      const expiresAt = deps.clock() + TICKET_TTL_MS;
      const value = JSON.stringify({ ...input, expires_at: expiresAt } satisfies TicketRecord);
      const key = ticketKey(hashOf(ticket));
      await deps.state.write(
        [{ key, is: 'absent' }],
        [
          { type: 'put', key, value, expiresAt },
          { type: 'put', key: ticketProofKey(ticket), value, expiresAt: expiresAt + PROOF_GRACE_MS },
        ],
      );
      return { ticket, expiresAt };
    },
    /** The ticket's grant, consumed: a second use (or a use after 60 s) finds nothing. */
    async redeem(ticket: string): Promise<TicketRecord | undefined> {
      if (!ticket.startsWith(TICKET_PREFIX) || ticket.length > 100) return undefined;
      const item = deps.state.get<TicketRecord>(ticketKey(hashOf(ticket)));
      if (!item) return undefined;
      try {
        // Deleting at the revision read makes the use single even if two connections race.
        await deps.state.remove(item.key, { revision: item.revision });
      } catch {
        return undefined;
      }
      return item.value.expires_at > deps.clock() ? item.value : undefined;
    },
  };
}
