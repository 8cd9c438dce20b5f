// GET /v1/resources/{id}/kubeconfig: a kubeconfig for a cluster the caller may reach, pointing kubectl
// at the Kubernetes proxy (server https://<proxy>/clusters/<id>, pinned to Gatehouse's CA), with a
// short-lived access token of the caller itself (an agent's bound to that agent and its scope).
// Who may have one is the access checker's answer for the cluster, as for the kube door itself — not
// the API permission resources:read: a person who may use a cluster may get its kubeconfig.
import { stringify } from 'yaml';
import type { AccessChecker } from '../access/access-checker.js';
import type { AuditLog } from '../audit/audit-log.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import type { TokenService } from '../auth/token-service.js';
import { GatehouseError } from '../lib/errors.js';

export type Kubeconfigs = ReturnType<typeof createKubeconfigs>;

export function createKubeconfigs(deps: {
  access: Pick<AccessChecker, 'authorize'>;
  tokens: Pick<TokenService, 'issueForSelf'>;
  audit: AuditLog;
  tokenTtlMs: number;
}) {
  let proxy: { url: string; caPem: string } | undefined;

  return {
    /** Where kubectl reaches the proxy and the CA that signed its certificate (set once it listens). */
    publish(url: string, caPem: string): void {
      proxy = { url, caPem };
    },
    get endpoint() {
      return proxy;
    },

    /** `ref`: the cluster's id (kube_…) or its name. A cluster the caller may not reach does not exist for it. */
    async issue(ctx: RequestContext & { principal: Principal }, ref: string): Promise<string> {
      const target = ref.startsWith('kube_')
        ? { kind: 'kube_cluster' as const, id: ref }
        : { kind: 'kube_cluster' as const, name: ref };
      const decision = deps.access.authorize(ctx.principal, target, []);
      if (!decision.allowed) throw new GatehouseError('not_found', decision.reason);
      const cluster = decision.resource;
      if (!proxy) throw new GatehouseError('unavailable', 'the Kubernetes proxy is not running on this instance');
      const { accessToken, expiresAt } = await deps.tokens.issueForSelf(ctx.principal, deps.tokenTtlMs);
      const user = `${ctx.principal.name}@gatehouse`;
      await deps.audit.record({
        type: 'kube.kubeconfig.issued',
        actor: actorOf(ctx),
        target: { kind: 'kube_cluster', id: cluster.id, name: cluster.name },
        ...eventContext(ctx),
        data: { expires_at: new Date(expiresAt).toISOString() },
      });
      return stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: cluster.name,
            cluster: {
              server: `${proxy.url}/clusters/${cluster.id}`,
              'certificate-authority-data': Buffer.from(proxy.caPem).toString('base64'),
            },
          },
        ],
        users: [{ name: user, user: { token: accessToken } }],
        contexts: [{ name: cluster.name, context: { cluster: cluster.name, user, namespace: 'default' } }],
        'current-context': cluster.name,
      });
    },
  };
}
