// The identity assertion (Gatehouse-Jwt-Assertion) an HTTP door hands the app or MCP server: signed
// locally where this instance holds the apps' signing key, asked of the auth tier on a proxy-only
// instance (apps/app-proxy-redeem.ts checks each ask there). Shared by the app and MCP doors.
import { APPS_ASSERTION_PATH } from '../../apps/app-proxy-redeem.js';
import type { Apps } from '../../apps/apps.js';
import type { Principal } from '../../auth/principal.js';
import type { AuthPool } from '../../net/auth-client.js';
import type { ResourceRecord } from '../../resources/resource-service.js';

/** The identity assertion for a principal at an app. */
export type AssertionFor = (
  principal: Principal,
  app: ResourceRecord,
  audience: string,
  issuer: string,
) => Promise<string>;

export const localAssertions =
  (apps: Pick<Apps, 'assertions'>): AssertionFor =>
  (principal, _app, audience, issuer) =>
    apps.assertions.assertion(principal, audience, issuer);

/** Reused until a minute before the auth tier's 5 minutes run out, as the local signer does. */
const REMOTE_REUSE_MS = 4 * 60_000;

/** A proxy-only instance holds no signing key: the auth tier signs (apps/app-proxy-redeem.ts). */
export function remoteAssertions(pool: Pick<AuthPool, 'fetch'>, clock: () => number): AssertionFor {
  const cache = new Map<string, { jwt: string; until: number }>();
  return async (principal, app) => {
    const tokenId = principal.token?.id;
    if (!tokenId) throw new Error('an app request without a token');
    const key = `${tokenId} ${app.id}`;
    const hit = cache.get(key);
    if (hit && hit.until > clock()) return hit.jwt;
    const res = await pool.fetch(APPS_ASSERTION_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ app_id: app.id, token_id: tokenId }),
    });
    const body = (await res.json().catch(() => ({}))) as { jwt?: string; detail?: string };
    if (!res.ok || !body.jwt) throw new Error(`auth signed no assertion: ${res.status} ${body.detail ?? ''}`);
    if (cache.size >= 10_000) cache.clear();
    cache.set(key, { jwt: body.jwt, until: clock() + REMOTE_REUSE_MS });
    return body.jwt;
  };
}
