// Builds one Fastify instance (no listen) serving the /v1 API over the shared services, plus the
// endpoints of its listener: /healthz and /readyz on the auth port, /webapi/ping on the web port.
import Fastify, { type FastifyBaseLogger, LogController, type preValidationHookHandler } from 'fastify';
import type { AuditStore } from '../audit/types.js';
import type { Backend } from '../backend/types.js';
import type { PeerCheck } from '../cluster/cluster-peers.js';
import type { Clock } from '../lib/clock.js';
import { GatehouseError } from '../lib/errors.js';
import { newRequestId } from '../lib/random.js';
import { createProxyApprovalGate } from '../mcp/mcp-approvals-proxy.js';
import type { AuthPool } from '../net/auth-client.js';
import type { Metrics } from '../observability/metrics.js';
import type { Services } from '../services.js';
import { accessRoutes } from './access/access.routes.js';
import { agentRoutes, jwksRoute } from './agents/agents.routes.js';
import type { App } from './app-types.js';
import { approvalRoutes } from './approvals/approvals.routes.js';
import { appRoutes } from './apps/apps.routes.js';
import { auditRoutes } from './audit/audit.routes.js';
import { clusterRoutes } from './cluster/cluster.routes.js';
import { type ConnectionLimits, closeInBoundedTime, limitConnections, timeoutOptions } from './connection-limits.js';
import { consolePageRoutes, consoleSessionRoutes, webConsoleRoutes } from './console/console.routes.js';
import { cookieAuthenticationHook } from './console/session-cookie.js';
import { forwardToAuth, localReadsOnly } from './forward.js';
import { healthRoutes, pingRoute } from './health/health.routes.js';
import { appsInternalRoutes } from './internal/apps-internal.routes.js';
import { internalRoutes } from './internal/internal.routes.js';
import { mcpInternalRoutes } from './internal/mcp-internal.routes.js';
import { installJsonBodyParser } from './json-body.js';
import { lazyRequestLoggers } from './lazy-request-logger.js';
import { mfaRoutes } from './mfa/mfa.routes.js';
import { mfaConsoleRoutes } from './mfa/mfa-console.routes.js';
import { registerDocsPage, registerOpenApi } from './openapi.js';
import { installAgentRateLimit } from './plugins/agent-rate-limit.js';
import { installClusterPeer } from './plugins/cluster-peer.js';
import {
  answerUnmetExpectations,
  clientErrorHandler,
  frameworkErrorHandler,
  installErrorHandler,
} from './plugins/error-handler.js';
import { installRequestMetrics } from './plugins/request-metrics.js';
import { installRouteTable } from './plugins/route-table.js';
import { installSecurity } from './plugins/security.js';
import { resourceRoutes } from './resources/resources.routes.js';
import { roleRoutes } from './roles/roles.routes.js';
import type { RegisteredRoute } from './route-config.js';
import { compileSerializer } from './serializer.js';
import { sessionRoutes } from './sessions/sessions.routes.js';
import { sshCaRoutes } from './ssh-ca/ssh-ca.routes.js';
import { sshKeyRoutes } from './ssh-keys/ssh-keys.routes.js';
import { connectorRoutes } from './sso/connectors.routes.js';
import { ssoRoutes } from './sso/sso.routes.js';
import { tokenRoutes } from './tokens/tokens.routes.js';
import { meRoutes } from './users/me.routes.js';
import { userRoutes } from './users/users.routes.js';
import { createValidatorCompiler } from './validation.js';
import { webhookRoutes } from './webhooks/webhooks.routes.js';

export const BODY_LIMIT = 1024 * 1024;

const emptyBodyIfNone: preValidationHookHandler = (request, _reply, done) => {
  if (request.body === undefined) request.body = {};
  done();
};

function authorizationHeaders(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === 'authorization') n++;
  return n;
}

export interface ApiOptions {
  listener: 'auth' | 'web';
  logger: FastifyBaseLogger;
  version: string;
  startedAt: number;
  /** True once a graceful shutdown began: /webapi/ping answers 503 so balancers drain this instance. */
  draining?: () => boolean;
  /** True once this proxy's cluster identity was removed: /webapi/ping answers 503 "removed". */
  removed?: () => boolean;
  https?: { cert: Buffer; key: Buffer };
  /** When given, every response is observed in http_request_duration_seconds. */
  metrics?: Metrics;
  /** Timeouts and connection caps (config `http`); absent: Fastify's defaults, no caps. */
  limits?: ConnectionLimits;
  /** Web listener of a proxy-only instance: /v1 and /webapi/session go to the auth tier. */
  forwardTo?: AuthPool;
  /** Auth listener: the proxies' internal API (joined identities), and their callers' addresses believed. */
  cluster?: { peers: PeerCheck; backend: Backend; audit: AuditStore; clock?: Clock };
  /** Web listener: peers (load balancers) whose X-Forwarded-For is believed. */
  trustedProxies?: string[];
}

/** The /v1 routes over cluster state (the audit routes aside: they read the audit store). */
function registerApiRoutes(scoped: App, services: Services): void {
  tokenRoutes(scoped, services);
  userRoutes(scoped, services);
  meRoutes(scoped, services);
  // After userRoutes: /v1/users/:id/access takes a user's name too.
  accessRoutes(scoped, services);
  roleRoutes(scoped, services);
  resourceRoutes(scoped, services);
  agentRoutes(scoped, services);
  sshKeyRoutes(scoped, services);
  mfaRoutes(scoped, services);
  jwksRoute(scoped, services);
  webhookRoutes(scoped, services);
  approvalRoutes(scoped, services);
  sessionRoutes(scoped, {
    sessionService: services.sessions,
    sshEndpoint: services.sshEndpoint,
    dbEndpoint: services.dbEndpoint,
  });
  sshCaRoutes(scoped, services);
  appRoutes(scoped, services);
  clusterRoutes(scoped, services);
  connectorRoutes(scoped, services);
}

export async function buildApi(services: Services, opts: ApiOptions): Promise<{ app: App; routes: RegisteredRoute[] }> {
  const timeouts = opts.limits ? timeoutOptions(opts.limits) : undefined;
  const app = Fastify({
    loggerInstance: lazyRequestLoggers(opts.logger),
    // One line per request is logged by our onResponse hook (debug for successes), not Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    genReqId: newRequestId,
    trustProxy: opts.listener === 'web' && opts.trustedProxies?.length ? opts.trustedProxies : false,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    return503OnClosing: true,
    ...(timeouts ? { requestTimeout: timeouts.requestTimeout, connectionTimeout: timeouts.connectionTimeout } : {}),
    ...(timeouts ? { keepAliveTimeout: timeouts.keepAliveTimeout } : {}),
    // Node would answer a missing Host header itself, bare; we answer it as a problem (below).
    ...(opts.https
      ? { https: { ...opts.https, ...timeouts?.serverOptions, requireHostHeader: false } }
      : { http: { ...timeouts?.serverOptions, requireHostHeader: false } }),
  }).withTypeProvider() as unknown as App;
  if (opts.limits) limitConnections(app.server, opts.limits, { tls: opts.https !== undefined });
  const beginClose = closeInBoundedTime(app.server, 5000);
  app.addHook('preClose', (done) => {
    beginClose();
    done();
  });
  answerUnmetExpectations(app.server);

  app.setValidatorCompiler(createValidatorCompiler());
  app.setSerializerCompiler(compileSerializer);
  app.removeContentTypeParser(['text/plain']);
  installJsonBodyParser(app);
  // Callback-style hooks: they run on every request, and skip the promise machinery of async ones.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (request.raw.httpVersionMinor === 1 && request.raw.httpVersionMajor === 1 && !request.headers.host) {
      done(new GatehouseError('invalid_request', 'the Host header is required'));
      return;
    }
    // Node keeps the first of several Authorization headers and drops the rest; which credential a
    // request meant is then a guess, so it is refused.
    if (request.headers.authorization !== undefined && authorizationHeaders(request.raw.rawHeaders) > 1) {
      done(new GatehouseError('invalid_request', 'send one Authorization header, not several'));
      return;
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const level = reply.statusCode >= 500 ? 'error' : reply.statusCode >= 400 ? 'info' : 'debug';
    if (!(request.log as unknown as { isLevelEnabled(l: string): boolean }).isLevelEnabled(level)) return done();
    request.log[level](
      {
        method: request.method,
        url: request.routeOptions.url ?? request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
    done();
  });
  // A route whose body fields are all optional may be called without a body; one with required
  // fields then answers "/body/<field> is required" rather than "/body must be object".
  // Only on routes with a body schema, as a hook of their own: a hook on every route read
  // request.routeOptions (a 12-field object built on each access) on every request.
  app.addHook('onRoute', (route) => {
    if (route.schema?.body === undefined) return;
    const hooks = route.preValidation === undefined ? [] : [route.preValidation].flat();
    route.preValidation = [emptyBodyIfNone, ...hooks];
  });
  if (opts.metrics) installRequestMetrics(app, opts.metrics, opts.listener);
  installErrorHandler(app);
  const routes: RegisteredRoute[] = [];
  installRouteTable(app, routes);
  if (opts.forwardTo) {
    await app.register(async (web) => {
      pingRoute(web as unknown as App, opts);
      consolePageRoutes(web, {});
    });
    // Reads of cluster state are answered from this proxy's own cache (fed by auth's watch), as
    // Teleport's caching proxies do; everything else goes to the auth tier.
    app.addHook('onRequest', cookieAuthenticationHook);
    await app.register(async (api) => {
      const scoped = localReadsOnly(api as unknown as App);
      installSecurity(scoped, { tokens: services.tokens, audit: services.audit });
      installAgentRateLimit(scoped, services);
      registerApiRoutes(scoped, services);
    });
    await forwardToAuth(app, opts.forwardTo, {
      tls: opts.https !== undefined,
      bodyLimit: BODY_LIMIT,
      awaitRevision: (revision) => services.state.cache.waitFor(revision),
    });
    await app.ready();
    return { app, routes };
  }
  await registerOpenApi(app, opts.version);
  if (opts.cluster) {
    installClusterPeer(app, opts.cluster.peers, () => services.state.cache.revision);
    if (!services.proxyIdentities) throw new Error('the internal API runs on an auth instance');
    internalRoutes(app, {
      ...opts.cluster,
      identities: services.proxyIdentities,
      ...(services.credentialIssuer ? { credentials: services.credentialIssuer } : {}),
      kubeListenerCertificate: services.kubeListenerCertificate,
    });
    appsInternalRoutes(app, {
      peers: opts.cluster.peers,
      redeem: services.apps.proxyRedeem,
      assertion: services.apps.proxyAssertion,
    });
    mcpInternalRoutes(app, {
      peers: opts.cluster.peers,
      gate: createProxyApprovalGate({ ...services, approvals: services.mcpApprovals }),
    });
  }

  // The console's session cookie stands in for the Authorization header (src/api/console/session-cookie.ts);
  // on auth too when proxies forward the console's requests there.
  if (opts.listener === 'web' || opts.cluster) app.addHook('onRequest', cookieAuthenticationHook);
  await app.register(async (api) => {
    const scoped = api as unknown as App;
    installSecurity(scoped, { tokens: services.tokens, audit: services.audit });
    installAgentRateLimit(scoped, services);
    registerApiRoutes(scoped, services);
    auditRoutes(scoped, services);
    if (opts.listener === 'auth') {
      healthRoutes(scoped, { checks: services.readiness });
      if (opts.cluster) {
        consoleSessionRoutes(scoped, { tokens: services.tokens });
        mfaConsoleRoutes(scoped, services);
        ssoRoutes(scoped, services);
      }
    } else {
      pingRoute(scoped, opts);
      webConsoleRoutes(scoped, { tokens: services.tokens });
      mfaConsoleRoutes(scoped, services);
      ssoRoutes(scoped, services);
    }
    scoped.get('/v1/openapi.json', { config: { permission: 'public' }, schema: { hide: true } }, async () =>
      app.swagger(),
    );
  });
  await registerDocsPage(app);
  await app.ready();
  return { app, routes };
}
