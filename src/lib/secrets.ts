// Bearer secrets (API keys, access and refresh tokens): 256 random bits behind a recognizable prefix,
// so secret scanners can find leaks. Only their SHA-256 hash is ever stored.
//
// Access and refresh tokens also carry their issue time (12 hex digits, milliseconds; not secret, as
// a JWT's iat is not) ahead of the random part, and their store key starts with it (tokenId). Logins
// write two token rows each: keyed by the hash alone they landed on random pages of the store's
// B-tree, and each row cost a whole dirty page in the SQLite WAL (49 µs of CPU per row at 100k rows,
// 6 µs in key order: docs/architecture.md, "State, audit and the hot path"). Tokens issued before this carry no time and keep the
// hash as their id.
import * as crypto from 'node:crypto';
import { randomBytes } from './random.js';

export const SECRET_PREFIXES = {
  apiKey: 'ghk_',
  accessToken: 'gha_',
  refreshToken: 'ghr_',
} as const;

export type SecretKind = keyof typeof SECRET_PREFIXES;

const BODY_LENGTH = 43; // 32 bytes in base64url, no padding
const SHAPES: Record<SecretKind, RegExp> = {
  apiKey: /^ghk_[A-Za-z0-9_-]{43}$/,
  accessToken: /^gha_(?:[0-9a-f]{12})?[A-Za-z0-9_-]{43}$/,
  refreshToken: /^ghr_(?:[0-9a-f]{12})?[A-Za-z0-9_-]{43}$/,
};

const TIME_DIGITS = 12;
const ISSUE_TIME = /^[0-9a-f]{12}$/;

export function generateSecret(kind: SecretKind): string {
  const body = randomBytes(32).toString('base64url');
  if (body.length !== BODY_LENGTH) throw new Error('unexpected secret length');
  return SECRET_PREFIXES[kind] + body;
}

/** An access or refresh token: prefix, issue time, then 256 random bits. */
export function generateToken(kind: 'accessToken' | 'refreshToken', nowMs: number): string {
  const time = Math.max(0, Math.floor(nowMs)).toString(16).padStart(TIME_DIGITS, '0').slice(-TIME_DIGITS);
  return SECRET_PREFIXES[kind] + time + generateSecret(kind).slice(SECRET_PREFIXES[kind].length);
}

/** The store id of an access or refresh token: its issue time, if it carries one, then its hash. */
export function tokenId(token: string): string {
  const hash = hashSecret(token);
  const body = token.slice(4);
  if (body.length !== TIME_DIGITS + BODY_LENGTH) return hash;
  const time = body.slice(0, TIME_DIGITS);
  return ISSUE_TIME.test(time) ? `${time}-${hash}` : hash;
}

export function hasSecretShape(kind: SecretKind, value: string): boolean {
  return SHAPES[kind].test(value);
}

// crypto.hash (Node 20.12+, 21.7+) skips the Hash object: 0.3 µs against 1.0 µs here, and every
// request hashes its bearer token, every login three secrets. Older Node 20 keeps the long way.
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;

export const hashSecret: (value: string) => string = oneShot
  ? (value) => oneShot('sha256', value, 'hex')
  : (value) => crypto.createHash('sha256').update(value).digest('hex');

/** A short, non-secret label for a secret, shown in listings so people can tell keys apart. */
export function secretHint(value: string): string {
  return `${value.slice(0, 8)}…`;
}
