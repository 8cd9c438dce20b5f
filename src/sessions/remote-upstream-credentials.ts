// The doors' upstream credentials on a proxy of a cluster (issue 29): asked of the auth tier for each
// session (POST /internal/v1/credentials, api/internal/internal.routes.ts) with this proxy's own
// credential, so the proxy holds no seal key and reads nothing under secrets/. A refusal is the
// auth tier's 403 with its reason; no answer is "unavailable", as for any state the proxy cannot reach.
import { GatehouseError } from '../lib/errors.js';
import { type AuthPool, AuthUnreachable } from '../net/auth-client.js';
import type { DbUpstream } from '../resources/db-upstream.js';
import type { KubeUpstream } from '../resources/kube-upstream.js';
import type { CredentialRequest, SshUpstreamCredential, UpstreamCredentials } from './upstream-credentials.js';

export const CREDENTIALS_PATH = '/internal/v1/credentials';

export function remoteUpstreamCredentials(pool: Pick<AuthPool, 'fetch'>): UpstreamCredentials {
  async function ask<T>(req: CredentialRequest): Promise<T> {
    let res: Response;
    try {
      res = await pool.fetch(CREDENTIALS_PATH, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(req),
        // Issuing is recorded: a call that may have reached auth is not sent twice.
        idempotent: false,
      });
    } catch (error) {
      if (error instanceof AuthUnreachable)
        throw new GatehouseError('unavailable', `no upstream credential: ${error.message}`);
      throw error;
    }
    const body = (await res.json().catch(() => ({}))) as { result?: T; detail?: string };
    if (res.status === 200) return body.result as T;
    const detail = body.detail ?? `the auth tier answered ${res.status}`;
    if (res.status === 403) throw new GatehouseError('forbidden', detail);
    throw new GatehouseError('unavailable', `no upstream credential: ${detail}`);
  }
  return {
    ssh: (grounds, o) => ask<SshUpstreamCredential>({ kind: 'ssh', grounds, ...o }),
    db: (grounds, o) => ask<DbUpstream | null>({ kind: 'db', grounds, ...o }).then((r) => r ?? undefined),
    kube: (grounds, o) => ask<KubeUpstream | null>({ kind: 'kube', grounds, ...o }).then((r) => r ?? undefined),
    mcp: (grounds, o) => ask<Record<string, string> | null>({ kind: 'mcp', grounds, ...o }).then((r) => r ?? {}),
  };
}
