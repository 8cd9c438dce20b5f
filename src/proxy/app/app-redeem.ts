// What the app door needs the auth tier's rights for, done locally where this instance is auth (or
// one process), and asked of the auth tier on a proxy-only instance (apps/app-proxy-redeem.ts checks
// each there): spending a launch code for the cookie session — then waiting until this proxy's cache
// has it, so the browser's very next request finds it — and signing the identity assertion.
import type { AppCodeRecord } from '../../apps/app-launch.js';
import { APPS_ASSERTION_PATH, APPS_REDEEM_PATH } from '../../apps/app-proxy-redeem.js';
import type { Apps } from '../../apps/apps.js';
import type { Principal } from '../../auth/principal.js';
import type { AuthPool } from '../../net/auth-client.js';
import type { ResourceRecord } from '../../resources/resource-service.js';

export interface RedeemSpec {
  code: string;
  state: string;
  peeked: { record: AppCodeRecord; revision: number };
  session: { id: string; expiresAt: number };
  secretHash: string;
}

export type Redeem = (spec: RedeemSpec) => Promise<boolean>;

export const localRedeem =
  (apps: Pick<Apps, 'launches'>): Redeem =>
  (r) =>
    apps.launches.redeem(r.code, r.peeked, r.session, r.secretHash);

/** The state revision an auth answer to a proxy carries (api/plugins/cluster-peer.ts). */
const REVISION_HEADER = 'x-gatehouse-revision';

export function remoteRedeem(
  pool: Pick<AuthPool, 'fetch'>,
  awaitRevision: (revision: number) => Promise<void>,
): Redeem {
  return async (r) => {
    const res = await pool.fetch(APPS_REDEEM_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        code: r.code,
        state: r.state,
        app_id: r.peeked.record.app_id,
        session_id: r.session.id,
        secret_hash: r.secretHash,
        expires_at: r.session.expiresAt,
      }),
    });
    const body = (await res.json().catch(() => ({}))) as { redeemed?: boolean; detail?: string };
    if (!res.ok) throw new Error(`auth refused the launch: ${res.status} ${body.detail ?? ''}`);
    const revision = Number(res.headers.get(REVISION_HEADER));
    if (body.redeemed && Number.isFinite(revision))
      await Promise.race([awaitRevision(revision), new Promise((done) => setTimeout(done, 2000).unref())]);
    return body.redeemed === true;
  };
}

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
