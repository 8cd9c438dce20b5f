// The relying party's side of OpenID Connect, all of it done by openid-client (certified): discovery,
// the authorization URL with PKCE (S256), state and nonce, and the code exchange whose ID token is
// checked for signature (enableNonRepudiationChecks: even over TLS, the JWS is verified against the
// provider's published keys), issuer, audience, expiry, nonce and state. Nothing here parses a token.
import * as oidc from 'openid-client';
import { isLoopbackHost } from './issuer-policy.js';
import type { ConnectorRecord } from './records.js';

/** Discovery is cached this long per connector version; a failure is not cached. */
const DISCOVERY_TTL_MS = 10 * 60_000;
const TIMEOUT_SECONDS = 10;

export interface AuthorizationRequest {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export type OidcClient = ReturnType<typeof createOidcClient>;

/**
 * Why openid-client refused, for the auth.sso.failed event: its own message is generic ("unexpected
 * JWT claim value encountered"), the check that failed is in the causes' messages ('unexpected JWT
 * "iss" (issuer) claim value'). Only messages are read: the causes also hold the claims, which stay out.
 */
export function refusalReason(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++)
    if (e.message && !parts.includes(e.message)) parts.push(e.message);
  return parts.join(': ') || 'the provider’s answer was refused';
}

export function createOidcClient(deps: { secretOf: (c: ConnectorRecord) => string }) {
  const configs = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

  function configOf(c: ConnectorRecord): Promise<oidc.Configuration> {
    const key = `${c.id}@${c.updated_at}`;
    const cached = configs.get(key);
    if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.config;
    const issuer = new URL(c.issuer);
    const execute = [oidc.enableNonRepudiationChecks];
    // http only for a loopback issuer (issuer-policy.ts refused every other one at creation).
    if (issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname)) execute.push(oidc.allowInsecureRequests);
    const config = oidc.discovery(
      issuer,
      c.client_id,
      { client_secret: deps.secretOf(c) },
      oidc.ClientSecretBasic(deps.secretOf(c)),
      { execute, timeout: TIMEOUT_SECONDS },
    );
    for (const k of configs.keys()) if (k.startsWith(`${c.id}@`)) configs.delete(k);
    configs.set(key, { at: Date.now(), config });
    config.catch(() => configs.delete(key));
    return config;
  }

  return {
    /** Where to send the browser, and the secrets the callback checks the answer against. */
    async authorizationRequest(c: ConnectorRecord, redirectUri: string): Promise<AuthorizationRequest> {
      const config = await configOf(c);
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: c.scopes.join(' '),
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url: url.href, state, nonce, codeVerifier };
    },

    /**
     * Exchanges the code the provider sent back (callbackUrl: the redirect URI with its query) and
     * answers the verified ID token's claims, completed by the userinfo endpoint's (same subject) for
     * providers that put groups only there. Throws on any check that fails.
     */
    async claimsOf(
      c: ConnectorRecord,
      callbackUrl: URL,
      checks: { state: string; nonce: string; codeVerifier: string },
    ): Promise<Record<string, unknown>> {
      const config = await configOf(c);
      const tokens = await oidc
        .authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        })
        .catch((e: unknown) => {
          throw new Error(refusalReason(e));
        });
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error('the provider sent no ID token');
      let userinfo: Record<string, unknown> = {};
      if (config.serverMetadata().userinfo_endpoint) {
        userinfo = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      }
      // The signed ID token wins over userinfo where both say something.
      return { ...userinfo, ...idClaims };
    },
  };
}
