// Reads one OpenSSH public key line ("ssh-ed25519 AAAA… comment") with ssh2's parser, and refuses
// what must not be registered: private keys, certificates, DSA, RSA under 2048 bits, several lines.
// Error messages never repeat the input: a pasted private key must not reach logs or responses.
import { createHash, createPublicKey } from 'node:crypto';
import ssh2, { type ParsedKey } from 'ssh2';
import { invalidField } from '../lib/errors.js';

export const SSH_KEY_TYPES = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-rsa',
] as const;
export type SshKeyType = (typeof SSH_KEY_TYPES)[number];

export const MIN_RSA_BITS = 2048;

export interface SshPublicKey {
  type: SshKeyType;
  /** The SSH wire-format key (what an SSH server receives in a publickey auth request). */
  blob: Buffer;
  /** "SHA256:…", as `ssh-keygen -l` prints it. */
  fingerprint: string;
  /** "<type> <base64>", without the comment. */
  line: string;
  comment: string;
}

/** OpenSSH's fingerprint: unpadded base64 of the SHA-256 of the key blob. */
export const fingerprintOf = (blob: Buffer): string =>
  `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;

/** A lookup handle for a key blob that is safe in a state key (hex, no slashes). */
export const blobDigest = (blob: Buffer): string => createHash('sha256').update(blob).digest('hex');

const LINE = /^(\S+) ([A-Za-z0-9+/]+={0,2})(?: (.*))?$/;
const ACCEPTED = `accepted: ssh-ed25519, ecdsa-sha2-nistp256/384/521, ssh-rsa of at least ${MIN_RSA_BITS} bits`;

const isAccepted = (type: string): type is SshKeyType => (SSH_KEY_TYPES as readonly string[]).includes(type);

/** ssh2 answers an Error for what it cannot read (and, at runtime, an array for several keys). */
function parseOne(data: string | Buffer): ParsedKey | undefined {
  const parsed: unknown = ssh2.utils.parseKey(data);
  if (parsed instanceof Error || Array.isArray(parsed)) return undefined;
  return parsed as ParsedKey;
}

/** Parses one OpenSSH public key line, or throws invalid_request naming `path`. */
export function parsePublicKeyLine(text: string, path: string): SshPublicKey {
  const refuse = (message: string) => invalidField(path, message);
  const trimmed = text.trim();
  const parsed = parseOne(trimmed);
  if (/PRIVATE KEY/.test(trimmed) || parsed?.isPrivateKey()) {
    throw refuse('this is a private key; send the public key (the .pub file), and consider this private key exposed');
  }
  if (/[\r\n]/.test(trimmed)) throw refuse('must be a single OpenSSH public key line');
  const match = LINE.exec(trimmed);
  if (!match) throw refuse('is not an OpenSSH public key line ("ssh-ed25519 AAAA… comment")');
  const [, type = '', base64 = ''] = match;
  if (type.includes('-cert-')) throw refuse('SSH certificates are not accepted; register the plain public key');
  if (type === 'ssh-dss') throw refuse(`DSA (ssh-dss) keys are not accepted; ${ACCEPTED}`);
  if (!isAccepted(type)) throw refuse(`is not an OpenSSH public key of an accepted type; ${ACCEPTED}`);
  if (!parsed || parsed.type !== type) throw refuse('is not a valid OpenSSH public key');
  if (type === 'ssh-rsa') {
    const bits = createPublicKey(parsed.getPublicPEM()).asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS) throw refuse(`RSA keys must have at least ${MIN_RSA_BITS} bits (this one has ${bits})`);
  }
  const blob = parsed.getPublicSSH();
  // The blob must be exactly what the line encodes: no trailing bytes, no non-canonical base64.
  if (blob.toString('base64') !== base64) throw refuse('is not a valid OpenSSH public key');
  return { type, blob, fingerprint: fingerprintOf(blob), line: `${type} ${base64}`, comment: parsed.comment ?? '' };
}

/** Reads a wire-format key blob (e.g. a host key an SSH server presented); undefined if it is none. */
export function parsePublicKeyBlob(blob: Buffer): { type: string; line: string; fingerprint: string } | undefined {
  const parsed = parseOne(blob);
  if (!parsed || parsed.isPrivateKey()) return undefined;
  return { type: parsed.type, line: `${parsed.type} ${blob.toString('base64')}`, fingerprint: fingerprintOf(blob) };
}
