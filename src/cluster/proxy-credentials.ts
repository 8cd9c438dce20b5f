// The short-lived credentials the auth tier gives joined proxies (docs/deploy.md "Joining a proxy"): a
// JWT signed with the cluster's signing key (EdDSA, jose), `aud` the internal API, `sub` the proxy's
// identity, ten minutes. The key is one Ed25519 pair for the whole auth tier, sealed in the state store
// like the user CA, so any auth instance verifies what another issued. A proxy renews by signing a
// short proof with its own key, whose public half auth registered when it joined.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decodeJwt, importJWK, type JWK, jwtVerify, SignJWT } from 'jose';
import { insertOrTheirs, type StateStore } from '../backend/state.js';
import { type Clock, isoTime } from '../lib/clock.js';
import type { SecretBox } from '../lib/secret-box.js';

const KEY = 'secrets/cluster-signing-key';
const CONTEXT = 'cluster-signing-key';
const ISSUER = 'gatehouse-auth';
/** The audience of a credential: auth's internal API. */
export const INTERNAL_AUDIENCE = 'gatehouse-internal';
/** The audience of a proxy's proof of possession (renewal). */
export const RENEW_AUDIENCE = 'gatehouse-renew';
export const CREDENTIAL_TTL_S = 600;
/** A proof is good this long after it was signed (and no longer: it travels once, to be exchanged). */
const PROOF_MAX_AGE_S = 60;
/**
 * How far a proof's dates may be off auth's clock: iat is whole seconds, and the proxy's host keeps
 * its own time (it dates renewals by auth's, learnt from its credential; a restart's first proof, by
 * its own). Without it, a proxy a few milliseconds ahead dated some proofs a second in auth's future.
 */
const PROOF_CLOCK_TOLERANCE_S = 5;

interface SigningKeyRecord {
  private_sealed: string;
  created_at: string;
}

export interface ProxyCredentials {
  /** A credential for this identity, valid CREDENTIAL_TTL_S from now. */
  issue(instance: string): Promise<{ credential: string; expires_at: string }>;
  /** The identity a credential names, if it is ours, for our audience and not expired; else undefined. */
  verify(credential: string): Promise<string | undefined>;
}

/** The cluster's signing key: created once by the first auth instance, the others read it. */
export async function ensureSigningKey(deps: { state: StateStore; box: SecretBox; clock: Clock }): Promise<KeyObject> {
  let record = deps.state.get<SigningKeyRecord>(KEY)?.value;
  if (!record) {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const fresh: SigningKeyRecord = { private_sealed: deps.box.seal(pem, CONTEXT), created_at: isoTime(deps.clock()) };
    record = await insertOrTheirs(deps.state, KEY, fresh);
    if (!record) throw new Error('the cluster signing key exists in the backend but did not reach the cache');
  }
  return createPrivateKey(deps.box.open(record.private_sealed, CONTEXT));
}

/**
 * Verified credentials are remembered by their text until they expire (an EdDSA verify costs ≈ 0.2 ms
 * and every internal call carries one); whether the identity still exists is the caller's check, on
 * every call, against the registry.
 */
export function createProxyCredentials(signingKey: KeyObject, clock: Clock): ProxyCredentials {
  const publicKey = createPublicKey(signingKey);
  const verified = new Map<string, { sub: string; exp: number }>();
  const MAX_REMEMBERED = 10_000;
  return {
    async issue(instance) {
      const now = Math.floor(clock() / 1000);
      const credential = await new SignJWT({})
        .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setAudience(INTERNAL_AUDIENCE)
        .setSubject(instance)
        .setIssuedAt(now)
        .setExpirationTime(now + CREDENTIAL_TTL_S)
        .sign(signingKey);
      return { credential, expires_at: isoTime((now + CREDENTIAL_TTL_S) * 1000) };
    },
    async verify(credential) {
      const now = clock() / 1000;
      const known = verified.get(credential);
      if (known) return known.exp > now ? known.sub : undefined;
      try {
        const { payload } = await jwtVerify(credential, publicKey, {
          issuer: ISSUER,
          audience: INTERNAL_AUDIENCE,
          algorithms: ['EdDSA'],
          currentDate: new Date(clock()),
        });
        if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return undefined;
        if (verified.size >= MAX_REMEMBERED) {
          for (const [text, v] of verified) if (v.exp <= now) verified.delete(text);
          if (verified.size >= MAX_REMEMBERED) verified.clear();
        }
        verified.set(credential, { sub: payload.sub, exp: payload.exp });
        return payload.sub;
      } catch {
        return undefined;
      }
    },
  };
}

/** The identity a renewal proof claims (unverified: to find the key that must have signed it). */
export function proofSubject(proof: string): string | undefined {
  try {
    const sub = decodeJwt(proof).sub;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the proof was signed by this registered public key, for renewal, recently, naming sub. */
export async function proofHolds(proof: string, publicJwk: JWK, sub: string, clock: Clock): Promise<boolean> {
  try {
    const key = await importJWK(publicJwk, 'EdDSA');
    const { payload } = await jwtVerify(proof, key, {
      audience: RENEW_AUDIENCE,
      subject: sub,
      algorithms: ['EdDSA'],
      maxTokenAge: PROOF_MAX_AGE_S,
      clockTolerance: PROOF_CLOCK_TOLERANCE_S,
      currentDate: new Date(clock()),
    });
    return typeof payload.exp === 'number' && payload.exp - (payload.iat ?? 0) <= PROOF_MAX_AGE_S;
  } catch {
    return false;
  }
}

/** A public key a proxy may register: an Ed25519 JWK and nothing else (no private part). */
export function publicEd25519Jwk(value: unknown): JWK | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (v.kty !== 'OKP' || v.crv !== 'Ed25519' || typeof v.x !== 'string' || 'd' in v) return undefined;
  try {
    createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: v.x }, format: 'jwk' });
  } catch {
    return undefined;
  }
  return { kty: 'OKP', crv: 'Ed25519', x: v.x };
}
