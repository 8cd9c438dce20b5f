// Bearer secrets (API keys, access and refresh tokens): 256 random bits behind a recognizable prefix,
// so secret scanners can find leaks. Only their SHA-256 hash is ever stored.
import { createHash } from 'node:crypto';
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
  accessToken: /^gha_[A-Za-z0-9_-]{43}$/,
  refreshToken: /^ghr_[A-Za-z0-9_-]{43}$/,
};

export function generateSecret(kind: SecretKind): string {
  const body = randomBytes(32).toString('base64url');
  if (body.length !== BODY_LENGTH) throw new Error('unexpected secret length');
  return SECRET_PREFIXES[kind] + body;
}

export function hasSecretShape(kind: SecretKind, value: string): boolean {
  return SHAPES[kind].test(value);
}

export function hashSecret(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A short, non-secret label for a secret, shown in listings so people can tell keys apart. */
export function secretHint(value: string): string {
  return `${value.slice(0, 8)}…`;
}
