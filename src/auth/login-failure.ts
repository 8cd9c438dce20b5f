// A failed login, whichever door it came through (an API key, a refresh token, a token exchange, a
// token typed as an SSH password): counted against the source and the presented credential (its
// hash) in the login throttle, audited, and answered 429 instead once either is over the limit.
// Only failures come here, so a valid credential is never throttled (see login-throttle.ts).

import type { AuditLog } from '../audit/audit-log.js';
import { GatehouseError } from '../lib/errors.js';
import { type LoginThrottle, throttleKeys } from './login-throttle.js';
import { eventContext, type RequestContext } from './principal.js';

export type LoginFailed = (
  ctx: RequestContext,
  reason: string,
  code: 'invalid_credentials' | 'invalid_token',
  presentedHash?: string,
) => Promise<GatehouseError>;

/**
 * The 429 a failure gets instead of its own answer while one of its counters is over the limit
 * (audited as auth.login.throttled), or undefined. Shared by every secret's failures: API keys and
 * tokens here, security-key assertions in mfa/mfa-sign-in.ts.
 */
export async function throttledError(
  deps: { audit: AuditLog; throttle: LoginThrottle },
  ctx: RequestContext,
  counted: string[],
  data?: Record<string, unknown>,
): Promise<GatehouseError | undefined> {
  const wait = await deps.throttle.retryAfter(counted);
  if (wait === undefined) return undefined;
  await deps.audit.record({
    type: 'auth.login.throttled',
    actor: { kind: 'anonymous' },
    success: false,
    ...eventContext(ctx),
    ...(data ? { data } : {}),
  });
  return new GatehouseError('rate_limited', `too many failed attempts; retry in ${wait} s`, {
    headers: {
      'retry-after': String(wait),
      'ratelimit-limit': String(deps.throttle.limit),
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(wait),
    },
  });
}

export function createLoginFailures(deps: {
  audit: AuditLog;
  throttle: LoginThrottle;
  onFailedLogin?: () => void;
}): LoginFailed {
  const { audit } = deps;

  return async function loginFailed(ctx, reason, code, presentedHash) {
    const counted = throttleKeys(ctx.remoteAddr, presentedHash);
    deps.onFailedLogin?.();
    const throttled = await throttledError(deps, ctx, counted);
    if (throttled) return throttled;
    await deps.throttle.recordFailure(counted);
    await audit.record({
      type: 'auth.login.failed',
      actor: { kind: 'anonymous' },
      success: false,
      ...eventContext(ctx),
      data: { reason },
    });
    return new GatehouseError(code, reason);
  };
}
