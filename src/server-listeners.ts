// The listeners of a started instance: the auth API, the web listener with the app door in front,
// the SSH, PostgreSQL and Kubernetes doors, and the metrics listener — each started, tracked for the
// shutdown, and published where tickets, kubeconfigs and apps point.
import type pino from 'pino';
import { buildApi } from './api/build-api.js';
import { buildMetricsServer } from './api/metrics-server.js';
import type { RegisteredRoute } from './api/route-config.js';
import { createPeerCheck } from './cluster/cluster-peers.js';
import { ConfigError } from './config/load.js';
import type { Config } from './config/schema.js';
import { webPublicUrl } from './config/web-public-url.js';
import type { Clock } from './lib/clock.js';
import { createDescriptorBudget, descriptorLimit, doorBudgetSize } from './net/listener-limits.js';
import type { Metrics } from './observability/metrics.js';
import type { AppDoor } from './proxy/app/app-door.js';
import type { DbProxy } from './proxy/db/db-proxy.js';
import { startDbProxy } from './proxy/db/start.js';
import type { KubeProxy } from './proxy/kube/kube-proxy.js';
import { startKubeProxy } from './proxy/kube/start-kube-proxy.js';
import { createSshAccess } from './proxy/ssh/access.js';
import { loadOrCreateHostKey } from './proxy/ssh/host-key.js';
import { createSshProxy, type SshProxy } from './proxy/ssh/ssh-proxy.js';
import { startAppDoor } from './proxy/web-doors.js';
import type { Core } from './server-core.js';
import { type Addr, isLoopback, type Plan, parseAddr, urlOf, VERSION } from './server-plan.js';
import type { Services } from './services.js';
import { StartupError } from './stores.js';

/** The listeners and doors started so far: the shutdown closes whichever exist. */
export interface Listeners {
  apps: Array<{ close(): PromiseLike<unknown> }>;
  sshProxy?: SshProxy;
  dbProxy?: DbProxy;
  kubeProxy?: KubeProxy;
  appDoor?: AppDoor;
  recordingsStarted: boolean;
  draining: boolean;
}

/** What the listeners tell the caller (the Gatehouse handle): where they listen, the routes served. */
export interface Published {
  authUrl?: string;
  webUrl?: string;
  sshAddr?: Addr;
  dbAddr?: Addr;
  kubeAddr?: Addr;
  routes: RegisteredRoute[];
}

export function doorCommons(config: Config, plan: Plan, core: Core, listeners: Listeners, logger: pino.Logger) {
  const warn = (message: string) => logger.warn(message);
  // The public listeners (web, SSH, PostgreSQL, Kubernetes) share the open-file limit less a reserve,
  // so that no flood of them can take the descriptors the auth API and the stores need.
  const fdLimit = descriptorLimit();
  const doorBudget = createDescriptorBudget(doorBudgetSize(fdLimit, config.proxy.fd_reserve));
  const common = {
    logger,
    version: VERSION,
    startedAt: plan.startedAt,
    draining: () => listeners.draining,
    removed: () => core.identity?.removed() === true,
    ...(plan.https ? { https: plan.https } : {}),
    ...(core.metrics ? { metrics: core.metrics } : {}),
    limits: plan.httpLimits,
  };
  const door = { limits: plan.proxyLimits, budget: doorBudget, warn };
  return { common, door, doorBudget, fdLimit, warn };
}

export type Doors = ReturnType<typeof doorCommons>;

/** What the web listener and the proxy doors start from. */
export interface Started {
  config: Config;
  plan: Plan;
  core: Core;
  listeners: Listeners;
  doors: Doors;
  handle: Published;
}

/** The /v1 API on the auth listener, with the internal API where this instance serves proxies elsewhere. */
export function buildAuthApi(config: Config, plan: Plan, core: Core, doors: Doors, clock: Clock) {
  // The internal API is for proxies elsewhere: an auth-only instance (the cluster's auth tier), or one
  // that still lets the deprecated shared token in. A single process serves its own doors.
  const identities = core.services.proxyIdentities;
  const servesProxies = !config.roles.includes('proxy') || plan.sharedToken !== undefined;
  const { sharedToken } = plan;
  const cluster =
    identities && servesProxies
      ? {
          peers: createPeerCheck({
            identityOf: (credential) => identities.identityOf(credential),
            ...(sharedToken !== undefined && { sharedToken }),
          }),
          backend: core.backend,
          audit: core.instrumentedAudit,
          clock,
        }
      : undefined;
  return buildApi(core.services, {
    ...doors.common,
    limits: { ...doors.common.limits, name: 'auth', warn: doors.warn },
    listener: 'auth',
    ...(cluster ? { cluster } : {}),
  });
}

/** On an auth-only instance: the proxy tier's public addresses, for tickets, kubeconfigs and apps. */
export function publishProxyTier(config: Config, plan: Plan, services: Services): void {
  services.publishWebPublicUrl(webPublicUrl(config, plan.https ? 'https' : 'http', plan.webAddr.port));
  if (config.ssh_public_addr) services.publishSshEndpoint(parseAddr('ssh_public_addr', config.ssh_public_addr));
  if (config.db_public_addr) services.publishDbEndpoint(parseAddr('db_public_addr', config.db_public_addr));
  if (config.kube_public_url)
    services.kubeconfigs.publish(new URL(config.kube_public_url).origin, services.kubeCa.certPem);
  // Apps' public_url in the API's answers.
  if (config.web_public_url) services.apps.addressing.publish(config.web_public_url, config.apps_domain);
}

/** The web listener (console, /v1 for browsers) with the app door in front, on the port the waiting room held. */
export async function startWebListener(
  started: Started,
  opts: { clock: Clock; logger: pino.Logger; hasAuth: boolean },
): Promise<void> {
  const { config, plan, core, listeners, doors, handle } = started;
  const { services, metrics, authPool, waitingRoom } = core;
  const { clock, logger } = opts;
  const scheme = plan.https ? 'https' : 'http';
  if (doors.fdLimit !== undefined)
    logger.info(`open-file limit ${doors.fdLimit}: the web and proxy listeners share ${doors.doorBudget.size} of it`);
  const web = await buildApi(services, {
    ...doors.common,
    limits: { ...doors.common.limits, name: 'web', warn: doors.warn, budget: doors.doorBudget },
    listener: 'web',
    trustedProxies: config.trusted_proxies,
    ...(authPool ? { forwardTo: authPool } : {}),
  });
  if (!opts.hasAuth) handle.routes = web.routes;
  listeners.apps.push(web.app);
  metrics?.trackConnections(web.app.server, 'web');
  // The port the waiting listener held (the one it was given, for port 0) passes to the real one.
  // App hosts go to the app door before the console and API (docs/apps.md).
  listeners.appDoor = startAppDoor(services, web.app.server, {
    config,
    clock,
    logger,
    ...(metrics ? { metrics } : {}),
    ...(authPool ? { authPool } : {}),
  });
  const port = waitingRoom?.port ?? plan.webAddr.port;
  if (port !== 0) services.apps.addressing.publish(webPublicUrl(config, scheme, port), config.apps_domain);
  await waitingRoom?.close();
  await web.app.listen({ host: plan.webAddr.host, port });
  const webPort = (web.app.server.address() as { port: number }).port;
  handle.webUrl = urlOf(plan, plan.webAddr, web.app.server);
  if (port === 0) services.apps.addressing.publish(webPublicUrl(config, scheme, webPort), config.apps_domain);
  // A WebAuthn relying party needs a host name: the default is localhost (a secure context too).
  services.publishWebPublicUrl(webPublicUrl(config, scheme, webPort));
}

/** The recording spool, then the SSH, PostgreSQL and Kubernetes doors, each published where tickets point. */
export async function startProxyDoors(started: Started, opts: { clock: Clock; logger: pino.Logger }): Promise<void> {
  const { config, plan, core, listeners, handle } = started;
  const { services, metrics } = core;
  const { clock, logger } = opts;
  const { door } = started.doors;
  const { dataDir, https, idleTimeoutMs, sshAddr, dbAddr } = plan;
  let recovered: string[];
  try {
    ({ recovered } = await services.recordings.start());
  } catch (e) {
    throw new StartupError(`cannot open the recording spool: ${(e as Error).message}`, { cause: e });
  }
  listeners.recordingsStarted = true;
  // A crash left these sessions' recordings open, so their records still say `active`: end them.
  await services.sessionRegistry
    .endOrphaned(recovered, 'proxy restarted')
    .catch((err) => logger.warn({ err }, 'cannot end the sessions a crash left active'));
  listeners.sshProxy = createSshProxy({
    hostKey: loadOrCreateHostKey(dataDir).privateKey,
    access: createSshAccess({ checker: services.access, pipeline: services.pipeline }),
    pipeline: services.pipeline,
    tokens: services.tokens,
    tickets: services.tickets,
    findKeyOwner: (blob) => services.sshKeys.findPrincipalByKey(blob),
    certificates: services.loginCertificates,
    keyLogin: services.principalProofs.sshKeyPrincipal,
    upstreamCredential: (grounds, o) => services.upstreamCredentials.ssh(grounds, o),
    checkHostKey: (id, key) => services.resources.pinHostKey(id, key),
    sessions: services.sessionRegistry,
    recordings: services.recordings,
    audit: services.audit,
    clock,
    logger,
    door,
    ...(metrics ? { metrics } : {}),
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
  });
  const bound = await listeners.sshProxy.listen(sshAddr.host, sshAddr.port);
  handle.sshAddr = { host: sshAddr.host, port: bound.port };
  const db = await startDbProxy(services, {
    ...dbAddr,
    loopback: isLoopback(dbAddr.host) || config.insecure,
    ...(https ? { tls: https } : {}),
    queryMaxLength: config.db.query_max_length,
    clock,
    logger,
    door,
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
  });
  listeners.dbProxy = db.proxy;
  handle.dbAddr = db.addr;
  services.publishDbEndpoint(config.db_public_addr ? parseAddr('db_public_addr', config.db_public_addr) : db.addr);
  services.publishSshEndpoint(
    config.ssh_public_addr ? parseAddr('ssh_public_addr', config.ssh_public_addr) : handle.sshAddr,
  );
  const kube = await startKubeProxy(services, {
    config,
    dataDir,
    clock,
    logger,
    door,
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
  });
  listeners.kubeProxy = kube.proxy;
  handle.kubeAddr = { host: kube.host, port: kube.port };
}

/** The metrics listener, over TLS when the others are, with the certificate's expiry watched. */
export async function startMetricsListener(
  config: Config,
  plan: Plan,
  metrics: Metrics,
  listeners: Listeners,
  logger: pino.Logger,
): Promise<string> {
  const { https, metricsAddr } = plan;
  if (https && config.tls) {
    try {
      metrics.watchCertificate('tls', https.cert);
    } catch (e) {
      throw new ConfigError(`config key tls.cert_file: not a readable certificate: ${(e as Error).message}`);
    }
  }
  // Served over TLS when the other listeners are, under the same loopback rule.
  const server = await buildMetricsServer(metrics, { logger, ...(https ? { https } : {}) });
  listeners.apps.push(server);
  const addr = metricsAddr as Addr;
  await server.listen({ host: addr.host, port: addr.port });
  return urlOf(plan, addr, server.server);
}
