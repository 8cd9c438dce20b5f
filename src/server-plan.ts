// What the configuration says this instance is — its addresses, limits and cluster role — checked
// before anything is opened (a ConfigError names the key), and the keys its roles make meaningless.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type pino from 'pino';
import { isEmbeddedBackend } from './backend/open.js';
import { IDENTITY_FILE } from './cluster/proxy-identity-client.js';
import { parseRedisUrl } from './cluster/redis-link.js';
import { ConfigError } from './config/load.js';
import type { Config } from './config/schema.js';
import { parseDuration } from './lib/duration.js';
import type { DoorLimits } from './net/listener-limits.js';

export const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export function parseAddr(key: string, addr: string): { host: string; port: number } {
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

/** proxy.session_idle_timeout in ms, if set: under 1 s, sessions would end between keystrokes. */
function sessionIdleMs(proxy: Config['proxy']): number | undefined {
  if (proxy.session_idle_timeout === undefined) return undefined;
  const ms = parseDuration(proxy.session_idle_timeout) as number;
  if (ms < 1000)
    throw new ConfigError(
      'config key proxy.session_idle_timeout (or GATEHOUSE_PROXY_SESSION_IDLE_TIMEOUT): must be at least 1s',
    );
  return ms;
}

export const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** What the configuration says this instance is, checked before anything is opened. */
export interface Plan {
  dataDir: string;
  authAddr: Addr;
  webAddr: Addr;
  sshAddr: Addr;
  dbAddr: Addr;
  metricsAddr: Addr | undefined;
  proxyLimits: DoorLimits;
  idleTimeoutMs: number | undefined;
  runsAuth: boolean;
  /** A proxy-only instance with auth_servers: it holds no store credentials and forwards to the auth tier. */
  forwarding: boolean;
  sharedToken: string | undefined;
  joined: boolean;
  https: { cert: Buffer; key: Buffer } | undefined;
  httpLimits: {
    requestTimeoutMs: number;
    idleTimeoutMs: number;
    maxConnections: number;
    maxConnectionsPerSource: number;
  };
  startedAt: number;
}

export type Addr = { host: string; port: number };

export const urlOf = (plan: Plan, addr: Addr, server: { address(): unknown }) =>
  `${plan.https ? 'https' : 'http'}://${addr.host.includes(':') ? `[${addr.host}]` : addr.host}:${(server.address() as { port: number }).port}`;

/** The addresses, limits and cluster role the config names: a ConfigError before anything opens. */
export function planInstance(config: Config, logger: pino.Logger): Plan {
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
  const idleTimeoutMs = sessionIdleMs(config.proxy);
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
  warnIgnoredKeys(config, { runsAuth, forwarding, sharedToken }, logger);
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
  return {
    ...{ dataDir, authAddr, webAddr, sshAddr, dbAddr, metricsAddr, proxyLimits, idleTimeoutMs },
    ...{ runsAuth, forwarding, sharedToken, joined, https, httpLimits, startedAt },
  };
}

/** Keys this instance's roles make meaningless are named in the log, once, rather than silently dropped. */
function warnIgnoredKeys(
  config: Config,
  plan: Pick<Plan, 'runsAuth' | 'forwarding' | 'sharedToken'>,
  logger: pino.Logger,
): void {
  const { runsAuth, forwarding, sharedToken } = plan;
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
    if (config.seal_key_file !== undefined)
      logger.warn('config key seal_key_file is ignored: a proxy holds no seal key (the auth tier opens every secret)');
  } else if (!runsAuth && config.auth_servers !== undefined) {
    logger.warn('config key auth_servers is ignored: this instance runs the auth tier itself');
  }
}
