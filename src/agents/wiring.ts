// Wires the agent services (lifecycle, credentials, delegation, JWT keys, limits) for services.ts,
// in two steps: what token and user services need first, then the rest over them.

import type { AuditLog } from '../audit/audit-log.js';
import type { Covering } from '../auth/covering.js';
import type { PolicyResolver } from '../auth/policy-resolver.js';
import type { TokenIndex } from '../auth/token-index.js';
import type { TokenService } from '../auth/token-service.js';
import type { StateStore } from '../backend/state.js';
import type { SharedState } from '../cluster/shared-state.js';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../lib/clock.js';
import { parseDuration } from '../lib/duration.js';
import type { SecretBox } from '../lib/secret-box.js';
import { type AgentService, createAgentService } from './agent-service.js';
import { createCredentialHoldings } from './credential-holdings.js';
import { createCredentialIssuer } from './credential-issuer.js';
import { type CredentialService, createCredentialService } from './credential-service.js';
import { createDelegationService, type DelegationService } from './delegation-service.js';
import { createTokenIntrospection, type TokenIntrospection } from './introspection.js';
import { createKillSwitch, type KillSwitch } from './kill-switch.js';
import { type AgentLimits, asAgentLimits, createAgentLimits, sharedAgentLimits } from './rate-limits.js';
import { createSigningKeys, type SigningKeys } from './signing-keys.js';
import { createTokenExchange, type TokenExchange } from './token-exchange.js';
import { createUsageTracker, type UsageTracker } from './usage.js';

export interface AgentBasics {
  usage: UsageTracker;
  agentLimits: AgentLimits;
  killSwitch: KillSwitch;
}

export interface AgentServices {
  agents: AgentService;
  agentCredentials: CredentialService;
  delegations: DelegationService;
  signingKeys: SigningKeys;
  tokenExchange: TokenExchange;
  tokenIntrospection: TokenIntrospection;
}

function durationAtLeast(key: string, text: string, minMs: number): number {
  const ms = parseDuration(text) as number;
  if (ms < minMs) throw new ConfigError(`config key ${key}: must be at least ${minMs / 1000}s`);
  return ms;
}

export function createAgentBasics(deps: {
  config: Config;
  state: StateStore;
  clock: Clock;
  tokenIndex: TokenIndex;
  /** Where the buckets live: Redis (shared by every instance) or this process. */
  shared: Pick<SharedState, 'counters' | 'bus'>;
}): AgentBasics {
  const { config, state, clock } = deps;
  const counters = deps.shared.counters;
  const local = createAgentLimits(clock, {
    requestsPerMinute: config.agents.requests_per_minute,
    credentialsPerMinute: config.agents.credentials_per_minute,
  });
  return {
    usage: createUsageTracker({ state, clock }),
    agentLimits: counters ? sharedAgentLimits(counters, local) : asAgentLimits(local),
    killSwitch: createKillSwitch({ state, tokenIndex: deps.tokenIndex, sessions: deps.shared.bus }),
  };
}

export function createAgentServices(
  basics: AgentBasics,
  deps: {
    config: Config;
    state: StateStore;
    audit: AuditLog;
    clock: Clock;
    policies: PolicyResolver;
    tokenIndex: TokenIndex;
    tokens: TokenService;
    box: SecretBox;
    covering: Covering;
  },
): AgentServices {
  const { config, state, audit, clock, tokenIndex, tokens, covering } = deps;
  const maxTtlMs = durationAtLeast('agents.max_credential_ttl', config.agents.max_credential_ttl, 60_000);
  const rotationMs = durationAtLeast('agents.jwt_key_rotation', config.agents.jwt_key_rotation, 60_000);
  const accessTtlMs = parseDuration(config.tokens.access_ttl) as number;
  const signingKeys = createSigningKeys({ state, box: deps.box, clock, rotationMs, maxTokenTtlMs: maxTtlMs });
  const issuer = createCredentialIssuer({
    state,
    audit,
    clock,
    tokens,
    signingKeys,
    limits: basics.agentLimits,
    holdings: createCredentialHoldings(state, tokenIndex),
    settings: {
      maxTtl: Math.floor(maxTtlMs / 1000),
      defaultTtl: Math.min(3600, Math.floor(maxTtlMs / 1000)),
      issuer: config.agents.jwt_issuer,
      maxCredentials: config.agents.max_credentials,
    },
  });
  return {
    agents: createAgentService({
      state,
      audit,
      clock,
      policies: deps.policies,
      killSwitch: basics.killSwitch,
      usage: basics.usage,
      limits: basics.agentLimits,
      covering,
    }),
    agentCredentials: createCredentialService({
      state,
      audit,
      clock,
      issuer,
      tokenIndex,
      usage: basics.usage,
      covering,
    }),
    delegations: createDelegationService({ state, audit, clock, tokenIndex, covering }),
    signingKeys,
    tokenExchange: createTokenExchange({ state, audit, clock, tokens, issuer, accessTtlMs }),
    tokenIntrospection: createTokenIntrospection({
      state,
      clock,
      tokens,
      signingKeys,
      issuer: config.agents.jwt_issuer,
    }),
  };
}
