// The composition root: open the stores named by config, build the services, bootstrap, and start
// the listeners of the configured roles (server-plan.ts checks the config first, server-core.ts opens
// the stores and services, server-listeners.ts starts the listeners). Returns a handle that shuts
// everything down in order.
import { hostname } from 'node:os';
import pino from 'pino';
import type { RegisteredRoute } from './api/route-config.js';
import { startAuditRetention } from './audit/retention.js';
import { holdInstanceLease } from './backend/instance-lease.js';
import { isEmbeddedBackend } from './backend/open.js';
import { type BootstrapResult, bootstrapAdmin } from './bootstrap.js';
import { refuseSecondProxyWithoutRedis } from './cluster/instances.js';
import type { Config } from './config/schema.js';
import { type Clock, systemClock } from './lib/clock.js';
import { parseDuration } from './lib/duration.js';
import type { Metrics } from './observability/metrics.js';
import { type Core, openCore } from './server-core.js';
import {
  buildAuthApi,
  doorCommons,
  type Listeners,
  publishProxyTier,
  startMetricsListener,
  startProxyDoors,
  startWebListener,
} from './server-listeners.js';
import { type Plan, planInstance, urlOf } from './server-plan.js';
import type { Services } from './services.js';
import { startSessionReaper } from './sessions/session-reaper.js';
import { StartupError } from './stores.js';

export { VERSION } from './server-plan.js';
export { StartupError };

export interface Gatehouse {
  authUrl?: string;
  webUrl?: string;
  /** Base URL of the metrics listener (GET <metricsUrl>/metrics); absent when metrics_enabled is false. */
  metricsUrl?: string;
  /** Where the SSH proxy listens (roles: proxy). */
  sshAddr?: { host: string; port: number };
  /** Where the PostgreSQL proxy listens (roles: proxy). */
  dbAddr?: { host: string; port: number };
  /** Where the Kubernetes proxy listens (roles: proxy; TLS). */
  kubeAddr?: { host: string; port: number };
  metrics?: Metrics;
  /** The process log (main.ts logs the startup banner to it as well). */
  logger: pino.Logger;
  routes: RegisteredRoute[];
  services: Services;
  bootstrap: BootstrapResult;
  close(): Promise<void>;
}

export async function startGatehouse(
  config: Config,
  opts: { clock?: Clock; logger?: pino.Logger } = {},
): Promise<Gatehouse> {
  const clock = opts.clock ?? systemClock;
  const logger =
    opts.logger ??
    pino({
      level: config.log_level,
      // ISO 8601 times: an operator reads them, and log shippers parse them without a hint.
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: ['req.headers.authorization', '*.api_key', '*.access_token', '*.refresh_token'],
    });
  const plan = planInstance(config, logger);
  const core = await openCore(config, plan, clock, logger);
  const { services, backend, shared, metrics, identity } = core;
  // A removed proxy ends what it holds itself: auth marks those sessions terminated, but the watch that
  // would tell this proxy is refused from the moment of the removal.
  identity?.onRemoved(() => {
    for (const id of services.sessionRegistry.liveIds())
      services.sessionRegistry.terminateLive(id, 'gatehouse: this proxy was removed from the cluster');
  });
  // The admin is the auth tier's to create; a proxy that started first would race it for nothing.
  const bootstrap = plan.runsAuth
    ? await bootstrapAdmin(services, {
        dataDir: plan.dataDir,
        ...(config.bootstrap_api_key ? { bootstrapKey: config.bootstrap_api_key } : {}),
      })
    : {};

  const listeners: Listeners = { apps: [], recordingsStarted: false, draining: false };
  const doors = doorCommons(config, plan, core, listeners, logger);
  const auth = plan.runsAuth ? await buildAuthApi(config, plan, core, doors, clock) : undefined;
  if (auth) {
    listeners.apps.push(auth.app);
    metrics?.trackConnections(auth.app.server, 'auth');
  }
  // Tells offline tools (gatehouse admin reset) that this process uses the state store.
  // Its value says which roles this process runs, for other instances (cluster/instances.ts).
  const home = `${hostname()}:${plan.dataDir}`;
  const instanceLease = holdInstanceLease(backend, {
    onError: (err) => logger.warn({ err }, 'instance lease'),
    info: { roles: config.roles, home, instance: shared.bus.instanceId },
  });
  metrics?.setRecordingBacklog(() => services.recordings.uploader.backlog);
  const jobs = startJobs(config, plan, core, clock, logger);
  const handle: Gatehouse = {
    ...(metrics ? { metrics } : {}),
    logger,
    routes: auth?.routes ?? [],
    services,
    bootstrap,
    close: () => shutDown(config, plan, core, listeners, [...jobs, instanceLease]),
  };
  try {
    if (config.roles.includes('proxy') && !shared.link && (plan.forwarding || !isEmbeddedBackend(config.backend_url))) {
      // Check once our own lease is written, so two proxies starting together see each other.
      for (let i = 0; i < 40 && !instanceLease.held; i++) await new Promise((r) => setTimeout(r, 50));
      await refuseSecondProxyWithoutRedis(backend, { instance: shared.bus.instanceId, home });
    }
    if (auth) {
      await auth.app.listen({ host: plan.authAddr.host, port: plan.authAddr.port });
      handle.authUrl = urlOf(plan, plan.authAddr, auth.app.server);
    }
    // An auth-only instance hands out tickets for the proxy tier's public addresses.
    if (!config.roles.includes('proxy')) publishProxyTier(config, plan, services);
    if (config.roles.includes('proxy')) {
      const started = { config, plan, core, listeners, doors, handle };
      await startWebListener(started, { clock, logger, hasAuth: !!auth });
      await startProxyDoors(started, { clock, logger });
    }
    if (metrics && plan.metricsAddr)
      handle.metricsUrl = await startMetricsListener(config, plan, metrics, listeners, logger);
  } catch (e) {
    await handle.close();
    throw e;
  }
  return handle;
}

/** The auth tier's singleton jobs, each under a lease so one instance works at a time. */
function startJobs(config: Config, plan: Plan, core: Core, clock: Clock, logger: pino.Logger) {
  const { services, backend, auditStore } = core;
  if (!plan.runsAuth) return [];
  if (config.webhooks.deliver) services.webhookDispatcher.start((err, what) => logger.warn({ err }, what));
  // Sessions of an instance that died are ended by the auth tier (session-reaper.ts: ≈ 20 s bound).
  const reaper = startSessionReaper({
    backend,
    sessions: services.sessionRegistry,
    onError: (err) => logger.warn({ err }, 'session reaper'),
  });
  const retentionMs = config.audit.retention === undefined ? undefined : parseDuration(config.audit.retention);
  const retention =
    retentionMs === undefined
      ? undefined
      : startAuditRetention(
          {
            backend,
            store: auditStore,
            audit: services.audit,
            clock,
            onError: (err) => logger.warn({ err }, 'audit retention'),
          },
          { retentionMs },
        );
  return [...(retention ? [retention] : []), reaper];
}

/** Stops everything in order: sessions and listeners, uploads, jobs, then the stores. */
async function shutDown(
  config: Config,
  plan: Plan,
  core: Core,
  listeners: Listeners,
  jobs: Array<{ stop(): Promise<unknown> | unknown }>,
): Promise<void> {
  const { services } = core;
  // A proxy of a cluster sits behind a load balancer: fail its health check first and keep serving
  // while the balancer notices (http.shutdown_drain), so no new connection reaches a closing
  // listener. The embedded single process (npm start) has no balancer to wait for.
  const drainMs = parseDuration(config.http.shutdown_drain) as number;
  const behindBalancer = config.roles.includes('proxy') && (plan.forwarding || !isEmbeddedBackend(config.backend_url));
  if (behindBalancer && !listeners.draining && drainMs > 0) {
    listeners.draining = true;
    await new Promise((r) => setTimeout(r, drainMs));
  }
  listeners.draining = true;
  await core.waitingRoom?.close(); // a start that failed before the web listener took its port over
  // Sessions first, on every door at once: each user is told, each recording closed (and queued for
  // upload). Each door ends what is left within 3 s, the HTTP listeners within 5 s (their
  // in-flight requests finish first), the uploads within 3 s: the whole stays under 10 s.
  await Promise.all([
    listeners.sshProxy?.close(),
    listeners.dbProxy?.close(),
    listeners.kubeProxy?.close(),
    listeners.appDoor?.close(),
    ...listeners.apps.map((a) => a.close()),
  ]);
  // Uploads get a moment to finish; what is left stays in the spool for the next start.
  if (listeners.recordingsStarted) await services.recordings.stop({ drainMs: 3000 });
  // Background jobs next (in-flight webhook attempts finish, bounded), while the stores are open.
  await services.webhookDispatcher.stop();
  for (const job of jobs) await job.stop();
  core.identity?.stop();
  services.close();
  await core.shared.close();
  await core.auditStore.close();
  await core.backend.close();
}
