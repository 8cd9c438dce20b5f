// GET /v1/resources/{id}/kubeconfig: a kubeconfig for a cluster the caller may see, pointing kubectl
// at the Kubernetes proxy (server https://<proxy>/clusters/<id>, pinned to Gatehouse's CA), with a
// short-lived access token of the caller itself (an agent's bound to that agent and its scope).
import { stringify } from 'yaml';
import type { AuditLog } from '../audit/audit-log.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import type { TokenService } from '../auth/token-service.js';
import { GatehouseError, notFound } from '../lib/errors.js';
import type { ResourceService } from '../resources/resource-service.js';

export type Kubeconfigs = ReturnType<typeof createKubeconfigs>;

export function createKubeconfigs(deps: {
  resources: Pick<ResourceService, 'get'>;
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

    async issue(ctx: RequestContext & { principal: Principal }, id: string): Promise<string> {
      const cluster = deps.resources.get(ctx, id);
      if (cluster.kind !== 'kube_cluster') throw notFound('kube_cluster', id);
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
