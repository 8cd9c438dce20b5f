// Prometheus metrics: one registry per Gatehouse instance, every name under a configurable prefix.
// Node's process metrics (CPU, memory, event loop, GC) are about the process, not the instance, so
// they live in one registry per prefix shared by every instance in the process and are appended at
// scrape time: starting many instances (as the tests do) adds no further GC observers or event-loop
// monitors.
import { X509Certificate } from 'node:crypto';
import type { Server } from 'node:net';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const DEFAULT_METRICS_PREFIX = 'gatehouse';
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

export type Listener = 'auth' | 'web' | 'ssh' | 'db' | 'kube';
/** The doors sessions go through (app and mcp are the doors to come). */
export type DoorKind = 'ssh' | 'db' | 'kube' | 'app' | 'mcp';
/** Why a door refused, in classes an alert can be written on (the reason itself is in the audit event). */
export type DenialClass = 'authentication' | 'access' | 'revoked' | 'recording' | 'upstream' | 'protocol';
type HttpLabels = 'method' | 'route' | 'status' | 'listener';

export interface Metrics {
  readonly prefix: string;
  readonly registry: Registry;
  readonly failedLogins: Counter;
  readonly activeConnections: Gauge<'listener'>;
  readonly sessionDuration: Histogram<'kind'>;
  /** Sessions open now on this instance, by kind (the door kit counts them up and down). */
  readonly liveSessions: Gauge<'kind'>;
  /** Connections or requests a door refused, by door and reason class. */
  readonly accessDenials: Counter<'door' | 'reason'>;
  /** Statements run through the PostgreSQL proxy. */
  readonly dbStatements: Counter;
  /** Kubernetes API requests through the proxy, by verb. */
  readonly kubeRequests: Counter<'verb'>;
  /** Recordings closed and waiting for their upload to the object store, read at scrape time. */
  setRecordingBacklog(count: () => number): void;
  readonly certificateExpiry: Gauge<'name'>;
  readonly httpRequestDuration: Histogram<HttpLabels>;
  readonly auditWriteDuration: Histogram;
  readonly auditQueueDepth: Gauge;
  /** The checks behind auth_cluster_health; each must resolve within the health timeout. */
  setHealthChecks(checks: Record<string, () => Promise<void>>): void;
  /**
   * How auth_cluster_health counts: this instance (if it runs auth and its checks pass) plus the
   * other auth instances seen alive (their instance leases), as `peers` answers at scrape time.
   */
  setAuthPeers(peers: () => Promise<number>, selfIsAuth: boolean): void;
  /** Reports seconds until notAfter of a certificate (PEM; the first one of a chain) under `name`. */
  watchCertificate(name: string, pem: string | Buffer): void;
  /** Counts the open connections of an HTTP(S) server under its listener label. */
  trackConnections(server: Server, listener: Listener): void;
  /** The whole exposition (this instance's metrics, then the process metrics), text format. */
  scrape(): Promise<string>;
}

const processRegistries = new Map<string, Registry>();

function processRegistry(prefix: string): Registry {
  let registry = processRegistries.get(prefix);
  if (!registry) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: `${prefix}_` });
    processRegistries.set(prefix, registry);
  }
  return registry;
}

async function within<T>(check: () => Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve().then(check),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** notAfter of the first certificate in a PEM, epoch ms. */
export function certificateNotAfter(pem: string | Buffer): number {
  const notAfter = Date.parse(new X509Certificate(pem).validTo);
  if (Number.isNaN(notAfter)) throw new Error('the certificate has no readable notAfter');
  return notAfter;
}

export function createMetrics(opts: { prefix?: string; clock?: () => number; healthTimeoutMs?: number } = {}): Metrics {
  const prefix = opts.prefix ?? DEFAULT_METRICS_PREFIX;
  const clock = opts.clock ?? Date.now;
  const healthTimeoutMs = opts.healthTimeoutMs ?? 1000;
  const registry = new Registry();
  const registers = [registry];
  let healthChecks: Array<() => Promise<void>> = [];
  let authPeers: () => Promise<number> = async () => 0;
  let selfIsAuth = true;
  const certificates = new Map<string, number>();

  new Gauge({
    name: `${prefix}_auth_cluster_health`,
    help: 'Auth instances seen healthy: this one if its backend and audit store answer their ping, plus the other auth instances whose instance lease is alive (checked at scrape time).',
    registers,
    async collect() {
      const peers = within(authPeers, healthTimeoutMs).catch(() => 0);
      let self = 0;
      if (selfIsAuth && healthChecks.length > 0) {
        try {
          await Promise.all(healthChecks.map((check) => within(check, healthTimeoutMs)));
          self = 1;
        } catch {
          self = 0;
        }
      }
      this.set(self + (await peers));
    },
  });
  const activeConnections = new Gauge({
    name: `${prefix}_active_connections`,
    help: 'Open client connections, by listener.',
    labelNames: ['listener'] as const,
    registers,
  });
  const failedLogins = new Counter({
    name: `${prefix}_failed_logins`,
    help: 'Failed token requests (unknown, expired or disabled credentials).',
    registers,
  });
  const sessionDuration = new Histogram({
    name: `${prefix}_session_duration_seconds`,
    help: 'Duration of finished access sessions, by kind.',
    labelNames: ['kind'] as const,
    buckets: [1, 10, 60, 300, 900, 1800, 3600, 7200, 14_400, 28_800, 86_400],
    registers,
  });
  const liveSessions = new Gauge({
    name: `${prefix}_live_sessions`,
    help: 'Access sessions open now on this instance, by kind.',
    labelNames: ['kind'] as const,
    registers,
  });
  for (const kind of ['ssh', 'db', 'kube', 'app'] as const) {
    liveSessions.set({ kind }, 0);
    sessionDuration.zero({ kind });
  }
  const accessDenials = new Counter({
    name: `${prefix}_access_denials_total`,
    help: 'Connections, sessions and requests a door refused, by door and reason class (authentication, access, revoked, recording, upstream, protocol).',
    labelNames: ['door', 'reason'] as const,
    registers,
  });
  const dbStatements = new Counter({
    name: `${prefix}_db_statements_total`,
    help: 'Statements run through the PostgreSQL proxy.',
    registers,
  });
  const kubeRequests = new Counter({
    name: `${prefix}_kube_requests_total`,
    help: 'Kubernetes API requests through the proxy (discovery not counted), by verb.',
    labelNames: ['verb'] as const,
    registers,
  });
  let recordingBacklog: () => number = () => 0;
  new Gauge({
    name: `${prefix}_recording_upload_backlog`,
    help: 'Session recordings closed and waiting for their upload to the object store.',
    registers,
    collect() {
      this.set(recordingBacklog());
    },
  });
  const certificateExpiry = new Gauge({
    name: `${prefix}_certificate_expiry_seconds`,
    help: 'Seconds until the certificate or key expires (negative once expired), by name.',
    labelNames: ['name'] as const,
    registers,
    collect() {
      const now = clock();
      for (const [name, notAfter] of certificates) this.set({ name }, Math.round((notAfter - now) / 1000));
    },
  });
  const httpRequestDuration = new Histogram({
    name: `${prefix}_http_request_duration_seconds`,
    help: 'HTTP request duration, by method, route pattern ("unmatched" for requests no route matched), status and listener.',
    labelNames: ['method', 'route', 'status', 'listener'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const auditWriteDuration = new Histogram({
    name: `${prefix}_audit_write_duration_seconds`,
    help: 'Time from an audit append until its events are durable (or the write failed).',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  const auditQueueDepth = new Gauge({
    name: `${prefix}_audit_queue_depth`,
    help: 'Audit appends waiting to become durable.',
    registers,
  });

  const processMetrics = processRegistry(prefix);

  return {
    prefix,
    registry,
    failedLogins,
    activeConnections,
    sessionDuration,
    liveSessions,
    accessDenials,
    dbStatements,
    kubeRequests,
    setRecordingBacklog(count) {
      recordingBacklog = count;
    },
    certificateExpiry,
    httpRequestDuration,
    auditWriteDuration,
    auditQueueDepth,
    setHealthChecks(checks) {
      healthChecks = Object.values(checks);
    },
    setAuthPeers(peers, isAuth) {
      authPeers = peers;
      selfIsAuth = isAuth;
    },
    watchCertificate(name, pem) {
      certificates.set(name, certificateNotAfter(pem));
    },
    trackConnections(server, listener) {
      const labels = { listener };
      activeConnections.inc(labels, 0);
      server.on('connection', (socket) => {
        activeConnections.inc(labels);
        socket.once('close', () => activeConnections.dec(labels));
      });
    },
    async scrape() {
      const [own, proc] = await Promise.all([registry.metrics(), processMetrics.metrics()]);
      return `${own}\n${proc}`;
    },
  };
}
