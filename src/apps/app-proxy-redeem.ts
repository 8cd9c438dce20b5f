// A launch code redeemed for a proxy-only instance. The proxy holds no right to write the app's
// cookie session (the auth tier's least privilege, cluster/proxy-writes.ts), so its callback asks
// the auth tier to spend the code and store the cookie session's hash, and the auth tier does it only
// for a launch it can check end to end: the code is valid, for this app, and redeemed with the state
// of the browser that started it; the app session it is bound to is an active app session of this
// app, of the code's own principal, held by the calling instance; it ends no later than the code's
// token. A compromised proxy can thus only complete launches people actually started.
import type { AccessChecker } from '../access/access-checker.js';
import type { Principal } from '../auth/principal.js';
import { keys } from '../auth/records.js';
import type { TokenService } from '../auth/token-service.js';
import type { StateStore } from '../backend/state.js';
import { GatehouseError } from '../lib/errors.js';
import type { ResourceRecord } from '../resources/resource-service.js';
import type { SessionRecord } from '../sessions/session-registry.js';
import type { AppAddressing } from './app-addressing.js';
import type { AppAssertions } from './app-assertion.js';
import type { AppLaunches } from './app-launch.js';

/** The auth tier's internal route a proxy asks (api/internal/apps-internal.routes.ts). */
export const APPS_REDEEM_PATH = '/internal/v1/apps/redeem';

export interface ProxyRedeemRequest {
  code: string;
  state: string;
  app_id: string;
  session_id: string;
  /** SHA-256 (hex) of the cookie's secret: the secret itself never leaves the proxy. */
  secret_hash: string;
  expires_at: number;
}

/** Redeemed (true), spent or expired meanwhile (false), or why the request is refused (a string). */
export type ProxyRedeemResult = boolean | { refused: string };

export function createProxyRedeem(deps: { launches: AppLaunches; state: Pick<StateStore, 'get'> }) {
  return async (req: ProxyRedeemRequest, instance: string | undefined): Promise<ProxyRedeemResult> => {
    if (!/^[0-9a-f]{64}$/.test(req.secret_hash)) return { refused: 'secret_hash must be a SHA-256 in hex' };
    const peeked = deps.launches.peek(req.code, req.app_id, req.state);
    if (!peeked) return false;
    const session = deps.state.get<SessionRecord>(keys.session(req.session_id))?.value;
    const principal = peeked.record.principal;
    if (
      session?.kind !== 'app' ||
      session.status !== 'active' ||
      session.resource.id !== req.app_id ||
      session.principal.kind !== principal.kind ||
      session.principal.id !== principal.id
    )
      return { refused: 'the session is not an active app session of this launch' };
    if (instance !== undefined && session.instance !== instance)
      return { refused: 'the session is held by another instance' };
    if (!Number.isFinite(req.expires_at) || req.expires_at > peeked.record.token_expires_at)
      return { refused: 'an app session ends no later than its launch' };
    return deps.launches.redeem(req.code, peeked, { id: req.session_id, expiresAt: req.expires_at }, req.secret_hash);
  };
}

/** The auth tier's internal route that signs an identity assertion for a proxy. */
export const APPS_ASSERTION_PATH = '/internal/v1/apps/assertion';

/**
 * An identity assertion for a proxy-only instance, which holds no signing key of its own: signed
 * only for a token that stands now (its login, user or agent not revoked) and whose principal may
 * use the app, with claims the auth tier computes itself. A proxy sees these tokens anyway: it can
 * obtain nothing here that the requests it forwards do not already carry.
 */
export function createProxyAssertion(deps: {
  tokens: Pick<TokenService, 'resolveById'>;
  access: Pick<AccessChecker, 'authorize'>;
  addressing: Pick<AppAddressing, 'publicUrlOf' | 'consoleUrl'>;
  assertions: Pick<AppAssertions, 'assertion'>;
}) {
  return async (req: { app_id: string; token_id: string }): Promise<{ jwt: string } | { refused: string }> => {
    let principal: Principal;
    try {
      principal = deps.tokens.resolveById(req.token_id).principal;
    } catch (error) {
      if (error instanceof GatehouseError) return { refused: `the token does not stand: ${error.detail}` };
      throw error;
    }
    const decision = deps.access.authorize(principal, { kind: 'app', id: req.app_id }, []);
    const audience = decision.allowed ? deps.addressing.publicUrlOf(decision.resource as ResourceRecord) : undefined;
    if (!audience) return { refused: `${principal.name} may not use app ${req.app_id}` };
    return { jwt: await deps.assertions.assertion(principal, audience, deps.addressing.consoleUrl() ?? '') };
  };
}
