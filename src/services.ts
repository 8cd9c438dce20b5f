// The composition of Gatehouse's domain services over its stores. Built once per process and
// shared by every listener.

import { resolve } from 'node:path';
import { type AccessChecker, createAccessChecker } from './access/access-checker.js';
import { createEffectiveAccess, type EffectiveAccessService } from './access/effective-access.js';
import { type AgentBasics, type AgentServices, createAgentBasics, createAgentServices } from './agents/wiring.js';
import { type Apps, createApps } from './apps/apps.js';
import { type AuditLog, createAuditLog } from './audit/audit-log.js';
import { auditReadiness } from './audit/readiness.js';
import type { AuditStore } from './audit/types.js';
import { type Covering, createCovering } from './auth/covering.js';
import { recordDelegationTrail } from './auth/delegation-trail.js';
import { asLoginThrottle, createLoginThrottle, sharedLoginThrottle } from './auth/login-throttle.js';
import { createPolicyResolver } from './auth/policy-resolver.js';
import { createPrincipalPipeline, type PrincipalPipeline } from './auth/principal-pipeline.js';
import { createTokenIndex } from './auth/token-index.js';
import { createTokenService, type TokenService } from './auth/token-service.js';
import { backfillFoldedNames } from './auth/unique-names.js';
import { createStateCache } from './backend/cache.js';
import { verifySealKey } from './backend/seal-check.js';
import { createStateStore, type StateStore } from './backend/state.js';
import type { Backend } from './backend/types.js';
import { createProxyCredentials, ensureSigningKey } from './cluster/proxy-credentials.js';
import {
  type CallerContext,
  createProxyIdentities,
  ownedBy,
  type ProxyIdentities,
} from './cluster/proxy-identities.js';
import { openSharedState, type SharedState } from './cluster/shared-state.js';
import type { Config } from './config/schema.js';
import { type AuditReadService, createAuditReadService } from './events/audit-read.js';
import type { KubeCa } from './kube/kube-ca.js';
import { ensureKubeCa } from './kube/kube-ca-store.js';
import { createKubeconfigs, type Kubeconfigs } from './kube/kubeconfig.js';
import type { Clock } from './lib/clock.js';
import { parseDuration } from './lib/duration.js';
import { GatehouseError } from './lib/errors.js';
import { createSecretBox, webhookSecretKeyPath } from './lib/secret-box.js';
import { createChallenges } from './mfa/challenges.js';
import { createMfaService, type MfaService } from './mfa/mfa-service.js';
import { createMfaSignIn, type MfaSignIn } from './mfa/mfa-sign-in.js';
import { relyingPartyOf } from './mfa/relying-party.js';
import type { Metrics } from './observability/metrics.js';
import { createRecordingService, type RecordingService } from './recordings/recording-service.js';
import { createResourceService, type ResourceService } from './resources/resource-service.js';
import { createRoleService, type RoleService } from './roles/role-service.js';
import { createSessionGuard, type SessionGuard } from './sessions/session-guard.js';
import { createSessionRegistry, type SessionRegistry } from './sessions/session-registry.js';
import { createSessionService, type SessionService } from './sessions/session-service.js';
import { createTicketService, type TicketService } from './sessions/tickets.js';
import { createLoginCertificates, type LoginCertificates } from './ssh-keys/login-certificates.js';
import { createSshKeyService, type SshKeyService } from './ssh-keys/ssh-key-service.js';
import type { UserCa } from './ssh-keys/user-ca.js';
import { CLIENT_CA, ensureUserCa } from './ssh-keys/user-ca-store.js';
import { type ConnectorService, createConnectorService } from './sso/connector-service.js';
import { createOidcClient } from './sso/oidc-client.js';
import { createSsoService, type SsoService } from './sso/sso-service.js';
import { createProviderUsers } from './sso/sso-users.js';
import { createUserService, type UserService } from './users/user-service.js';
import { createWebhookDispatcher, dispatcherOptionsFrom, type WebhookDispatcher } from './webhooks/dispatcher.js';
import { webhookKeys } from './webhooks/records.js';
import { createWebhookService, type WebhookService } from './webhooks/webhook-service.js';

export interface Services extends AgentServices, AgentBasics {
  state: StateStore;
  /** The one access checker: the API's tickets, every proxy and the session guard decide through it. */
  access: AccessChecker;
  /** What a principal reaches and as whom, per role, as the checker decides (GET /v1/users/{id}/access). */
  effectiveAccess: EffectiveAccessService;
  audit: AuditLog;
  /** The store the audit log appends to (the webhook dispatcher tails it). */
  auditStore: AuditStore;
  /** "Nobody grants what they do not hold": every granting path asks it. */
  covering: Covering;
  /** What a token, SSH key or ticket acts as: one pipeline for every door. */
  pipeline: PrincipalPipeline;
  tokens: TokenService;
  users: UserService;
  roles: RoleService;
  resources: ResourceService;
  /** SSH public keys of users and agents; findPrincipalByKey serves the SSH proxy. */
  sshKeys: SshKeyService;
  webhooks: WebhookService;
  /** Single sign-on connectors (OpenID Providers) and the sign-ins through them. */
  connectors: ConnectorService;
  sso: SsoService;
  /** Not running until start() (the server starts it; scripts that only build services do not). */
  webhookDispatcher: WebhookDispatcher;
  auditRead: AuditReadService;
  /** Session records and the live sessions this process holds (the proxy's side). */
  sessionRegistry: SessionRegistry;
  /** Sessions as the API sees them: visibility, termination, tickets, recordings. */
  sessions: SessionService;
  /** Ends live sessions held here once what allowed them no longer does. */
  sessionGuard: SessionGuard;
  tickets: TicketService;
  /** Who may reach which Kubernetes cluster as whom (the Kubernetes proxy asks it). */
  /** Kubeconfigs with a short-lived token of the caller (GET /v1/resources/{id}/kubeconfig). */
  kubeconfigs: Kubeconfigs;
  /** Application access: where apps live, launch codes and cookie sessions, the identity JWT. */
  apps: Apps;
  /** Signs short-lived user certificates for upstream logins (targets trust GET /v1/auth/ssh-ca). */
  userCa: UserCa;
  /** SSH certificates for logins (gatehouse login), signed by the client CA; the SSH proxy accepts them. */
  loginCertificates: LoginCertificates;
  /** The Kubernetes proxy's CA, the cluster's one (kube-ca-store.ts). */
  kubeCa: KubeCa;
  /** Spool, upload completer and object store of session recordings; not running until start(). */
  recordings: RecordingService;
  /** Where users reach the SSH proxy (ssh_public_addr, else where it listens); undefined without one. */
  sshEndpoint(): { host: string; port: number } | undefined;
  publishSshEndpoint(endpoint: { host: string; port: number }): void;
  /** People's security keys and passkeys (register, list, rename, remove). */
  mfa: MfaService;
  /** The console sign-in's second step, and the passkey sign-in. */
  mfaSignIn: MfaSignIn;
  /** The console's public address (web_public_url, else http(s)://localhost:<web port>). */
  webPublicUrl(): string;
  publishWebPublicUrl(url: string): void;
  /** Where users reach the PostgreSQL proxy; undefined without one. */
  dbEndpoint(): { host: string; port: number } | undefined;
  publishDbEndpoint(endpoint: { host: string; port: number }): void;
  /** /readyz checks; one that answers a string is ready, with that detail (Redis: its fallback). */
  readiness: Record<string, () => Promise<unknown>>;
  /** Counters, session registry and pub/sub shared through Redis, or kept in this process. */
  shared: SharedState;
  /** Prometheus metrics, when enabled (e.g. sessions observe session_duration_seconds). */
  metrics?: Metrics;
  /** Join tokens and the proxies' identities: on instances that run the auth tier only. */
  proxyIdentities?: ProxyIdentities;
  close(): void;
}

export async function createServices(deps: {
  config: Config;
  backend: Backend;
  auditStore: AuditStore;
  clock: Clock;
  onFailedLogin?: () => void;
  metrics?: Metrics;
  /** Redis (redis_url) or in-process; the caller closes it. Default: in-process. */
  shared?: SharedState;
  /** Start-up findings an operator should see (e.g. names that already differ only in case). */
  warn?: (message: string) => void;
}): Promise<Services> {
  const { config, backend, auditStore, clock } = deps;
  const cache = await createStateCache(backend);
  const state = createStateStore(backend, cache);
  // Events of an agent acting for a user name both (data.on_behalf_of).
  const audit = recordDelegationTrail(createAuditLog({ store: auditStore, clock }));
  const policies = createPolicyResolver(state);
  const covering = createCovering({ state, policies, audit });
  const tokenIndex = createTokenIndex(state);
  const shared = deps.shared ?? openSharedState(undefined);
  const agentBasics = createAgentBasics({ config, state, clock, tokenIndex, shared });
  const throttleWindowMs = parseDuration(config.login_throttle.window) as number;
  const localThrottle = createLoginThrottle(
    { maxFailures: config.login_throttle.max_failures, windowMs: throttleWindowMs },
    clock,
  );
  const throttle = shared.counters
    ? sharedLoginThrottle(shared.counters, localThrottle, throttleWindowMs)
    : asLoginThrottle(localThrottle);
  const pipeline = createPrincipalPipeline({
    state,
    clock,
    policies,
    agentRequestsPerMinute: config.agents.requests_per_minute,
  });
  const tokens = createTokenService({
    state,
    audit,
    clock,
    throttle,
    policies,
    pipeline,
    index: tokenIndex,
    usage: agentBasics.usage,
    settings: {
      accessTtlMs: parseDuration(config.tokens.access_ttl) as number,
      refreshTtlMs: parseDuration(config.tokens.refresh_ttl) as number,
      maxLoginsPerKey: config.tokens.max_logins_per_key,
    },
    ...(deps.onFailedLogin ? { onFailedLogin: deps.onFailedLogin } : {}),
  });
  const users = createUserService({
    state,
    audit,
    clock,
    tokens,
    tokenIndex,
    policies,
    covering,
    killSwitch: agentBasics.killSwitch,
    sessions: shared.bus,
  });
  const roles = createRoleService({ state, audit, clock, covering });
  // Agent JWT signing keys and servers' upstream SSH keys are sealed with the same data-dir key as
  // webhook secrets.
  const sealKeyPath = config.seal_key_file
    ? resolve(config.seal_key_file)
    : webhookSecretKeyPath(resolve(config.data_dir));
  const box = createSecretBox(sealKeyPath);
  await verifySealKey(state, box, config.seal_key_file ? `seal_key_file ${sealKeyPath}` : sealKeyPath);
  const resources = createResourceService({ state, audit, clock, box, covering });
  const sshKeys = createSshKeyService({ state, audit, clock, covering });
  const agentServices = createAgentServices(agentBasics, {
    config,
    state,
    audit,
    clock,
    policies,
    tokenIndex,
    tokens,
    box,
    covering,
  });
  const policy = { allowedHosts: config.webhook_allowed_hosts };
  const webhooks = createWebhookService({ state, audit, clock, box, policy, covering });
  const webhookDispatcher = createWebhookDispatcher({
    backend,
    state,
    auditStore,
    audit,
    box,
    policy,
    policies,
    clock,
    options: dispatcherOptionsFrom(config.webhooks),
  });
  const connectors = createConnectorService({ state, audit, clock, box, covering, policies });
  const sso = createSsoService({
    state,
    audit,
    clock,
    connectors,
    oidc: createOidcClient({ secretOf: connectors.secretOf }),
    users: createProviderUsers({ state, audit, clock }),
    // Read per sign-in: the default address needs the web listener's port (publishWebPublicUrl).
    publicUrl: () => currentUrl(),
  });
  const sessionRegistry = createSessionRegistry({ state, audit, clock, bus: shared.bus });
  let sshEndpoint: { host: string; port: number } | undefined;
  let dbEndpoint: { host: string; port: number } | undefined;
  const recordings = createRecordingService({
    config,
    record: (event) => audit.record(event),
    clock,
  });
  const tickets = createTicketService({ state, clock });
  const access = createAccessChecker({ state });
  const sessions = createSessionService({
    state,
    audit,
    sessions: sessionRegistry,
    recordings,
    tickets,
    access,
  });
  // Live sessions held here end when what allowed them no longer does (a revoked token, a deleted key…).
  const sessionGuard = createSessionGuard({
    state,
    audit,
    clock,
    sessions: sessionRegistry,
    tokens,
    pipeline,
    access,
    onError: (error) => deps.warn?.(`live session re-check failed: ${(error as Error).message}`),
  });
  // The auth tier registers proxies and signs their credentials; a removed proxy's sessions end.
  const proxyIdentities = config.roles.includes('auth')
    ? createProxyIdentities({
        state,
        audit,
        clock,
        credentials: createProxyCredentials(await ensureSigningKey({ state, box, clock }), clock),
        endSessionsOf: async (identity: string, ctx: CallerContext) => {
          const held = sessionRegistry.list().filter((s) => s.status === 'active' && ownedBy(identity, s.instance));
          const reason = `proxy ${identity} removed`;
          for (const s of held) {
            await sessionRegistry.terminate(s.id, reason);
            await audit.record({
              type: 'session.terminated',
              ...ctx,
              target: s.resource,
              session_id: s.id,
              data: { principal: s.principal, login: s.login, reason },
            });
          }
          await sessionRegistry.confirmEnded(
            held.map((s) => s.id),
            reason,
          );
          return held.length;
        },
      })
    : undefined;
  // The relying party is read per ceremony: the default address needs the web listener's port.
  let webPublicUrl = config.web_public_url;
  const currentUrl = () => {
    if (!webPublicUrl)
      throw new GatehouseError('unavailable', 'the console has no public address yet (web_public_url)');
    return webPublicUrl;
  };
  const mfaDeps = {
    state,
    audit,
    clock,
    challenges: createChallenges({ state, clock }),
    relyingParty: () => relyingPartyOf(currentUrl()),
  };
  const mfa = createMfaService({ ...mfaDeps, covering });
  const mfaSignIn = createMfaSignIn({
    ...mfaDeps,
    devices: mfa,
    passwordlessAllowed: (userId) => pipeline.resolve({ kind: 'user', id: userId }).policy.signIn().mfaPasswordless,
  });
  await roles.ensureBuiltins();
  await backfillFoldedNames(state, deps.warn ?? (() => {}), [
    { what: 'webhooks', prefix: webhookKeys.webhooks, key: (r) => webhookKeys.foldedName(r.name) },
  ]);

  return {
    state,
    access,
    effectiveAccess: createEffectiveAccess({ state, access, policies, pipeline }),
    audit,
    covering,
    pipeline,
    tokens,
    users,
    roles,
    resources,
    sshKeys,
    ...agentBasics,
    ...agentServices,
    webhooks,
    connectors,
    sso,
    webhookDispatcher,
    auditStore,
    auditRead: createAuditReadService({ audit }),
    sessionRegistry,
    sessions,
    sessionGuard,
    tickets,
    apps: createApps({
      state,
      clock,
      access,
      tokens,
      signingKeys: agentServices.signingKeys,
      sessionTtlMs: parseDuration(config.tokens.access_ttl) as number,
    }),
    kubeconfigs: createKubeconfigs({
      access,
      tokens,
      audit,
      tokenTtlMs: parseDuration(config.tokens.access_ttl) as number,
    }),
    userCa: await ensureUserCa({ state, box, clock }),
    loginCertificates: createLoginCertificates({
      ca: await ensureUserCa({ state, box, clock }, CLIENT_CA),
      tokens,
      clock,
    }),
    // A proxy that reaches the stores through auth may not write secrets: it reads the auth tier's CA.
    kubeCa: await ensureKubeCa({
      state,
      box,
      clock,
      dataDir: resolve(config.data_dir),
      mayCreate: config.roles.includes('auth') || config.auth_servers === undefined,
    }),
    recordings,
    sshEndpoint: () => sshEndpoint,
    publishSshEndpoint: (endpoint) => {
      sshEndpoint = endpoint;
    },
    mfa,
    mfaSignIn,
    webPublicUrl: currentUrl,
    publishWebPublicUrl: (url) => {
      webPublicUrl = config.web_public_url ?? url;
    },
    dbEndpoint: () => dbEndpoint,
    publishDbEndpoint: (endpoint) => {
      dbEndpoint = endpoint;
    },
    readiness: {
      backend: () => backend.ping(),
      audit: () => auditReadiness(auditStore),
      ...(shared.link ? { redis: () => shared.readiness() } : {}),
    },
    shared,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    ...(proxyIdentities ? { proxyIdentities } : {}),
    close: () => {
      agentBasics.usage.stop();
      sessionGuard.close();
      sessionRegistry.close();
      cache.close();
    },
  };
}
