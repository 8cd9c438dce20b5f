// Application access: the apps domain's parts, built once over the shared services. The web
// listener's app door (src/proxy/app/) and the API's launch route use them.
import type { AccessChecker } from '../access/access-checker.js';
import type { SigningKeys } from '../agents/signing-keys.js';
import type { TokenService } from '../auth/token-service.js';
import type { StateStore } from '../backend/state.js';
import type { Clock } from '../lib/clock.js';
import { createAppAddressing } from './app-addressing.js';
import { createAppAssertions } from './app-assertion.js';
import { createAppLaunches } from './app-launch.js';
import { createProxyAssertion, createProxyRedeem } from './app-proxy-redeem.js';

export type Apps = ReturnType<typeof createApps>;

export function createApps(deps: {
  state: StateStore;
  clock: Clock;
  access: Pick<AccessChecker, 'authorize'>;
  tokens: Pick<TokenService, 'issueForSelf' | 'resolveById'>;
  signingKeys: Pick<SigningKeys, 'current' | 'sign'>;
  sessionTtlMs: number;
}) {
  const addressing = createAppAddressing({ state: deps.state });
  const launches = createAppLaunches({ ...deps, addressing });
  const assertions = createAppAssertions(deps);
  return {
    addressing,
    launches,
    /** The auth tier's side of a proxy-only instance's identity assertions. */
    proxyAssertion: createProxyAssertion({ ...deps, addressing, assertions }),
    /** The auth tier's side of a proxy-only instance's callback. */
    proxyRedeem: createProxyRedeem({ launches, state: deps.state }),
    assertions,
  };
}
