// Who is calling, told to the app: a JWT in `Gatehouse-Jwt-Assertion`, signed with the cluster's
// signing key (EdDSA; the public keys at /.well-known/jwks.json on the web listener). `aud` is the
// app's public URL, the one URI no other app has (two apps may share an upstream `uri`), so an
// assertion for one app is worth nothing to another; `iss` and the `typ`
// header set it apart from agents' JWTs, which share the keys. Short-lived (5 minutes) and signed
// again before it runs out: one signature serves every request of that principal to that app
// meanwhile (a signature costs far more than a forwarded GET).
import type { SigningKeys } from '../agents/signing-keys.js';
import type { Principal } from '../auth/principal.js';
import { keys, type UserRecord } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import type { Clock } from '../lib/clock.js';

export const ASSERTION_HEADER = 'gatehouse-jwt-assertion';
export const ASSERTION_TYP = 'gatehouse-app+jwt';
const TTL_S = 300;
/** Signed again this long before it expires, so an app never receives one about to lapse. */
const RENEW_BEFORE_MS = 60_000;
const MAX_CACHED = 10_000;

export type AppAssertions = ReturnType<typeof createAppAssertions>;

export function createAppAssertions(deps: {
  signingKeys: Pick<SigningKeys, 'current' | 'sign'>;
  state: Pick<StateStore, 'get'>;
  clock: Clock;
}) {
  const cache = new Map<string, { jwt: string; renewAt: number }>();
  // The last assertion made for each principal object, without building and serializing its claims
  // again: the token resolver hands out one principal object per token while the state stays at its
  // revision (auth/token-resolver.ts), and the claims are that state (roles, traits), so the same
  // object always makes the same claims. A write to the state makes a new object, and a new lookup.
  const lastFor = new WeakMap<Principal, { jwt: string; renewAt: number; audience: string; issuer: string }>();

  /** The person's traits (a user's, or for an agent acting for a user, that user's); agents have none. */
  function traitsOf(p: Principal): Record<string, string[]> {
    const userId = p.kind === 'user' ? p.id : p.onBehalfOf?.id;
    return (userId && deps.state.get<UserRecord>(keys.user(userId))?.value.traits) || {};
  }

  function claimsOf(p: Principal, audience: string, issuer: string) {
    // RFC 8693 §4.1: for an agent acting for a user, the subject is the user and `act` the agent.
    const subject = p.onBehalfOf ?? p;
    return {
      iss: issuer,
      aud: audience,
      sub: subject.id,
      name: subject.name,
      // The same name again, for apps configured with `username_claim = username` (Grafana's docs
      // and the first releases of this door); `name` is the claim the door documents.
      username: subject.name,
      kind: subject.kind,
      roles: [...p.roles],
      traits: traitsOf(p),
      ...(p.onBehalfOf ? { act: { sub: p.id, name: p.name } } : {}),
    };
  }

  return {
    traitsOf,
    /** The assertion for this principal at this app (its public URL), reused until a minute before it expires. */
    async assertion(p: Principal, audience: string, issuer: string): Promise<string> {
      const now = deps.clock();
      const last = lastFor.get(p);
      if (last && last.renewAt > now && last.audience === audience && last.issuer === issuer) return last.jwt;
      const claims = claimsOf(p, audience, issuer);
      const id = JSON.stringify(claims);
      let hit = cache.get(id);
      if (!hit || hit.renewAt <= now) {
        const jwt = await deps.signingKeys.sign(await deps.signingKeys.current(), claims, TTL_S, ASSERTION_TYP);
        if (cache.size >= MAX_CACHED) cache.clear();
        hit = { jwt, renewAt: now + TTL_S * 1000 - RENEW_BEFORE_MS };
        cache.set(id, hit);
      }
      lastFor.set(p, { ...hit, audience, issuer });
      return hit.jwt;
    },
  };
}
