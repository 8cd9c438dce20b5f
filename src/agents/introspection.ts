// Token introspection (RFC 7662) for services that must hear about a kill switch before a JWT
// expires: a signed JWT is active only while its signature verifies with a published key, its
// credential is not revoked, its agent is active and (delegated) its user still allows it and the
// tokens it was exchanged from still work. An opaque token is active when it would authenticate.
// Anything else is just {active: false}.
import { type CryptoKey, importJWK, type JWTPayload, jwtVerify } from 'jose';
import { stoppedAncestor } from '../auth/agent-lineage.js';
import {
  type AgentRecord,
  type CredentialRecord,
  type DelegationGrant,
  type ExchangeSources,
  keys,
  type UserRecord,
} from '../auth/records.js';
import type { TokenService } from '../auth/token-service.js';
import type { StateStore } from '../backend/state.js';
import type { Clock } from '../lib/clock.js';
import { GatehouseError } from '../lib/errors.js';
import type { SigningKeys } from './signing-keys.js';

export interface Introspection {
  active: boolean;
  token_type?: 'access_token' | 'jwt';
  sub?: string;
  act?: { sub: string };
  scope?: string;
  iss?: string;
  aud?: string;
  exp?: number;
  iat?: number;
  jti?: string;
}

const INACTIVE: Introspection = { active: false };

export type TokenIntrospection = ReturnType<typeof createTokenIntrospection>;

export function createTokenIntrospection(deps: {
  state: StateStore;
  clock: Clock;
  tokens: Pick<TokenService, 'resolve' | 'resolveById'>;
  signingKeys: Pick<SigningKeys, 'publicKeyOf'>;
  issuer: string;
}) {
  const { state, clock } = deps;
  const publicKeys = new Map<string, CryptoKey | Uint8Array>();

  async function keyFor(kid: string | undefined) {
    const record = kid ? deps.signingKeys.publicKeyOf(kid) : undefined;
    if (!record || !kid) throw new Error('unknown signing key');
    let key = publicKeys.get(kid);
    if (!key) {
      key = await importJWK({ ...record.public_jwk, alg: 'EdDSA' }, 'EdDSA');
      publicKeys.set(kid, key);
    }
    return key;
  }

  /** A delegated JWT is active only while both tokens it was exchanged from would authenticate. */
  function sourcesLive(sources: ExchangeSources): boolean {
    try {
      deps.tokens.resolveById(sources.subject.id);
      deps.tokens.resolveById(sources.actor.id);
      return true;
    } catch (error) {
      if (error instanceof GatehouseError) return false;
      throw error;
    }
  }

  /** Is the agent (and the user it acts for) still allowed to hold this JWT? */
  function jwtStillValid(payload: JWTPayload & { act?: { sub?: string } }): boolean {
    const agentId = payload.act?.sub ?? payload.sub;
    if (!agentId || !payload.jti) return false;
    const credential = state.get<CredentialRecord>(keys.credential(agentId, payload.jti))?.value;
    if (!credential || credential.revoked_at !== undefined) return false;
    if (credential.exchanged_from && !sourcesLive(credential.exchanged_from)) return false;
    const agent = state.get<AgentRecord>(keys.agent(agentId))?.value;
    const owner = agent ? state.get<UserRecord>(keys.user(agent.owner))?.value : undefined;
    if (agent?.status !== 'active' || owner?.status !== 'active' || stoppedAncestor(state, agent)) return false;
    if (!payload.act) return true;
    const user = state.get<UserRecord>(keys.user(payload.sub as string))?.value;
    const grant = state.get<DelegationGrant>(keys.delegation(agentId, payload.sub as string))?.value;
    return (
      user?.status === 'active' &&
      grant !== undefined &&
      (grant.expires_at === undefined || Date.parse(grant.expires_at) > clock())
    );
  }

  async function introspectJwt(token: string): Promise<Introspection> {
    try {
      const { payload } = await jwtVerify(token, (header) => keyFor(header.kid), {
        issuer: deps.issuer,
        algorithms: ['EdDSA'],
        currentDate: new Date(clock()),
      });
      if (!jwtStillValid(payload)) return INACTIVE;
      const act = payload.act as { sub: string } | undefined;
      return {
        active: true,
        token_type: 'jwt',
        ...(payload.sub ? { sub: payload.sub } : {}),
        ...(act ? { act: { sub: act.sub } } : {}),
        ...(typeof payload.scope === 'string' ? { scope: payload.scope } : {}),
        iss: deps.issuer,
        ...(typeof payload.aud === 'string' ? { aud: payload.aud } : {}),
        ...(payload.exp !== undefined ? { exp: payload.exp } : {}),
        ...(payload.iat !== undefined ? { iat: payload.iat } : {}),
        ...(payload.jti ? { jti: payload.jti } : {}),
      };
    } catch {
      return INACTIVE;
    }
  }

  function introspectOpaque(token: string): Introspection {
    try {
      const { record, principal } = deps.tokens.resolve(token);
      const delegated = principal.onBehalfOf;
      return {
        active: true,
        token_type: 'access_token',
        sub: delegated ? delegated.id : principal.id,
        ...(delegated ? { act: { sub: principal.id } } : {}),
        scope: principal.roles.join(' '),
        exp: Math.floor(record.expires_at / 1000),
        iat: Math.floor(record.issued_at / 1000),
      };
    } catch (error) {
      if (error instanceof GatehouseError) return INACTIVE;
      throw error;
    }
  }

  return {
    introspect(token: string): Promise<Introspection> | Introspection {
      return token.split('.').length === 3 ? introspectJwt(token) : introspectOpaque(token);
    },
  };
}
