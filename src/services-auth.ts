// Who is calling, for every door: the sign-in throttle (shared through Redis where there is one), the
// principal pipeline, the token service and a person's own logins, built over the state store.

import type { UsageTracker } from './agents/usage.js';
import type { createAgentServices } from './agents/wiring.js';
import {
  asLoginThrottle,
  createLoginThrottle,
  type LoginThrottle,
  sharedLoginThrottle,
} from './auth/login-throttle.js';
import { createLoginService, type LoginService } from './auth/logins.js';
import { createPrincipalPipeline, type PrincipalPipeline } from './auth/principal-pipeline.js';
import { createTokenService, type TokenService } from './auth/token-service.js';
import type { SharedState } from './cluster/shared-state.js';
import { parseDuration } from './lib/duration.js';

export interface CallerServices {
  throttle: LoginThrottle;
  /** What a token, SSH key or ticket acts as: one pipeline for every door. */
  pipeline: PrincipalPipeline;
  tokens: TokenService;
  /** A person's own logins (where, when, how), ended one at a time or all at once. */
  logins: LoginService;
}

/** What most services are built over: the same as the agents' wiring is (agents/wiring.ts). */
type ServiceBase = Pick<
  Parameters<typeof createAgentServices>[1],
  'config' | 'state' | 'audit' | 'clock' | 'policies' | 'tokenIndex'
>;

export function createCallerServices(
  deps: ServiceBase & {
    shared: SharedState;
    usage: UsageTracker;
    onFailedLogin?: (() => void) | undefined;
  },
): CallerServices {
  const { config, state, audit, clock, policies, shared } = deps;
  const throttleWindowMs = parseDuration(config.login_throttle.window) as number;
  const localThrottle = createLoginThrottle(
    { maxFailures: config.login_throttle.max_failures, windowMs: throttleWindowMs },
    clock,
  );
  const throttle = shared.counters
    ? sharedLoginThrottle(shared.counters, localThrottle, throttleWindowMs)
    : asLoginThrottle(localThrottle);
  const pipeline = createPrincipalPipeline({
    state,
    clock,
    policies,
    agentRequestsPerMinute: config.agents.requests_per_minute,
  });
  const tokens = createTokenService({
    state,
    audit,
    clock,
    throttle,
    policies,
    pipeline,
    index: deps.tokenIndex,
    usage: deps.usage,
    settings: {
      accessTtlMs: parseDuration(config.tokens.access_ttl) as number,
      refreshTtlMs: parseDuration(config.tokens.refresh_ttl) as number,
      maxLoginsPerKey: config.tokens.max_logins_per_key,
    },
    ...(deps.onFailedLogin ? { onFailedLogin: deps.onFailedLogin } : {}),
  });
  const logins = createLoginService({
    state,
    audit,
    clock,
    index: deps.tokenIndex,
    refreshTtlMs: parseDuration(config.tokens.refresh_ttl) as number,
    revokeKeys: tokens.revokeKeys,
  });
  return { throttle, pipeline, tokens, logins };
}
