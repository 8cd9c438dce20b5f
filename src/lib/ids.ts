// Identifiers: a kind prefix, then a time-ordered, random suffix, so that ids sort in creation order
// (stable list order without a separate index) and cannot be guessed.
import { randomBytes } from './random.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

export const ID_PREFIXES = {
  user: 'user_',
  role: 'role_',
  agent: 'agent_',
  database: 'db_',
  server: 'srv_',
  app: 'app_',
  kubeCluster: 'kube_',
  session: 'sess_',
  event: 'evt_',
  webhook: 'whk_',
  delivery: 'dlv_',
  apiKey: 'key_',
  credential: 'cred_',
  sshKey: 'sshkey_',
  mfaDevice: 'mfa_',
  request: 'req_',
  connector: 'conn_',
  approval: 'apr_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

let lastTime = 0;
let counter = 0;

function encodeTime(ms: number): string {
  let out = '';
  let n = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET.charAt(n % 32) + out;
    n = Math.floor(n / 32);
  }
  return out;
}

/** `agent_01j…`: 10 chars of time, 2 of a per-millisecond counter, 14 of randomness (70 bits). */
export function newId(kind: IdKind, now = Date.now()): string {
  if (now === lastTime) counter++;
  else {
    lastTime = now;
    counter = 0;
  }
  const rand = randomBytes(14);
  let suffix = ALPHABET.charAt((counter >> 5) & 31) + ALPHABET.charAt(counter & 31);
  for (const b of rand) suffix += ALPHABET.charAt(b & 31);
  return ID_PREFIXES[kind] + encodeTime(now) + suffix;
}

/** The pattern of a valid id of one kind, for schemas. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}[0-9a-z]{26}$`;
}
