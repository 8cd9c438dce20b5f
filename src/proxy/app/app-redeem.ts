// What the app door needs the auth tier's rights for, done locally where this instance is auth (or
// one process), and asked of the auth tier on a proxy-only instance (apps/app-proxy-redeem.ts checks
// each there): spending a launch code for the cookie session — then waiting until this proxy's cache
// has it, so the browser's very next request finds it — and signing the identity assertion.
import type { AppCodeRecord } from '../../apps/app-launch.js';
import { APPS_REDEEM_PATH } from '../../apps/app-proxy-redeem.js';
import type { Apps } from '../../apps/apps.js';
import type { AuthPool } from '../../net/auth-client.js';

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
