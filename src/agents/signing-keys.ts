// Ed25519 keys that sign agent JWTs, kept in the backend (the private half sealed with the data dir's
// AES-GCM key) so every instance signs with the same key and publishes the same JWKS.
//
// Time is cut into generations of `rotationMs`; generation g's key signs from g·rotation to
// (g+1)·rotation. The next generation's key is created (and so published) as soon as the current
// one is in use, a whole generation ahead, and a key stays published until the last token it can
// have signed has expired: (g+1)·rotation + the longest credential lifetime. Instances racing to
// create a key are settled by the backend: the first insert wins, the others use it.
import { generateKeyPairSync } from 'node:crypto';
import { type CryptoKey, calculateJwkThumbprint, importPKCS8, type JWTPayload, SignJWT } from 'jose';
import { keys, prefixes, type SigningKeyRecord } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import { BackendError } from '../backend/types.js';
import { type Clock, isoTime } from '../lib/clock.js';
import { NoSealKey, type SecretBox } from '../lib/secret-box.js';

/** Verifiers' clocks drift: keys stay published this much longer. */
const SKEW_MS = 5 * 60_000;

export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export type SigningKeys = ReturnType<typeof createSigningKeys>;

export function createSigningKeys(deps: {
  state: StateStore;
  box: SecretBox;
  clock: Clock;
  rotationMs: number;
  maxTokenTtlMs: number;
}) {
  const { state, box, clock, rotationMs, maxTokenTtlMs } = deps;
  const privateKeys = new Map<string, Promise<CryptoKey>>();
  const creating = new Map<number, Promise<SigningKeyRecord>>();

  const recordOf = (g: number) => state.get<SigningKeyRecord>(keys.signingKey(g))?.value;

  async function create(g: number): Promise<SigningKeyRecord> {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const jwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
    const publicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
    const key = keys.signingKey(g);
    const record: SigningKeyRecord = {
      kid: await calculateJwkThumbprint(publicJwk),
      alg: 'EdDSA',
      generation: g,
      public_jwk: publicJwk,
      private_sealed: box.seal(privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, key),
      created_at: isoTime(clock()),
      active_from: g * rotationMs,
      active_until: (g + 1) * rotationMs,
      published_until: (g + 1) * rotationMs + maxTokenTtlMs + SKEW_MS,
    };
    try {
      await state.insert(key, record, { expiresAt: record.published_until });
      return record;
    } catch (error) {
      if (!(error instanceof BackendError)) throw error;
      // Another instance created it first; its write reaches our cache through the watch.
      for (let i = 0; i < 200; i++) {
        const theirs = recordOf(g);
        if (theirs) return theirs;
        await new Promise((r) => setTimeout(r, 5));
      }
      throw new Error(`signing key ${key} exists in the backend but did not reach the cache`);
    }
  }

  function ensure(g: number): SigningKeyRecord | Promise<SigningKeyRecord> {
    const existing = recordOf(g);
    if (existing) return existing;
    let pending = creating.get(g);
    if (!pending) {
      pending = create(g).finally(() => creating.delete(g));
      creating.set(g, pending);
    }
    return pending;
  }

  /** The current generation's key and the next one's exist (the next is published ahead of use). */
  async function current(): Promise<SigningKeyRecord> {
    const g = Math.floor(clock() / rotationMs);
    const key = await ensure(g);
    if (!recordOf(g + 1)) await ensure(g + 1);
    return key;
  }

  /** The private key as a WebCrypto key (jose signs fastest with one), opened once per key. */
  function privateKeyOf(record: SigningKeyRecord): Promise<CryptoKey> {
    let key = privateKeys.get(record.kid);
    if (!key) {
      key = importPKCS8(box.open(record.private_sealed, keys.signingKey(record.generation)), 'EdDSA');
      privateKeys.set(record.kid, key);
    }
    return key;
  }

  return {
    /** The key that signs now (created, with the next one, when its generation begins). */
    current,

    /**
     * Signs claims with that key as a JWT valid from now for ttlSeconds. `typ` tells verifiers which
     * kind of Gatehouse JWT it is (app assertions have their own), so one is never taken for another.
     */
    async sign(record: SigningKeyRecord, claims: JWTPayload, ttlSeconds: number, typ = 'JWT'): Promise<string> {
      const iat = Math.floor(clock() / 1000);
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'EdDSA', kid: record.kid, typ })
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .sign(await privateKeyOf(record));
    },

    /** The public keys verifiers need now: the signing key, the next one, and retired ones still in use. */
    async jwks(): Promise<{ keys: PublicJwk[] }> {
      // A proxy holds no seal key: it publishes the keys the auth tier made (issue 29).
      await current().catch((error: unknown) => {
        if (!(error instanceof NoSealKey)) throw error;
      });
      const now = clock();
      return {
        keys: state
          .list<SigningKeyRecord>(prefixes.jwks)
          .map((i) => i.value)
          .filter((k) => k.published_until > now)
          .sort((a, b) => b.generation - a.generation)
          .map((k) => ({ ...k.public_jwk, kid: k.kid, alg: k.alg, use: 'sig' as const })),
      };
    },

    /** The key that signed a JWT, while it is published (for introspection). */
    publicKeyOf(kid: string): SigningKeyRecord | undefined {
      return state
        .list<SigningKeyRecord>(prefixes.jwks)
        .find((i) => i.value.kid === kid && i.value.published_until > clock())?.value;
    },
  };
}
