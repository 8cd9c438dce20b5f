// The composition of Gatehouse's domain services over its stores. Built once per process and
// shared by every listener.

import { type AgentService, createAgentService } from './api/agents/agents.service.js';
import { createResourceService, type ResourceService } from './api/resources/resources.service.js';
import { createRoleService, type RoleService } from './api/roles/roles.service.js';
import { createUserService, type UserService } from './api/users/users.service.js';
import { type AuditLog, createAuditLog } from './audit/audit-log.js';
import type { AuditStore } from './audit/types.js';
import { createLoginThrottle } from './auth/login-throttle.js';
import { createPolicyResolver } from './auth/policy-resolver.js';
import { createTokenIndex } from './auth/token-index.js';
import { createTokenService, type TokenService } from './auth/token-service.js';
import { createStateCache } from './backend/cache.js';
import { createStateStore, type StateStore } from './backend/state.js';
import type { Backend } from './backend/types.js';
import type { Config } from './config/schema.js';
import type { Clock } from './lib/clock.js';
import { parseDuration } from './lib/duration.js';

export interface Services {
  state: StateStore;
  audit: AuditLog;
  tokens: TokenService;
  users: UserService;
  roles: RoleService;
  resources: ResourceService;
  agents: AgentService;
  readiness: Record<string, () => Promise<void>>;
  close(): void;
}

export async function createServices(deps: {
  config: Config;
  backend: Backend;
  auditStore: AuditStore;
  clock: Clock;
  onFailedLogin?: () => void;
}): Promise<Services> {
  const { config, backend, auditStore, clock } = deps;
  const cache = await createStateCache(backend);
  const state = createStateStore(backend, cache);
  const audit = createAuditLog({ store: auditStore, clock });
  const policies = createPolicyResolver(state);
  const tokenIndex = createTokenIndex(state);
  const throttle = createLoginThrottle(
    {
      maxFailures: config.login_throttle.max_failures,
      windowMs: parseDuration(config.login_throttle.window) as number,
    },
    clock,
  );
  const tokens = createTokenService({
    state,
    audit,
    clock,
    throttle,
    policies,
    index: tokenIndex,
    settings: {
      accessTtlMs: parseDuration(config.tokens.access_ttl) as number,
      refreshTtlMs: parseDuration(config.tokens.refresh_ttl) as number,
    },
    ...(deps.onFailedLogin ? { onFailedLogin: deps.onFailedLogin } : {}),
  });
  const users = createUserService({ state, audit, clock, tokens, tokenIndex, policies });
  const roles = createRoleService({ state, audit, clock });
  const resources = createResourceService({ state, audit, clock });
  const agents = createAgentService({ state, audit, clock, policies, tokens, users });
  await roles.ensureBuiltins();

  return {
    state,
    audit,
    tokens,
    users,
    roles,
    resources,
    agents,
    readiness: { backend: () => backend.ping(), audit: () => auditStore.ping() },
    close: () => cache.close(),
  };
}
