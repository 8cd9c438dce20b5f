// The principal's own proof, sent with a door's ask for a session's upstream credential (issue 29):
// the auth tier re-checks access for the principal a proxy names, and this is how it knows that
// principal is really connected, rather than merely named by a compromised proxy. A door forwards
// what the principal presented: the bearer access token (Kubernetes, apps, MCP, tokens typed as SSH
// or PostgreSQL passwords), the one-time ticket (SSH, PostgreSQL), or the SSH public key (registered,
// or a login certificate from the client CA) with the signature the client made over this login
// (its user name is `login@server`). One verifier for every door, used by the credential issuer; the
// SSH door resolves a key login through the same function (`sshKeyPrincipal`), so the two agree.
import { createHash } from 'node:crypto';
import ssh2 from 'ssh2';
import type { Principal } from '../auth/principal.js';
import type { PrincipalPipeline } from '../auth/principal-pipeline.js';
import type { PrincipalRef } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import type { Clock } from '../lib/clock.js';
import { originOf } from './session-origin.js';
import { type TicketRecord, ticketProofKey, ticketScope } from './tickets.js';

const { utils } = ssh2; // CommonJS: no named exports under Node's ESM loader

export type PrincipalProof =
  | { kind: 'token'; token: string }
  | { kind: 'ticket'; ticket: string }
  /** base64 of the key (or certificate) blob, the signature and the signed data, as the client sent them. */
  | { kind: 'ssh_key'; key: string; signature: string; data: string; hash_algo?: string };

/** Why a proof does not stand for the grounds named: the reason as audited, and what the proxy is told. */
export interface ProofRefusal {
  reason: 'proof_missing' | 'proof_invalid' | 'proof_other_principal' | 'proof_reused';
  detail: string;
}

/** Who the ask names, as the session record will. */
export interface ProofGrounds {
  principal: { kind: string; id: string };
  on_behalf_of?: { id: string };
  origin?: { method?: string; token?: { id: string }; ssh_key_id?: string; scope?: unknown };
  resource: { id: string; name: string };
  login: string;
}

/** A signature over an SSH login is taken once (one connection asks once); kept this long. */
const SSH_PROOF_TTL_MS = 60 * 60_000;
export const SSH_PROOF_PREFIX = 'cluster/ssh-proofs/';

export type PrincipalProofs = ReturnType<typeof createPrincipalProofs>;

export function createPrincipalProofs(deps: {
  state: Pick<StateStore, 'get' | 'insert' | 'remove'>;
  clock: Clock;
  tokens: { resolve(token: string): { principal: Principal } };
  pipeline: Pick<PrincipalPipeline, 'tryResolve'>;
  findKeyOwner(blob: Buffer): (PrincipalRef & { keyId?: string }) | undefined;
  certificates?: {
    recognizes(blob: Buffer): boolean;
    authenticate(blob: Buffer, signature: Buffer, data: Buffer): Principal | undefined;
  };
}) {
  /** A key login: a login certificate, or a registered key, with the client's signature over `data`. */
  function sshKeyPrincipal(key: Buffer, signature: Buffer, data: Buffer, hashAlgo?: string): Principal | undefined {
    if (deps.certificates?.recognizes(key)) return deps.certificates.authenticate(key, signature, data);
    const owner = deps.findKeyOwner(key);
    if (!owner) return undefined;
    const parsed = utils.parseKey(key);
    if (parsed instanceof Error || Array.isArray(parsed)) return undefined;
    if (parsed.verify(data, signature, hashAlgo as never) !== true) return undefined;
    // The key is the session's origin: removing it ends what it opened (session-guard.ts).
    const p = deps.pipeline.tryResolve(owner, owner.keyId ? { ssh_key_id: owner.keyId } : {});
    return p ? { ...p, method: 'publickey' } : undefined; // suspended, revoked or deleted
  }

  /** The principal a proof stands for now, or why not. */
  async function principalOf(proof: PrincipalProof, g: ProofGrounds): Promise<Principal | ProofRefusal> {
    const invalid = (detail: string): ProofRefusal => ({ reason: 'proof_invalid', detail });
    if (proof.kind === 'token') {
      if (typeof proof.token !== 'string') return invalid('a token proof carries the token');
      try {
        return deps.tokens.resolve(proof.token).principal;
      } catch (error) {
        return invalid(`the token does not stand: ${(error as Error).message}`);
      }
    }
    if (proof.kind === 'ticket') {
      if (typeof proof.ticket !== 'string' || proof.ticket.length > 100) return invalid('a ticket proof carries it');
      // Written by the auth tier when it issued the ticket, under cluster/ (no proxy reads or writes it).
      const key = ticketProofKey(proof.ticket);
      const item = deps.state.get<TicketRecord>(key);
      if (!item || (item.expiresAt !== undefined && item.expiresAt <= deps.clock()))
        return invalid('no such ticket, or it expired');
      const grant = item.value;
      const resource = grant.server_id ?? grant.database_id;
      if (grant.login !== g.login || resource !== g.resource.id)
        return { reason: 'proof_other_principal', detail: 'the ticket was issued for another target or login' };
      try {
        await deps.state.remove(key, { revision: item.revision }); // one credential per ticket
      } catch {
        return { reason: 'proof_reused', detail: 'this ticket already opened a session' };
      }
      const p = deps.pipeline.tryResolve(grant.principal, ticketScope(grant));
      return p ? { ...p, method: 'ticket' } : invalid('the ticket’s holder may not act now');
    }
    if (proof.kind === 'ssh_key') {
      const [key, signature, data] = [proof.key, proof.signature, proof.data].map((s) =>
        typeof s === 'string' ? Buffer.from(s, 'base64') : Buffer.alloc(0),
      ) as [Buffer, Buffer, Buffer];
      // The client signed this login's request: its user name must be the grounds' login@server.
      if (signedUser(data, key) !== `${g.login}@${g.resource.name}`)
        return { reason: 'proof_other_principal', detail: 'the signature is over another login or key' };
      const p = sshKeyPrincipal(key, signature, data, proof.hash_algo);
      if (!p) return invalid('the key is not registered, not certified now, or the signature is not its own');
      try {
        const digest = createHash('sha256').update(signature).digest('hex');
        await deps.state.insert(
          `${SSH_PROOF_PREFIX}${digest}`,
          { at: deps.clock() },
          {
            expiresAt: deps.clock() + SSH_PROOF_TTL_MS,
          },
        );
      } catch {
        return { reason: 'proof_reused', detail: 'this signature already opened a connection' };
      }
      return p;
    }
    return invalid('a proof is a token, a ticket or an ssh_key');
  }

  return {
    sshKeyPrincipal,
    /** undefined: the proof is the named principal's, live, as the grounds say it came. */
    async verify(proof: PrincipalProof | undefined, g: ProofGrounds): Promise<ProofRefusal | undefined> {
      if (!proof || typeof proof !== 'object')
        return {
          reason: 'proof_missing',
          detail: 'the principal’s own proof (token, ticket or SSH signature) is required',
        };
      const p = await principalOf(proof, g);
      if ('reason' in p) return p;
      const named = JSON.stringify(who(g));
      const proven = JSON.stringify(who({ ...g, ...sessionSide(p) }));
      if (named !== proven)
        return {
          reason: 'proof_other_principal',
          detail: `the proof is ${p.kind} ${p.name}'s, not as the ask names it`,
        };
      return undefined;
    },
  };
}

/** What must match between the ask and the proof: who, for whom, and how (token, key, scope). */
function who(g: ProofGrounds) {
  const o = g.origin ?? {};
  return [g.principal.kind, g.principal.id, g.on_behalf_of?.id, o.method, o.token?.id, o.ssh_key_id, o.scope];
}

function sessionSide(p: Principal): Pick<ProofGrounds, 'principal' | 'on_behalf_of' | 'origin'> {
  return {
    principal: { kind: p.kind, id: p.id },
    ...(p.onBehalfOf ? { on_behalf_of: p.onBehalfOf } : {}),
    origin: originOf(p),
  };
}

/**
 * The user name in an SSH publickey userauth request (RFC 4252 §7: session id, 50, user, service,
 * "publickey", TRUE, algorithm, key), if `data` is one for `key`.
 */
function signedUser(data: Buffer, key: Buffer): string | undefined {
  try {
    let at = 0;
    const str = () => {
      const n = data.readUInt32BE(at);
      const v = data.subarray(at + 4, at + 4 + n);
      if (v.length !== n) throw new Error('truncated');
      at += 4 + n;
      return v;
    };
    str(); // session id
    if (data[at++] !== 50) return undefined;
    const user = str().toString();
    if (str().toString() !== 'ssh-connection' || str().toString() !== 'publickey' || data[at++] !== 1) return undefined;
    str(); // algorithm
    return str().equals(key) && at === data.length ? user : undefined;
  } catch {
    return undefined;
  }
}
