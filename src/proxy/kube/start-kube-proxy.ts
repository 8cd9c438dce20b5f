// Starts the Kubernetes proxy for the composition root: the CA from the data dir, a fresh listener
// certificate for the configured host, the listener, and the URL kubeconfigs will carry.
import type { Logger } from 'pino';
import { ConfigError } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { DoorOptions } from '../../net/listener-limits.js';
import type { Services } from '../../services.js';
import { sessionPrincipal } from '../../sessions/session-registry.js';
import { createKubeAccess } from './kube-access.js';
import { createKubeProxy, type KubeProxy } from './kube-proxy.js';

export async function startKubeProxy(
  services: Services,
  opts: {
    config: Pick<Config, 'kube_addr' | 'kube_public_url'>;
    dataDir: string;
    clock: Clock;
    logger: Logger;
    door: DoorOptions;
    /** proxy.session_idle_timeout (ms), if set. */
    idleTimeoutMs?: number;
  },
): Promise<{ proxy: KubeProxy; host: string; port: number }> {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(opts.config.kube_addr);
  if (!m || Number(m[3]) > 65535)
    throw new ConfigError(`config key kube_addr: ${opts.config.kube_addr} is not host:port`);
  const host = (m[1] ?? m[2]) as string;
  const publicUrl = opts.config.kube_public_url ? new URL(opts.config.kube_public_url) : undefined;
  const ca = services.kubeCa;
  const names = [host, ...(publicUrl ? [publicUrl.hostname.replace(/^\[|\]$/g, '')] : [])];
  const proxy = createKubeProxy({
    tls: await services.kubeListenerCertificate(names),
    access: createKubeAccess({
      checker: services.access,
      credentials: { pipeline: services.pipeline, tokens: services.tokens, tickets: services.tickets },
    }),
    upstream: (decision, proof) =>
      services.upstreamCredentials.kube(
        {
          session_id: newId('session', opts.clock()),
          kind: 'kube',
          ...sessionPrincipal(decision.principal),
          resource: { kind: 'kube_cluster', id: decision.cluster.id, name: decision.cluster.name },
          login: decision.user,
        },
        { proof },
      ),
    sessions: services.sessionRegistry,
    recordings: services.recordings,
    audit: services.audit,
    clock: opts.clock,
    logger: opts.logger,
    door: opts.door,
    ...(opts.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: opts.idleTimeoutMs }),
    ...(services.metrics ? { metrics: services.metrics } : {}),
  });
  const bound = await proxy.listen(host, Number(m[3]));
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  services.kubeconfigs.publish(publicUrl?.origin ?? `https://${hostInUrl}:${bound.port}`, ca.certPem);
  return { proxy, host, port: bound.port };
}
