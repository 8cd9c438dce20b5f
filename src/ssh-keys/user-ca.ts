// Gatehouse's SSH user CA: short-lived OpenSSH user certificates that a target sshd accepts through
// `TrustedUserCAKeys`, and the ssh2 client glue to log in with them.
//
//   const ca = createUserCa(caPrivateKeyText);            // target: TrustedUserCAKeys <ca.publicKey>
//   const cert = ca.issue({ login: 'root', keyId: 'gatehouse session s_123 principal=u_1', ttlSeconds: 300 });
//   client.connect({ host, port, username: 'root', authHandler: [cert.authMethod] });
//
// Why two parts, and why not a library:
//
// - Certificates are encoded here (PROTOCOL.certkeys in OpenSSH: RFC 4251 strings and integers) and
//   signed with node's own ed25519 (crypto.sign(null, …)); no cryptography is written here. sshpk
//   can emit OpenSSH certificates but has no API for the key id or the extensions (permit-pty …):
//   Certificate.create always writes none, so using it would mean mutating its undocumented
//   `signatures.openssh` and re-signing. The format is small and the tests check it against a real
//   sshd and `ssh-keygen -L`.
//
// - ssh2's client has no certificate support (mscdex/ssh2#551). It does accept a parsed key whose
//   `type` is `ssh-ed25519-cert-v01@openssh.com` and whose getPublicSSH() is the certificate (sshd
//   answers PK_OK), but Protocol#authPK (ssh2 1.17 lib/protocol/Protocol.js: keyAlgo = key.type at
//   line 647, written at 727 as the request's algorithm and at 735 as the signature blob's) names the
//   same algorithm twice, and for a certificate the signature blob
//   must name the base algorithm (`ssh-ed25519`): sshd then fails with "key type does not match".
//   There is no option or agent hook to change that (an agent's signature goes through the same
//   authPK), so installCertificateAuth() wraps Protocol#authPK once: for keys issued here (marked by a
//   private symbol) and only for the signed request it builds the packet itself, as ssh2 does, with
//   the signature blob naming the base algorithm; everything else goes to ssh2's own authPK.
import { createPrivateKey, randomBytes, sign } from 'node:crypto';
import { createRequire } from 'node:module';
import ssh2, { type ParsedKey } from 'ssh2';
import { generateEd25519 as generateKeyPair } from '../lib/ssh-keygen.js';

const { utils } = ssh2; // ssh2 is CommonJS: no named exports under Node's ESM loader

const CERT_TYPE = 'ssh-ed25519-cert-v01@openssh.com';
const BASE_TYPE = 'ssh-ed25519';
const SSH2_CERT_TYPE_USER = 1;
/** Certificates start this long before now, so a target whose clock is slightly behind accepts them. */
export const CLOCK_SKEW_SECONDS = 60;
/** The longest certificate issue() signs: these are per-session credentials, not keys to keep. */
export const MAX_TTL_SECONDS = 24 * 3600;

export interface IssueOptions {
  /** The target account: the certificate's only principal, and the username to log in with. */
  login: string;
  /** The certificate's principal when it is not a login (a client certificate names its holder). */
  principal?: string;
  /** Shown by sshd in its log ("Accepted certificate ID …"): name the Gatehouse session and principal. */
  keyId: string;
  ttlSeconds: number;
  /** The permit-pty extension (default true): without it sshd refuses a terminal. */
  permitPty?: boolean;
  /** The permit-port-forwarding extension (default false). */
  permitPortForwarding?: boolean;
  /** The issuing time (tests); the certificate is valid from now − CLOCK_SKEW_SECONDS to now + ttlSeconds. */
  now?: Date;
}

/** What ssh2's client authenticates with: `authHandler: [issued.authMethod]`. */
export interface CertificateAuthMethod {
  type: 'publickey';
  username: string;
  key: ParsedKey;
}

export interface IssuedCertificate {
  /**
   * The fresh ed25519 key with its certificate, as an ssh2 parsed key. ssh2's `connect({ privateKey })`
   * only takes a string or Buffer (ssh2 1.17 lib/client.js, `this.config.privateKey = …`), so pass it
   * through `authHandler` (see authMethod); it never leaves this process.
   */
  privateKey: ParsedKey;
  /** `{ type: 'publickey', username: login, key: privateKey }`, ready for `authHandler`. */
  authMethod: CertificateAuthMethod;
  /** OpenSSH certificate line ("ssh-ed25519-cert-v01@openssh.com AAAA… keyId"), for logs and tests. */
  certificate: string;
  keyId: string;
  serial: bigint;
  validAfter: Date;
  validBefore: Date;
}

export interface UserCa {
  /** OpenSSH public-key line for the target's TrustedUserCAKeys file. */
  publicKey: string;
  /** The CA's public key in wire format (what a certificate names as its signature key). */
  publicBlob: Buffer;
  issue(opts: IssueOptions): IssuedCertificate;
  /** A certificate for a key someone else holds (an ed25519 public key in wire format). */
  certify(
    publicKeyBlob: Buffer,
    opts: IssueOptions,
  ): { certificate: string; blob: Buffer; serial: bigint; validAfter: Date; validBefore: Date };
}

/** A new ed25519 CA key as OpenSSH private-key text (what createUserCa reads). */
export function generateUserCaKey(comment = 'gatehouse-user-ca'): string {
  return generateEd25519(comment).text;
}

function generateEd25519(comment?: string): { text: string; key: ParsedKey } {
  const pair = generateKeyPair(comment);
  return { text: pair.private, key: pair.key };
}

export function createUserCa(caPrivateKeyOpenSsh: string, passphrase?: string): UserCa {
  const parsed = firstKey(utils.parseKey(caPrivateKeyOpenSsh, passphrase), 'CA key');
  if (parsed.type !== BASE_TYPE) throw new Error(`the CA key must be ${BASE_TYPE}, not ${parsed.type}`);
  const pem = parsed.getPrivatePEM();
  if (!pem) throw new Error('the CA key has no private part');
  const caKey = createPrivateKey(pem);
  const caPublicBlob = parsed.getPublicSSH();
  const publicKey = `${BASE_TYPE} ${caPublicBlob.toString('base64')} ${parsed.comment || 'gatehouse-user-ca'}`;
  installCertificateAuth();

  return {
    publicKey,
    issue(opts) {
      checkIssueOptions(opts);
      const user = generateEd25519().key;
      const userPublic = readBlob(user.getPublicSSH());
      if (userPublic.type !== BASE_TYPE || userPublic.rest.length !== 32 + 4) {
        throw new Error('unexpected ed25519 public key encoding');
      }
      const signed = signCertificate(userPublic.rest, opts);
      const key = certifiedKey(user, signed.blob);
      return {
        privateKey: key,
        authMethod: { type: 'publickey', username: opts.login, key },
        certificate: `${CERT_TYPE} ${signed.blob.toString('base64')} ${opts.keyId.replace(/\s+/g, '_')}`,
        keyId: opts.keyId,
        serial: signed.serial,
        validAfter: signed.validAfter,
        validBefore: signed.validBefore,
      };
    },
    certify(publicKeyBlob, opts) {
      checkIssueOptions(opts);
      const given = readBlob(publicKeyBlob);
      if (given.type !== BASE_TYPE || given.rest.length !== 32 + 4)
        throw new Error('only ssh-ed25519 keys can be certified');
      const signed = signCertificate(given.rest, opts);
      return {
        certificate: `${CERT_TYPE} ${signed.blob.toString('base64')} ${opts.keyId.replace(/\s+/g, '_')}`,
        blob: signed.blob,
        serial: signed.serial,
        validAfter: signed.validAfter,
        validBefore: signed.validBefore,
      };
    },
    publicBlob: caPublicBlob,
  };

  /** PROTOCOL.certkeys: the to-be-signed body for an ed25519 key (its wire-format rest), then the CA's signature. */
  function signCertificate(userPublicRest: Buffer, opts: IssueOptions) {
    const now = Math.floor((opts.now?.getTime() ?? Date.now()) / 1000);
    const validAfter = now - CLOCK_SKEW_SECONDS;
    const validBefore = now + opts.ttlSeconds;
    const serial = randomBytes(8).readBigUInt64BE();
    const extensions = [
      ...(opts.permitPortForwarding ? ['permit-port-forwarding'] : []),
      ...((opts.permitPty ?? true) ? ['permit-pty'] : []),
    ].sort();
    const toSign = Buffer.concat([
      str(CERT_TYPE),
      str(randomBytes(32)), // nonce
      userPublicRest, // string pk (already length-prefixed)
      u64(serial),
      u32(SSH2_CERT_TYPE_USER),
      str(opts.keyId),
      str(Buffer.concat([str(opts.principal ?? opts.login)])), // valid principals
      u64(BigInt(validAfter)),
      u64(BigInt(validBefore)),
      str(Buffer.alloc(0)), // critical options: none
      str(Buffer.concat(extensions.flatMap((name) => [str(name), str(Buffer.alloc(0))]))),
      str(Buffer.alloc(0)), // reserved
      str(caPublicBlob),
    ]);
    const signature = sign(null, toSign, caKey);
    const blob = Buffer.concat([toSign, str(Buffer.concat([str(BASE_TYPE), str(signature)]))]);
    return { blob, serial, validAfter: new Date(validAfter * 1000), validBefore: new Date(validBefore * 1000) };
  }
}

function checkIssueOptions(opts: IssueOptions): void {
  // A principal is matched literally against the login; refuse what could never be a user name or
  // could be read as a list (OpenSSH's AuthorizedPrincipals and `-n` use commas).
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.@-]{0,63}$/.test(opts.login)) throw new Error('invalid login for a certificate');
  // The key id lands in the target's logs: one printable line, bounded.
  if (opts.keyId.length === 0 || opts.keyId.length > 256 || !/^[\x20-\x7e]+$/.test(opts.keyId)) {
    throw new Error('invalid certificate key id (1–256 printable ASCII characters)');
  }
  if (!Number.isInteger(opts.ttlSeconds) || opts.ttlSeconds <= 0 || opts.ttlSeconds > MAX_TTL_SECONDS) {
    throw new Error(`certificate ttlSeconds must be an integer in 1..${MAX_TTL_SECONDS}`);
  }
}

/**
 * The CA as a proxy without the seal key knows it (issue 29): its public half only, which is all that
 * verifying a certificate needs; signing is the auth tier's (sessions/upstream-credentials.ts).
 */
export function publicUserCa(publicKeyLine: string): UserCa {
  const [type, data] = publicKeyLine.trim().split(/\s+/);
  if (type !== BASE_TYPE || !data) throw new Error(`the CA's public key must be an ${BASE_TYPE} line`);
  const refuse = (): never => {
    throw new Error('this instance holds the CA’s public half only: the auth tier signs certificates');
  };
  return { publicKey: publicKeyLine, publicBlob: Buffer.from(data, 'base64'), issue: refuse, certify: refuse };
}

/** A key this process made, presented to ssh2 with a certificate signed for it elsewhere (the auth tier). */
export function withCertificate(key: ParsedKey, certificateLine: string): ParsedKey {
  const [type, data] = certificateLine.trim().split(/\s+/);
  if (type !== CERT_TYPE || !data) throw new Error(`not an ${CERT_TYPE} certificate line`);
  installCertificateAuth();
  return certifiedKey(key, Buffer.from(data, 'base64'));
}

// ---------------------------------------------------------------------------------------------
// ssh2 glue

/** Marks keys issued here; its value is the signature algorithm (the certified key's base type). */
const CERT_SIGNATURE_ALGO = Symbol('gatehouse.certSignatureAlgo');

/**
 * The user key presented as its certificate. Object.create keeps ssh2's private symbols (the
 * private PEM, used by sign()) through the prototype, so ssh2's isParsedKey() accepts it; sign()
 * signs with the ed25519 key, which is what a certificate login signs with.
 */
function certifiedKey(base: ParsedKey, certBlob: Buffer): ParsedKey {
  const key = Object.create(base) as ParsedKey;
  Object.defineProperties(key, {
    type: { value: CERT_TYPE, enumerable: true },
    getPublicSSH: { value: () => certBlob },
    [CERT_SIGNATURE_ALGO]: { value: base.type },
  });
  return key;
}

interface Ssh2Protocol {
  _server: boolean;
  _kex: { sessionID: Buffer };
  _authsQueue: string[];
  _debug?: (msg: string) => void;
  _packetRW: { write: { allocStart: number; alloc(n: number): Buffer; finalize(packet: Buffer): Buffer } };
  authPK(username: string, pubKey: unknown, keyAlgo?: unknown, cbSign?: unknown): void;
}
type SignCallback = (data: Buffer, done: (signature: Buffer) => void) => void;

const PATCHED = Symbol.for('gatehouse.ssh2.certificateAuthPK');
const USERAUTH_REQUEST = 50;

/** Wraps ssh2's Protocol#authPK once (see the file comment); idempotent. */
export function installCertificateAuth(): void {
  const require = createRequire(import.meta.url);
  const Protocol = require('ssh2/lib/protocol/Protocol.js') as { prototype: Ssh2Protocol & { [PATCHED]?: true } };
  const { sendPacket } = require('ssh2/lib/protocol/utils.js') as {
    sendPacket: (proto: Ssh2Protocol, packet: Buffer) => void;
  };
  const proto = Protocol.prototype;
  if (proto[PATCHED]) return;
  if (typeof proto.authPK !== 'function' || typeof sendPacket !== 'function') {
    throw new Error('ssh2 internals changed: Protocol#authPK or sendPacket missing; certificate login unavailable');
  }
  const original = proto.authPK;
  proto.authPK = function authPK(this: Ssh2Protocol, username, pubKey, keyAlgo, cbSign) {
    const sigAlgo = (pubKey as { [CERT_SIGNATURE_ALGO]?: string } | null)?.[CERT_SIGNATURE_ALGO];
    if (typeof keyAlgo === 'function') {
      cbSign = keyAlgo;
      keyAlgo = undefined;
    }
    if (sigAlgo === undefined || typeof cbSign !== 'function')
      return original.call(this, username, pubKey, keyAlgo, cbSign);
    signedCertificateRequest(this, sendPacket, username, pubKey as ParsedKey, sigAlgo, cbSign as SignCallback);
  };
  Object.defineProperty(proto, PATCHED, { value: true });
}

/** ssh2's signed publickey USERAUTH_REQUEST, with the signature blob naming the base algorithm. */
function signedCertificateRequest(
  proto: Ssh2Protocol,
  sendPacket: (proto: Ssh2Protocol, packet: Buffer) => void,
  username: string,
  key: ParsedKey,
  sigAlgo: string,
  cbSign: SignCallback,
): void {
  if (proto._server) throw new Error('Client-only method called in server mode');
  // RFC 4252 §7: the request as signed; the public key algorithm is the certificate type.
  const body = Buffer.concat([
    Buffer.from([USERAUTH_REQUEST]),
    str(username),
    str('ssh-connection'),
    str('publickey'),
    Buffer.from([1]),
    str(key.type),
    str(key.getPublicSSH()),
  ]);
  cbSign(Buffer.concat([str(proto._kex.sessionID), body]), (signature) => {
    // ed25519 signatures need no conversion (ssh2's convertSignature only touches DSA/ECDSA).
    const payload = Buffer.concat([body, str(Buffer.concat([str(sigAlgo), str(signature)]))]);
    const packet = proto._packetRW.write.alloc(payload.length);
    packet.set(payload, proto._packetRW.write.allocStart);
    proto._authsQueue.push('publickey');
    proto._debug?.('Outbound: Sending USERAUTH_REQUEST (publickey, certificate)');
    sendPacket(proto, proto._packetRW.write.finalize(packet));
  });
}

// ---------------------------------------------------------------------------------------------
// wire format helpers

function str(value: string | Buffer): Buffer {
  const data = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([u32(data.length), data]);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
}

/** Splits a key blob into its type string and the rest. */
function readBlob(blob: Buffer): { type: string; rest: Buffer } {
  const len = blob.readUInt32BE(0);
  return { type: blob.subarray(4, 4 + len).toString('utf8'), rest: blob.subarray(4 + len) };
}

function firstKey(parsed: ParsedKey | ParsedKey[] | Error, what: string): ParsedKey {
  if (parsed instanceof Error) throw new Error(`cannot parse ${what}: ${parsed.message}`);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key) throw new Error(`cannot parse ${what}: no key`);
  return key;
}
