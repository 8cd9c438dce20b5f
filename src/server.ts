// The composition root: open the stores named by config, build the services, bootstrap, and start
// the listeners of the configured roles. Returns a handle that shuts everything down in order.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { buildApi } from './api/build-api.js';
import { buildMetricsServer } from './api/metrics-server.js';
import type { RegisteredRoute } from './api/route-config.js';
import { serveWhileWaiting, type WaitingListener } from './api/waiting-listener.js';
import { startAuditRetention } from './audit/retention.js';
import { holdInstanceLease } from './backend/instance-lease.js';
import { isEmbeddedBackend } from './backend/open.js';
import { SealKeyMismatch } from './backend/seal-check.js';
import { type BootstrapResult, bootstrapAdmin } from './bootstrap.js';
import { announcingInstance } from './cluster/announced-instance.js';
import { createPeerCheck } from './cluster/cluster-peers.js';
import { authPeers, refuseSecondProxyWithoutRedis } from './cluster/instances.js';
import { establishIdentity, IDENTITY_FILE, type ProxyIdentity } from './cluster/proxy-identity-client.js';
import { parseRedisUrl } from './cluster/redis-link.js';
import { openSharedState, registerRedisMetric } from './cluster/shared-state.js';
import { ConfigError } from './config/load.js';
import type { Config } from './config/schema.js';
import { type Clock, systemClock } from './lib/clock.js';
import { parseDuration } from './lib/duration.js';
import { CLUSTER_TOKEN_HEADER, createAuthPool, waitForAuthTier } from './net/auth-client.js';
import { createDescriptorBudget, type DoorLimits, descriptorLimit, doorBudgetSize } from './net/listener-limits.js';
import { instrumentAuditStore, watchAuditStatus } from './observability/audit-metrics.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import type { AppDoor } from './proxy/app/app-door.js';
import { startAppDoor, webPublicUrl } from './proxy/app/start-app-door.js';
import type { DbProxy } from './proxy/db/db-proxy.js';
import { startDbProxy } from './proxy/db/start.js';
import type { KubeProxy } from './proxy/kube/kube-proxy.js';
import { startKubeProxy } from './proxy/kube/start-kube-proxy.js';
import { createSshAccess } from './proxy/ssh/access.js';
import { loadOrCreateHostKey } from './proxy/ssh/host-key.js';
import { createSshProxy, type SshProxy } from './proxy/ssh/ssh-proxy.js';
import { createServices, type Services } from './services.js';
import { startSessionReaper } from './sessions/session-reaper.js';
import { openRemoteStores, openStores, StartupError } from './stores.js';

export { StartupError };

export const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

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

function parseAddr(key: string, addr: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(addr);
  const port = Number(m?.[3]);
  if (!m || port > 65535) throw new ConfigError(`config key ${key}: ${addr} is not host:port`);
  return { host: (m[1] ?? m[2]) as string, port };
}

/** The proxies' door limits (proxy.*); a deadline under 1 s would cut every honest client. */
function proxyDoorLimits(proxy: Config['proxy']): DoorLimits {
  const handshakeTimeoutMs = parseDuration(proxy.handshake_timeout) as number;
  if (handshakeTimeoutMs < 1000)
    throw new ConfigError(
      'config key proxy.handshake_timeout (or GATEHOUSE_PROXY_HANDSHAKE_TIMEOUT): must be at least 1s',
    );
  const { max_connections: maxConnections, max_connections_per_source: maxConnectionsPerSource } = proxy;
  return { maxConnections, maxConnectionsPerSource, handshakeTimeoutMs };
}

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

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
  const dataDir = resolve(config.data_dir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });

  const authAddr = parseAddr('auth_addr', config.auth_addr);
  const webAddr = parseAddr('web_addr', config.web_addr);
  const sshAddr = parseAddr('ssh_addr', config.ssh_addr);
  const dbAddr = parseAddr('db_addr', config.db_addr);
  if (config.ssh_public_addr) parseAddr('ssh_public_addr', config.ssh_public_addr);
  // A malformed redis_url is a config error before any store is opened, like the addresses above.
  if (config.redis_url !== undefined) parseRedisUrl(config.redis_url);
  const metricsAddr = config.metrics_enabled ? parseAddr('metrics_addr', config.metrics_addr) : undefined;
  const proxyLimits = proxyDoorLimits(config.proxy);
  for (const [key, addr] of [
    ['auth_addr', authAddr],
    ['web_addr', webAddr],
    ['db_addr', dbAddr],
    ...(metricsAddr ? [['metrics_addr', metricsAddr] as const] : []),
  ] as const) {
    if (!isLoopback(addr.host) && !config.tls && !config.insecure) {
      throw new ConfigError(
        `config key ${key}: ${addr.host} is not loopback; configure tls (cert_file, key_file) or set insecure: true`,
      );
    }
  }
  const runsAuth = config.roles.includes('auth');
  // A proxy-only instance with auth_servers holds no store credentials: it forwards to the auth tier.
  const forwarding = !runsAuth && config.auth_servers !== undefined;
  // Otherwise it follows the cluster's state itself (see README "Several instances"): it needs the
  // shared backend, never a file of its own that no auth instance writes.
  if (!runsAuth && !forwarding && isEmbeddedBackend(config.backend_url)) {
    throw new ConfigError(
      'config key roles: a proxy-only instance needs the auth tier: set auth_servers (GATEHOUSE_AUTH_SERVERS) and a join token (cluster.join_token), or backend_url to the etcd:// or postgres:// URL the auth tier uses',
    );
  }
  // A proxy proves who it is with an identity of its own (a join token once, then its key in the data
  // dir); the shared cluster token only where cluster.allow_shared_token says so (deprecated).
  const sharedToken = config.cluster.allow_shared_token ? config.cluster_token : undefined;
  const joined = config.cluster.join_token !== undefined || existsSync(join(dataDir, IDENTITY_FILE));
  if (forwarding && !joined && sharedToken === undefined) {
    throw new ConfigError(
      config.cluster_token === undefined
        ? 'config key cluster.join_token (or GATEHOUSE_JOIN_TOKEN): a proxy with auth_servers joins the cluster with a join token (gatehouse tokens add --role proxy)'
        : 'config key cluster.join_token (or GATEHOUSE_JOIN_TOKEN): the shared cluster_token is refused unless cluster.allow_shared_token is set (deprecated); join the proxy with a join token instead',
    );
  }
  if (config.cluster_token !== undefined && sharedToken === undefined)
    logger.warn('config key cluster_token is ignored: the shared token needs cluster.allow_shared_token (deprecated)');
  else if (sharedToken !== undefined)
    logger.warn(
      'cluster.allow_shared_token is deprecated: every holder of the shared token can act as any proxy; join proxies with join tokens',
    );
  if (forwarding) {
    for (const key of ['backend_url', 'audit_url', 'audit_read_url'] as const) {
      if (config[key] !== undefined)
        logger.warn(`config key ${key} is ignored: this proxy reaches the stores through auth_servers`);
    }
  } else if (!runsAuth && config.auth_servers !== undefined) {
    logger.warn('config key auth_servers is ignored: this instance runs the auth tier itself');
  }

  const startedAt = Date.now();
  const https = config.tls
    ? { cert: readFileSync(config.tls.cert_file), key: readFileSync(config.tls.key_file) }
    : undefined;
  const httpLimits = {
    requestTimeoutMs: parseDuration(config.http.request_timeout) as number,
    idleTimeoutMs: parseDuration(config.http.idle_timeout) as number,
    maxConnections: config.http.max_connections,
    maxConnectionsPerSource: config.http.max_connections_per_source,
  };
  // Every internal call names this instance once the session bus has its id (cluster/announced-instance.ts).
  const authPool = forwarding
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
          ...webAddr,
          ...(https ? { https } : {}),
          limits: httpLimits,
          version: VERSION,
          startedAt,
        });
      },
    });
  let identity: ProxyIdentity | undefined;
  const { backend, auditStore } = await (async () => {
    if (!authPool) return openStores(config, dataDir);
    if (joined) {
      identity = await establishIdentity(authPool, {
        dataDir,
        ...(config.cluster.join_token !== undefined && { joinToken: config.cluster.join_token }),
        onError: (err) => logger.warn({ err }, 'renewing this proxy’s cluster credential'),
      });
      authPool.authenticateWith((identity as ProxyIdentity).headers);
    } else authPool.authenticateWith(() => ({ [CLUSTER_TOKEN_HEADER]: sharedToken as string }));
    return openRemoteStores(authPool);
  })().catch(async (e: unknown) => {
    identity?.stop();
    authPool?.close();
    await waitingRoom?.close();
    throw e;
  });
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
  metrics?.setAuthPeers(() => authPeers(backend, shared.bus.instanceId), runsAuth);
  const instrumentedAudit = metrics ? instrumentAuditStore(auditStore, metrics) : auditStore;
  const services = await createServices({
    config,
    backend,
    auditStore: instrumentedAudit,
    clock,
    shared,
    warn: (message) => logger.warn(message),
    ...(metrics ? { metrics, onFailedLogin: () => metrics.failedLogins.inc() } : {}),
  }).catch(async (e: unknown) => {
    await Promise.allSettled([backend.close(), auditStore.close(), shared.close(), waitingRoom?.close()]);
    if (e instanceof SealKeyMismatch) throw new StartupError(e.message, { cause: e });
    throw e;
  });
  // The admin is the auth tier's to create; a proxy that started first would race it for nothing.
  const bootstrap = runsAuth
    ? await bootstrapAdmin(services, {
        dataDir,
        ...(config.bootstrap_api_key ? { bootstrapKey: config.bootstrap_api_key } : {}),
      })
    : {};

  const scheme = https ? 'https' : 'http';
  const apps: Array<{ close(): PromiseLike<unknown> }> = [];
  let sshProxy: SshProxy | undefined;
  let dbProxy: DbProxy | undefined;
  let kubeProxy: KubeProxy | undefined;
  let appDoor: AppDoor | undefined;
  let recordingsStarted = false;
  let draining = false;
  const common = {
    logger,
    version: VERSION,
    startedAt,
    draining: () => draining,
    ...(https ? { https } : {}),
    ...(metrics ? { metrics } : {}),
    limits: httpLimits,
  };
  // The public listeners (web, SSH, PostgreSQL, Kubernetes) share the open-file limit less a reserve,
  // so that no flood of them can take the descriptors the auth API and the stores need.
  const fdLimit = descriptorLimit();
  const doorBudget = createDescriptorBudget(doorBudgetSize(fdLimit, config.proxy.fd_reserve));
  const warn = (message: string) => logger.warn(message);
  const door = { limits: proxyLimits, budget: doorBudget, warn };
  // The internal API is for proxies elsewhere: an auth-only instance (the cluster's auth tier), or one
  // that still lets the deprecated shared token in. A single process serves its own doors.
  const identities = services.proxyIdentities;
  const servesProxies = !config.roles.includes('proxy') || sharedToken !== undefined;
  const cluster =
    identities && servesProxies
      ? {
          peers: createPeerCheck({
            identityOf: (credential) => identities.identityOf(credential),
            ...(sharedToken !== undefined && { sharedToken }),
          }),
          backend,
          audit: instrumentedAudit,
          clock,
        }
      : undefined;
  const auth = runsAuth
    ? await buildApi(services, {
        ...common,
        limits: { ...common.limits, name: 'auth', warn },
        listener: 'auth',
        ...(cluster ? { cluster } : {}),
      })
    : undefined;
  if (auth) {
    apps.push(auth.app);
    metrics?.trackConnections(auth.app.server, 'auth');
  }
  // Tells offline tools (gatehouse admin reset) that this process uses the state store.
  // Its value says which roles this process runs, for other instances (cluster/instances.ts).
  const home = `${hostname()}:${dataDir}`;
  const instanceLease = holdInstanceLease(backend, {
    onError: (err) => logger.warn({ err }, 'instance lease'),
    info: { roles: config.roles, home, instance: shared.bus.instanceId },
  });
  metrics?.setRecordingBacklog(() => services.recordings.uploader.backlog);
  const handle: Gatehouse = {
    ...(metrics ? { metrics } : {}),
    logger,
    routes: auth?.routes ?? [],
    services,
    bootstrap,
    async close() {
      // A proxy of a cluster sits behind a load balancer: fail its health check first and keep serving
      // while the balancer notices (http.shutdown_drain), so no new connection reaches a closing
      // listener. The embedded single process (npm start) has no balancer to wait for.
      const drainMs = parseDuration(config.http.shutdown_drain) as number;
      const behindBalancer = config.roles.includes('proxy') && (forwarding || !isEmbeddedBackend(config.backend_url));
      if (behindBalancer && !draining && drainMs > 0) {
        draining = true;
        await new Promise((r) => setTimeout(r, drainMs));
      }
      draining = true;
      await waitingRoom?.close(); // a start that failed before the web listener took its port over
      // Sessions first, on every door at once: each user is told, each recording closed (and queued for
      // upload). Each door ends what is left within 3 s, the HTTP listeners within 5 s (their
      // in-flight requests finish first), the uploads within 3 s: the whole stays under 10 s.
      await Promise.all([
        sshProxy?.close(),
        dbProxy?.close(),
        kubeProxy?.close(),
        appDoor?.close(),
        ...apps.map((a) => a.close()),
      ]);
      // Uploads get a moment to finish; what is left stays in the spool for the next start.
      if (recordingsStarted) await services.recordings.stop({ drainMs: 3000 });
      // Background jobs next (in-flight webhook attempts finish, bounded), while the stores are open.
      await services.webhookDispatcher.stop();
      await retention?.stop();
      await reaper?.stop();
      await instanceLease.stop();
      identity?.stop();
      services.close();
      await shared.close();
      await auditStore.close();
      await backend.close();
    },
  };
  // Singleton jobs belong to the auth tier (each under a lease, so one instance works at a time).
  if (runsAuth && config.webhooks.deliver) {
    services.webhookDispatcher.start((err, what) => logger.warn({ err }, what));
  }
  // Sessions of an instance that died are ended by the auth tier (session-reaper.ts: ≈ 20 s bound).
  const reaper = runsAuth
    ? startSessionReaper({
        backend,
        sessions: services.sessionRegistry,
        onError: (err) => logger.warn({ err }, 'session reaper'),
      })
    : undefined;
  const retentionMs =
    !runsAuth || config.audit.retention === undefined ? undefined : parseDuration(config.audit.retention);
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
  try {
    if (config.roles.includes('proxy') && !shared.link && (forwarding || !isEmbeddedBackend(config.backend_url))) {
      // Check once our own lease is written, so two proxies starting together see each other.
      for (let i = 0; i < 40 && !instanceLease.held; i++) await new Promise((r) => setTimeout(r, 50));
      await refuseSecondProxyWithoutRedis(backend, { instance: shared.bus.instanceId, home });
    }
    const hostFor = (h: string) => (h.includes(':') ? `[${h}]` : h);
    if (auth) {
      await auth.app.listen({ host: authAddr.host, port: authAddr.port });
      handle.authUrl = `${scheme}://${hostFor(authAddr.host)}:${(auth.app.server.address() as { port: number }).port}`;
    }
    // An auth-only instance hands out tickets for the proxy tier's public addresses.
    if (!config.roles.includes('proxy')) {
      services.publishWebPublicUrl(webPublicUrl(config, scheme, webAddr.port));
      if (config.ssh_public_addr) services.publishSshEndpoint(parseAddr('ssh_public_addr', config.ssh_public_addr));
      if (config.db_public_addr) services.publishDbEndpoint(parseAddr('db_public_addr', config.db_public_addr));
      if (config.kube_public_url)
        services.kubeconfigs.publish(new URL(config.kube_public_url).origin, services.kubeCa.certPem);
      // Apps' public_url in the API's answers.
      if (config.web_public_url) services.apps.addressing.publish(config.web_public_url, config.apps_domain);
    }
    if (config.roles.includes('proxy')) {
      if (fdLimit !== undefined)
        logger.info(`open-file limit ${fdLimit}: the web and proxy listeners share ${doorBudget.size} of it`);
      const web = await buildApi(services, {
        ...common,
        limits: { ...common.limits, name: 'web', warn, budget: doorBudget },
        listener: 'web',
        trustedProxies: config.trusted_proxies,
        ...(authPool ? { forwardTo: authPool } : {}),
      });
      if (!auth) handle.routes = web.routes;
      apps.push(web.app);
      metrics?.trackConnections(web.app.server, 'web');
      // The port the waiting listener held (the one it was given, for port 0) passes to the real one.
      // App hosts go to the app door before the console and API (docs/apps.md).
      appDoor = startAppDoor(services, web.app.server, { config, clock, logger, ...(metrics ? { metrics } : {}) });
      const port = waitingRoom?.port ?? webAddr.port;
      if (port !== 0) services.apps.addressing.publish(webPublicUrl(config, scheme, port), config.apps_domain);
      await waitingRoom?.close();
      await web.app.listen({ host: webAddr.host, port });
      const webPort = (web.app.server.address() as { port: number }).port;
      handle.webUrl = `${scheme}://${hostFor(webAddr.host)}:${webPort}`;
      if (port === 0) services.apps.addressing.publish(webPublicUrl(config, scheme, webPort), config.apps_domain);
      // A WebAuthn relying party needs a host name: the default is localhost (a secure context too).
      services.publishWebPublicUrl(webPublicUrl(config, scheme, webPort));

      let recovered: string[];
      try {
        ({ recovered } = await services.recordings.start());
      } catch (e) {
        throw new StartupError(`cannot open the recording spool: ${(e as Error).message}`, { cause: e });
      }
      recordingsStarted = true;
      // A crash left these sessions' recordings open, so their records still say `active`: end them.
      await services.sessionRegistry
        .endOrphaned(recovered, 'proxy restarted')
        .catch((err) => logger.warn({ err }, 'cannot end the sessions a crash left active'));
      sshProxy = createSshProxy({
        hostKey: loadOrCreateHostKey(dataDir).privateKey,
        access: createSshAccess({ checker: services.access, pipeline: services.pipeline }),
        pipeline: services.pipeline,
        tokens: services.tokens,
        tickets: services.tickets,
        findKeyOwner: (blob) => services.sshKeys.findPrincipalByKey(blob),
        certificates: services.loginCertificates,
        upstreamKey: (id) => services.resources.upstreamKey(id),
        issueCertificate: (o) => services.userCa.issue({ ...o, ttlSeconds: 300 }).privateKey,
        checkHostKey: (id, key) => services.resources.pinHostKey(id, key),
        sessions: services.sessionRegistry,
        recordings: services.recordings,
        audit: services.audit,
        clock,
        logger,
        door,
        ...(metrics ? { metrics } : {}),
      });
      const bound = await sshProxy.listen(sshAddr.host, sshAddr.port);
      handle.sshAddr = { host: sshAddr.host, port: bound.port };
      const db = await startDbProxy(services, {
        ...dbAddr,
        loopback: isLoopback(dbAddr.host) || config.insecure,
        ...(https ? { tls: https } : {}),
        queryMaxLength: config.db.query_max_length,
        clock,
        logger,
        door,
      });
      dbProxy = db.proxy;
      handle.dbAddr = db.addr;
      services.publishDbEndpoint(config.db_public_addr ? parseAddr('db_public_addr', config.db_public_addr) : db.addr);
      services.publishSshEndpoint(
        config.ssh_public_addr ? parseAddr('ssh_public_addr', config.ssh_public_addr) : handle.sshAddr,
      );
      const kube = await startKubeProxy(services, { config, dataDir, clock, logger, door });
      kubeProxy = kube.proxy;
      handle.kubeAddr = { host: kube.host, port: kube.port };
    }
    if (metrics && metricsAddr) {
      if (https && config.tls) {
        try {
          metrics.watchCertificate('tls', https.cert);
        } catch (e) {
          throw new ConfigError(`config key tls.cert_file: not a readable certificate: ${(e as Error).message}`);
        }
      }
      // Served over TLS when the other listeners are, under the same loopback rule.
      const server = await buildMetricsServer(metrics, { logger, ...(https ? { https } : {}) });
      apps.push(server);
      await server.listen({ host: metricsAddr.host, port: metricsAddr.port });
      handle.metricsUrl = `${scheme}://${hostFor(metricsAddr.host)}:${(server.server.address() as { port: number }).port}`;
    }
  } catch (e) {
    await handle.close();
    throw e;
  }
  return handle;
}
