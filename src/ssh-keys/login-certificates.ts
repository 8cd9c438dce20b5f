// SSH certificates for a login (`gatehouse login` → POST /v1/ssh/certificates): the client's own
// ed25519 key, signed by Gatehouse's client CA (user-ca-store.ts CLIENT_CA, never trusted by
// targets), valid no longer than the access token that asked for it, its key id naming the login and
// that token. The SSH proxy accepts such a certificate only while that token still stands: a logout
// (the login revoked), a revoked key or a disabled principal refuses it at once, and sessions opened
// with it carry the token as their origin, so the session guard ends them too.
import { createHash, verify } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import type { ResolvedToken } from '../auth/token-service.js';
import { GatehouseError } from '../lib/errors.js';
import type { UserCa } from './user-ca.js';

const CERT_TYPE = 'ssh-ed25519-cert-v01@openssh.com';
const KEY_ID = /^gatehouse login=([A-Za-z0-9_-]+) token=([0-9a-f-]{64,80}) (user|agent):\S+$/;
/** Not a POSIX user name (':' cannot be in one), so a target could never take it for a login. */
const principalName = (p: Principal) => `gatehouse:${p.kind}:${p.name}`;

export interface LoginCertificate {
  certificate: string;
  key_id: string;
  valid_after: string;
  valid_before: string;
}

export type LoginCertificates = ReturnType<typeof createLoginCertificates>;

export function createLoginCertificates(deps: {
  ca: UserCa;
  tokens: { resolveById(id: string): ResolvedToken };
  audit: Pick<AuditLog, 'record'>;
  clock: () => number;
}) {
  return {
    /** Certifies the caller's public key ("ssh-ed25519 AAAA… comment") until its access token expires. */
    async issue(ctx: RequestContext & { principal: Principal }, publicKeyLine: string): Promise<LoginCertificate> {
      const principal = ctx.principal;
      const token = principal.token;
      if (!token?.expires_at)
        throw new GatehouseError('forbidden', 'only a login (a bearer access token) gets a certificate');
      const [type, data] = publicKeyLine.trim().split(/\s+/);
      if (type !== 'ssh-ed25519' || !data) throw invalidKey('an ssh-ed25519 public key line ("ssh-ed25519 AAAA…")');
      const blob = Buffer.from(data, 'base64');
      const ttlSeconds = Math.floor((token.expires_at - deps.clock()) / 1000);
      if (ttlSeconds <= 0) throw new GatehouseError('token_expired', 'the access token has expired');
      const keyId = `gatehouse login=${token.family} token=${token.id} ${principal.kind}:${principal.name.replace(/\s+/g, '_')}`;
      let signed: ReturnType<UserCa['certify']>;
      try {
        signed = deps.ca.certify(blob, {
          login: 'gatehouse-client',
          principal: principalName(principal),
          keyId,
          ttlSeconds,
          now: new Date(deps.clock()),
          permitPortForwarding: true,
        });
      } catch (e) {
        throw invalidKey((e as Error).message);
      }
      // A credential that opens the SSH proxy: who got one, for which key, until when (never the certificate itself).
      await deps.audit.record({
        type: 'auth.ssh_certificate.issued',
        actor: actorOf(ctx),
        target: { kind: principal.kind, id: principal.id, name: principal.name },
        ...eventContext(ctx),
        data: {
          key_id: keyId,
          fingerprint: `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`,
          valid_before: signed.validBefore.toISOString(),
        },
      });
      return {
        certificate: signed.certificate,
        key_id: keyId,
        valid_after: signed.validAfter.toISOString(),
        valid_before: signed.validBefore.toISOString(),
      };
    },

    /** Is this an OpenSSH certificate signed by the client CA? (The SSH proxy's "would you accept this key".) */
    recognizes(blob: Buffer): boolean {
      return parseCertificate(blob, deps.ca.publicBlob) !== undefined;
    },

    /**
     * The principal a certificate login acts as, or undefined: the CA's signature, the validity window,
     * the holder's signature over the session (`data`), and the login's token still standing.
     */
    authenticate(blob: Buffer, signature: Buffer, data: Buffer): Principal | undefined {
      const cert = parseCertificate(blob, deps.ca.publicBlob);
      if (!cert) return undefined;
      const now = Math.floor(deps.clock() / 1000);
      if (now < cert.validAfter || now >= cert.validBefore) return undefined;
      const sig = readString(signature, 0);
      if (sig?.value.toString() !== 'ssh-ed25519') return undefined;
      const raw = readString(signature, sig.next)?.value;
      if (!raw || !verify(null, data, ed25519Key(cert.publicKey), raw)) return undefined;
      const id = KEY_ID.exec(cert.keyId);
      if (!id) return undefined;
      try {
        const { record, principal } = deps.tokens.resolveById(id[2] as string);
        if (record.family !== id[1]) return undefined;
        return { ...principal, method: 'publickey' };
      } catch {
        return undefined; // revoked, expired, deleted: the login no longer stands
      }
    },
  };
}

const invalidKey = (why: string) =>
  new GatehouseError('invalid_request', `public_key: ${why}`, { errors: [{ path: '/body/public_key', message: why }] });

interface ParsedCertificate {
  publicKey: Buffer;
  keyId: string;
  validAfter: number;
  validBefore: number;
}

/** PROTOCOL.certkeys for ssh-ed25519 user certificates, checked against the CA's key and signature. */
function parseCertificate(blob: Buffer, caBlob: Buffer): ParsedCertificate | undefined {
  try {
    let at = 0;
    const next = () => {
      const s = readString(blob, at);
      if (!s) throw new Error('truncated');
      at = s.next;
      return s.value;
    };
    if (next().toString() !== CERT_TYPE) return undefined;
    next(); // nonce
    const publicKey = next();
    at += 8; // serial
    const type = blob.readUInt32BE(at);
    at += 4;
    const keyId = next().toString();
    next(); // principals (the proxy's user name says the login)
    const validAfter = Number(blob.readBigUInt64BE(at));
    const validBefore = Number(blob.readBigUInt64BE(at + 8));
    at += 16;
    if (next().length !== 0) return undefined; // critical options: none are issued, none are honoured
    next(); // extensions
    next(); // reserved
    const signatureKey = next();
    const signedEnd = at;
    const signature = next();
    if (type !== 1 || publicKey.length !== 32 || !signatureKey.equals(caBlob) || at !== blob.length) return undefined;
    const algo = readString(signature, 0);
    const raw = algo && readString(signature, algo.next);
    if (algo?.value.toString() !== 'ssh-ed25519' || !raw) return undefined;
    const caKey = readString(caBlob, readString(caBlob, 0)?.next ?? 0)?.value;
    if (!caKey || !verify(null, blob.subarray(0, signedEnd), ed25519Key(caKey), raw.value)) return undefined;
    return { publicKey, keyId, validAfter, validBefore };
  } catch {
    return undefined;
  }
}

function readString(buf: Buffer, at: number): { value: Buffer; next: number } | undefined {
  if (at + 4 > buf.length) return undefined;
  const len = buf.readUInt32BE(at);
  if (at + 4 + len > buf.length) return undefined;
  return { value: buf.subarray(at + 4, at + 4 + len), next: at + 4 + len };
}

/** A raw 32-byte ed25519 public key as a node:crypto key (SPKI DER: a fixed prefix, then the key). */
function ed25519Key(raw: Buffer) {
  return {
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]),
    format: 'der' as const,
    type: 'spki' as const,
  };
}
