// The stores (or, on a proxy of a cluster, the auth tier standing for them), the shared state, the
// metrics and the domain services over them: what a started instance runs on, opened in order.
import type pino from 'pino';
import { serveWhileWaiting, type WaitingListener } from './api/waiting-listener.js';
import { SealKeyMismatch } from './backend/seal-check.js';
import { announcingInstance } from './cluster/announced-instance.js';
import { authPeers } from './cluster/instances.js';
import { establishIdentity, IDENTITY_FILE, type ProxyIdentity } from './cluster/proxy-identity-client.js';
import { openSharedState, registerRedisMetric } from './cluster/shared-state.js';
import type { Config } from './config/schema.js';
import type { Clock } from './lib/clock.js';
import { CLUSTER_TOKEN_HEADER, createAuthPool, waitForAuthTier } from './net/auth-client.js';
import { instrumentAuditStore, watchAuditStatus } from './observability/audit-metrics.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import { type Plan, VERSION } from './server-plan.js';
import { createServices, type Services } from './services.js';
import { openRemoteStores, openStores, StartupError } from './stores.js';

/** The stores and services of a started instance, and what the shutdown must stop. */
export interface Core {
  authPool: ReturnType<typeof announcingInstance> | undefined;
  waitingRoom: WaitingListener | undefined;
  identity: ProxyIdentity | undefined;
  backend: Awaited<ReturnType<typeof openStores>>['backend'];
  auditStore: Awaited<ReturnType<typeof openStores>>['auditStore'];
  instrumentedAudit: Awaited<ReturnType<typeof openStores>>['auditStore'];
  metrics: Metrics | undefined;
  shared: ReturnType<typeof openSharedState>;
  services: Services;
}

/** The stores (or the auth tier standing for them), shared state, metrics and the services over them. */
export async function openCore(config: Config, plan: Plan, clock: Clock, logger: pino.Logger): Promise<Core> {
  const { authPool, waitingRoom, identity, backend, auditStore } = await reachStores(config, plan, logger);
  const metrics = config.metrics_enabled ? createMetrics({ prefix: config.metrics_prefix, clock }) : undefined;
  metrics?.setHealthChecks({ backend: () => backend.ping(), audit: () => auditStore.ping() });
  if (metrics) watchAuditStatus(auditStore, metrics);
  // Redis (or this process) for what instances share beyond the state store; an outage is logged
  // once each way, and the instance keeps serving on its own counters meanwhile.
  const shared = openSharedState(config.redis_url, {
    ...(identity && { identity: identity.instance }),
    onError: (err) => logger.warn({ err }, 'redis'),
    onChange: (up) =>
      up
        ? logger.info('redis reachable: shared counters and session registry in use again')
        : logger.warn('redis unreachable: per-instance fallback until it is back'),
  });
  authPool?.announce(shared.bus.instanceId);
  if (metrics && shared.link) registerRedisMetric(metrics, shared.link);
  metrics?.setAuthPeers(() => authPeers(backend, shared.bus.instanceId), plan.runsAuth);
  const instrumentedAudit = metrics ? instrumentAuditStore(auditStore, metrics) : auditStore;
  const services = await createServices({
    config,
    backend,
    auditStore: instrumentedAudit,
    clock,
    shared,
    warn: (message) => logger.warn(message),
    ...(metrics ? { metrics, onFailedLogin: () => metrics.failedLogins.inc() } : {}),
    // A proxy of a cluster holds no secrets: its doors ask the auth tier, one session at a time.
    ...(authPool ? { authTier: authPool } : {}),
  }).catch(async (e: unknown) => {
    await Promise.allSettled([backend.close(), auditStore.close(), shared.close(), waitingRoom?.close()]);
    if (e instanceof SealKeyMismatch) throw new StartupError(e.message, { cause: e });
    throw e;
  });
  return { authPool, waitingRoom, identity, backend, auditStore, instrumentedAudit, metrics, shared, services };
}

/** The stores named by config, or on a proxy of a cluster the auth tier's, once it answers and knows us. */
async function reachStores(config: Config, plan: Plan, logger: pino.Logger) {
  // Every internal call names this instance once the session bus has its id (cluster/announced-instance.ts).
  const authPool = plan.forwarding
    ? announcingInstance(createAuthPool(config.auth_servers as string[], { tls: config.tls !== undefined }))
    : undefined;
  // Tiers started together (Kubernetes, compose, systemd): a proxy up before the auth tier waits for
  // it, alive and not ready on its web address, instead of exiting.
  let waitingRoom: WaitingListener | undefined;
  if (authPool)
    await waitForAuthTier(authPool, {
      async onWait(reason, waitedMs) {
        logger.warn(
          `waiting for the auth tier (auth_servers ${config.auth_servers?.join(', ')}) for ${Math.round(waitedMs / 1000)} s, /webapi/ping answers 503 meanwhile: ${reason}`,
        );
        waitingRoom ??= await serveWhileWaiting({
          ...plan.webAddr,
          ...(plan.https ? { https: plan.https } : {}),
          limits: plan.httpLimits,
          version: VERSION,
          startedAt: plan.startedAt,
        });
      },
    });
  let identity: ProxyIdentity | undefined;
  const stores = await (async () => {
    if (!authPool) return openStores(config, plan.dataDir);
    if (plan.joined) {
      identity = await establishIdentity(authPool, {
        dataDir: plan.dataDir,
        ...(config.cluster.join_token !== undefined && { joinToken: config.cluster.join_token }),
        onError: (err) => logger.warn({ err }, 'renewing this proxy’s cluster credential'),
      });
      authPool.authenticateWith((identity as ProxyIdentity).headers);
      // A refused call may mean the identity was removed: renewing tells, within a round trip.
      const mine = identity as ProxyIdentity;
      authPool.onRefused(() => mine.refused());
      mine.onRemoved(() =>
        logger.error(
          `this proxy's cluster identity ${mine.instance} was removed: every call to the auth tier is refused, /webapi/ping answers 503; start it with a new join token after deleting ${IDENTITY_FILE}`,
        ),
      );
    } else authPool.authenticateWith(() => ({ [CLUSTER_TOKEN_HEADER]: plan.sharedToken as string }));
    return openRemoteStores(authPool);
  })().catch(async (e: unknown) => {
    identity?.stop();
    authPool?.close();
    await waitingRoom?.close();
    throw e;
  });
  return { authPool, waitingRoom, identity, ...stores };
}
