// The console's sign-in: its public address (web_public_url, else the web listener's once it is up),
// single sign-on through OpenID Providers, and security keys and passkeys (the WebAuthn relying party
// is that address, read per ceremony).
import type { AuditLog } from './audit/audit-log.js';
import type { Covering } from './auth/covering.js';
import type { LoginThrottle } from './auth/login-throttle.js';
import type { PolicyResolver } from './auth/policy-resolver.js';
import type { PrincipalPipeline } from './auth/principal-pipeline.js';
import type { TokenIndex } from './auth/token-index.js';
import type { TokenService } from './auth/token-service.js';
import type { StateStore } from './backend/state.js';
import type { Config } from './config/schema.js';
import type { Clock } from './lib/clock.js';
import { GatehouseError } from './lib/errors.js';
import type { SecretBox } from './lib/secret-box.js';
import { createChallenges } from './mfa/challenges.js';
import { createMfaService, type MfaService } from './mfa/mfa-service.js';
import { createMfaSignIn, type MfaSignIn } from './mfa/mfa-sign-in.js';
import { relyingPartyOf } from './mfa/relying-party.js';
import { type ConnectorService, createConnectorService } from './sso/connector-service.js';
import { createOidcClient } from './sso/oidc-client.js';
import { createSsoService, type SsoService } from './sso/sso-service.js';
import { createProviderUsers } from './sso/sso-users.js';

export interface SignInServices {
  /** Single sign-on connectors (OpenID Providers) and the sign-ins through them. */
  connectors: ConnectorService;
  sso: SsoService;
  /** People's security keys and passkeys (register, list, rename, remove). */
  mfa: MfaService;
  /** The console sign-in's second step, and the passkey sign-in. */
  mfaSignIn: MfaSignIn;
  /** The console's public address (web_public_url, else http(s)://localhost:<web port>). */
  webPublicUrl(): string;
  publishWebPublicUrl(url: string): void;
}

export function createSignInServices(deps: {
  config: Config;
  state: StateStore;
  audit: AuditLog;
  clock: Clock;
  box: SecretBox;
  covering: Covering;
  policies: PolicyResolver;
  tokens: TokenService;
  tokenIndex: TokenIndex;
  pipeline: PrincipalPipeline;
  throttle: LoginThrottle;
}): SignInServices & { publishedUrl(): string | undefined } {
  const { config, state, audit, clock, covering, pipeline } = deps;
  // Read per sign-in and per ceremony: the default address needs the web listener's port.
  let webPublicUrl = config.web_public_url;
  const currentUrl = () => {
    if (!webPublicUrl)
      throw new GatehouseError('unavailable', 'the console has no public address yet (web_public_url)');
    return webPublicUrl;
  };
  const { box, policies, tokens, tokenIndex } = deps;
  const connectors = createConnectorService({ state, audit, clock, box, covering, policies, tokens, tokenIndex });
  const sso = createSsoService({
    state,
    audit,
    clock,
    connectors,
    oidc: createOidcClient({ secretOf: connectors.secretOf }),
    users: createProviderUsers({ state, audit, clock }),
    publicUrl: () => currentUrl(),
  });
  const mfaDeps = {
    state,
    audit,
    clock,
    challenges: createChallenges({ state, clock }),
    relyingParty: () => relyingPartyOf(currentUrl()),
  };
  const mfa = createMfaService({ ...mfaDeps, covering });
  const mfaSignIn = createMfaSignIn({
    ...mfaDeps,
    devices: mfa,
    passwordlessAllowed: (userId) => pipeline.resolve({ kind: 'user', id: userId }).policy.signIn().mfaPasswordless,
    throttle: deps.throttle,
  });
  return {
    connectors,
    sso,
    mfa,
    mfaSignIn,
    webPublicUrl: currentUrl,
    publishWebPublicUrl: (url) => {
      webPublicUrl = config.web_public_url ?? url;
    },
    publishedUrl: () => webPublicUrl,
  };
}
