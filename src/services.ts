// The composition of Gatehouse's domain services over its stores. Built once per process and
// shared by every listener.

import { resolve } from 'node:path';
import { type AccessChecker, createAccessChecker } from './access/access-checker.js';
import { createEffectiveAccess, type EffectiveAccessService } from './access/effective-access.js';
import { createRolePreview, type RolePreviewService } from './access/role-preview.js';
import { type AgentBasics, type AgentServices, createAgentBasics, createAgentServices } from './agents/wiring.js';
import { type Apps, createApps } from './apps/apps.js';
import { type AuditLog, createAuditLog } from './audit/audit-log.js';
import { auditReadiness } from './audit/readiness.js';
import type { AuditStore } from './audit/types.js';
import { type Covering, createCovering } from './auth/covering.js';
import { recordDelegationTrail } from './auth/delegation-trail.js';
import { createPolicyResolver } from './auth/policy-resolver.js';
import { createTokenIndex } from './auth/token-index.js';
import { backfillFoldedNames } from './auth/unique-names.js';
import { createStateCache } from './backend/cache.js';
import { verifySealKey } from './backend/seal-check.js';
import { createStateStore, type StateStore } from './backend/state.js';
import type { Backend } from './backend/types.js';
import { openSharedState, type SharedState } from './cluster/shared-state.js';
import type { Config } from './config/schema.js';
import { type AuditReadService, createAuditReadService } from './events/audit-read.js';
import { createKubeconfigs, type Kubeconfigs } from './kube/kubeconfig.js';
import type { Clock } from './lib/clock.js';
import { parseDuration } from './lib/duration.js';
import { createSecretBox, NO_SEAL_KEY, webhookSecretKeyPath } from './lib/secret-box.js';
import { createMcpApprovals, type McpApprovals } from './mcp/mcp-approvals.js';
import type { AuthPool } from './net/auth-client.js';
import type { Metrics } from './observability/metrics.js';
import { createRecordingService, type RecordingService } from './recordings/recording-service.js';
import { createResourceService, type ResourceService } from './resources/resource-service.js';
import { createRoleService, type RoleService } from './roles/role-service.js';
import { type CallerServices, createCallerServices } from './services-auth.js';
import { createDoorServices, type DoorServices } from './services-doors.js';
import { createSignInServices, type SignInServices } from './services-sign-in.js';
import { createSessionGuard, type SessionGuard } from './sessions/session-guard.js';
import { createSessionRegistry, type SessionRegistry } from './sessions/session-registry.js';
import { createSessionService, type SessionService } from './sessions/session-service.js';
import { createTicketService, type TicketService } from './sessions/tickets.js';
import { createSshKeyService, type SshKeyService } from './ssh-keys/ssh-key-service.js';
import { createUserService, type UserService } from './users/user-service.js';
import { createWebhookDispatcher, dispatcherOptionsFrom, type WebhookDispatcher } from './webhooks/dispatcher.js';
import { webhookKeys } from './webhooks/records.js';
import { createWebhookService, type WebhookService } from './webhooks/webhook-service.js';

export interface Services
  extends AgentServices,
    AgentBasics,
    Omit<CallerServices, 'throttle'>,
    DoorServices,
    SignInServices {
  state: StateStore;
  /** The one access checker: the API's tickets, every proxy and the session guard decide through it. */
  access: AccessChecker;
  /** What a principal reaches and as whom, per role, as the checker decides (GET /v1/users/{id}/access). */
  effectiveAccess: EffectiveAccessService;
  /** What a role change would do, before it is saved (POST /v1/roles/{id}/preview). */
  rolePreview: RolePreviewService;
  audit: AuditLog;
  /** The store the audit log appends to (the webhook dispatcher tails it). */
  auditStore: AuditStore;
  /** "Nobody grants what they do not hold": every granting path asks it. */
  covering: Covering;
  users: UserService;
  roles: RoleService;
  resources: ResourceService;
  /** SSH public keys of users and agents; findPrincipalByKey serves the SSH proxy. */
  sshKeys: SshKeyService;
  webhooks: WebhookService;
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
  /** The MCP gateway's approvals, bound to the exact call (src/mcp/mcp-approvals.ts). */
  mcpApprovals: McpApprovals;
  /** Spool, upload completer and object store of session recordings; not running until start(). */
  recordings: RecordingService;
  /** /readyz checks; one that answers a string is ready, with that detail (Redis: its fallback). */
  readiness: Record<string, () => Promise<unknown>>;
  /** Counters, session registry and pub/sub shared through Redis, or kept in this process. */
  shared: SharedState;
  /** Prometheus metrics, when enabled (e.g. sessions observe session_duration_seconds). */
  metrics?: Metrics;
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
  /**
   * A proxy of a cluster (auth_servers): its doors' credentials come from the auth tier, one session
   * at a time, and it knows the CAs' public halves only.
   */
  authTier?: Pick<AuthPool, 'fetch'>;
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
  // What most services are built over.
  const base = { config, state, audit, clock, policies, tokenIndex };
  const { throttle, pipeline, tokens, logins } = createCallerServices({
    ...base,
    shared,
    usage: agentBasics.usage,
    onFailedLogin: deps.onFailedLogin,
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
  // A proxy of a cluster holds no seal key (issue 29): nothing it runs opens or seals a secret.
  const box = deps.authTier ? NO_SEAL_KEY : createSecretBox(sealKeyPath);
  if (!deps.authTier)
    await verifySealKey(state, box, config.seal_key_file ? `seal_key_file ${sealKeyPath}` : sealKeyPath);
  const resources = createResourceService({ state, audit, clock, box, covering });
  const sshKeys = createSshKeyService({ state, audit, clock, covering });
  const agentServices = createAgentServices(agentBasics, { ...base, tokens, box, covering });
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
  const { publishedUrl, ...signIn } = createSignInServices({ ...base, box, covering, tokens, pipeline, throttle });
  const sessionRegistry = createSessionRegistry({ state, audit, clock, bus: shared.bus });
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
  const doorServices = await createDoorServices({
    config,
    state,
    audit,
    clock,
    box,
    tokens,
    pipeline,
    sshKeys,
    resources,
    sessionRegistry,
    sessionGuard,
    shared,
    authTier: deps.authTier,
  });
  await roles.ensureBuiltins();
  await backfillFoldedNames(state, deps.warn ?? (() => {}), [
    { what: 'webhooks', prefix: webhookKeys.webhooks, key: (r) => webhookKeys.foldedName(r.name) },
  ]);

  const effectiveAccess = createEffectiveAccess({ state, access, policies, pipeline });
  return {
    state,
    access,
    effectiveAccess,
    rolePreview: createRolePreview({ state, clock, access, policies, effectiveAccess }),
    audit,
    covering,
    pipeline,
    tokens,
    logins,
    users,
    roles,
    resources,
    sshKeys,
    ...agentBasics,
    ...agentServices,
    webhooks,
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
    mcpApprovals: createMcpApprovals({
      state,
      audit,
      clock,
      covering,
      // The console's address as published once the web listener is up (its port may be chosen then).
      approvalUrl: (id) => new URL(`/approvals/${id}`, publishedUrl() ?? 'http://localhost:3080').href,
    }),
    kubeconfigs: createKubeconfigs({
      access,
      tokens,
      audit,
      tokenTtlMs: parseDuration(config.tokens.access_ttl) as number,
    }),
    ...doorServices,
    recordings,
    ...signIn,
    readiness: {
      backend: () => backend.ping(),
      audit: () => auditReadiness(auditStore),
      ...(shared.link ? { redis: () => shared.readiness() } : {}),
    },
    shared,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    close: () => {
      agentBasics.usage.stop();
      sessionGuard.close();
      sessionRegistry.close();
      cache.close();
    },
  };
}
