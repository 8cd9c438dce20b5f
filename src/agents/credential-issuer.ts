// Issuing agent credentials: an API key (for POST /v1/auth/token), a short-lived opaque access token
// (for Gatehouse's API), or a signed JWT (for third-party services). Each is recorded (metadata only)
// in the same atomic write as its secret, conditioned on the agent not having changed, so no
// credential escapes a concurrent suspension. Shared by the credentials endpoint and token exchange.

import type { ServiceDeps } from '../audit/service-deps.js';
import { stoppedAncestor } from '../auth/agent-lineage.js';
import { newApiKeyWrite } from '../auth/api-keys.js';
import { type Actor, actorOf, eventContext, type PrincipalName, type RequestContext } from '../auth/principal.js';
import {
  type AgentRecord,
  type CredentialRecord,
  type CredentialType,
  type ExchangeSources,
  keys,
  type UserRecord,
} from '../auth/records.js';
import { TOMBSTONE_MS } from '../auth/token-revocation.js';
import type { TokenService } from '../auth/token-service.js';
import type { CachedItem } from '../backend/cache.js';
import { BackendError, type Condition, type Operation } from '../backend/types.js';
import { isoTime } from '../lib/clock.js';
import { conflict, forbidden, GatehouseError, invalidField } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { type CredentialHoldings, MAX_REMOVED_PER_ISSUANCE } from './credential-holdings.js';
import { type AgentLimits, rateLimitHeaders } from './rate-limits.js';
import { userHolds } from './role-holding.js';
import type { SigningKeys } from './signing-keys.js';

export interface CredentialSettings {
  /** The longest lifetime of any agent credential (seconds). */
  maxTtl: number;
  /** Lifetime when the request names none (seconds), bounded by the maxima. */
  defaultTtl: number;
  /** `iss` of agent JWTs. */
  issuer: string;
  /** Credential records one agent holds at most (credential-holdings.ts). */
  maxCredentials: number;
}

export interface IssueRequest {
  type: CredentialType;
  ttl?: number;
  /** Explicitly requested roles (a subset of the agent's); absent: all of them. */
  roles?: string[];
  audience?: string;
  /** Token exchange: the user the agent acts for, and the latest the credential may expire (ms). */
  onBehalfOf?: UserRecord;
  /** Token exchange: the tokens it came from, which it must not outlive (records.ts). */
  exchangedFrom?: ExchangeSources;
  notAfter?: number;
  /** The field requests name in errors (`/body/ttl`, `/body/scope`). */
  rolesPath?: string;
}

export interface IssuedCredential {
  id: string;
  agent_id: string;
  type: CredentialType;
  roles: string[];
  audience: string | null;
  created_at: string;
  expires_at: string;
  expires_in: number;
  api_key?: string;
  access_token?: string;
  token_type?: 'Bearer';
  jwt?: string;
  kid?: string;
}

export type CredentialIssuer = ReturnType<typeof createCredentialIssuer>;

export function createCredentialIssuer(
  deps: ServiceDeps & {
    tokens: Pick<TokenService, 'agentAccessToken'>;
    signingKeys: Pick<SigningKeys, 'current' | 'sign'>;
    limits: AgentLimits;
    holdings: Pick<CredentialHoldings, 'held' | 'removable'>;
    settings: CredentialSettings;
  },
) {
  const { state, audit, clock, settings } = deps;

  /** The longest lifetime this agent's credentials may have (seconds). */
  const ttlBound = (agent: AgentRecord): number => Math.min(settings.maxTtl, agent.max_credential_ttl ?? Infinity);

  /** A breach of the agent's credential-issuance limit is a 429 and (once a minute) an event. */
  async function checkIssuanceLimit(ctx: RequestContext, agent: AgentRecord): Promise<void> {
    const perMinute = agent.rate_limit?.credentials_per_minute ?? deps.limits.defaults.credentialsPerMinute;
    const breach = await deps.limits.take('credentials', agent.id, perMinute);
    if (!breach) return;
    if (breach.report) {
      await audit.record({
        type: 'agent.rate_limited',
        actor: actorOf(ctx),
        target: { kind: 'agent', id: agent.id, name: agent.name },
        success: false,
        ...eventContext(ctx),
        data: { limit: 'credentials_per_minute', per_minute: breach.limit, refused: breach.refused },
      });
    }
    throw new GatehouseError('rate_limited', `agent ${agent.id} may be issued ${breach.limit} credentials a minute`, {
      headers: rateLimitHeaders(breach),
    });
  }

  /**
   * An agent at its bound makes room: its oldest records that let nobody in go in the issuing write;
   * with none such, the issuance is refused rather than any live credential ended.
   */
  function makeRoom(agent: AgentRecord, now: number): Operation[] {
    const held = deps.holdings.held(agent.id);
    const over = held + 1 - settings.maxCredentials;
    if (over <= 0) return [];
    const { removed, ops } = deps.holdings.removable(agent.id, now, Math.min(over, MAX_REMOVED_PER_ISSUANCE));
    if (removed === 0)
      throw conflict(
        `agent ${agent.name} holds ${held} credentials, none of them expired or revoked (agents.max_credentials is ${settings.maxCredentials}); revoke some, or wait until some expire`,
      );
    return ops;
  }

  /** The roles the credential carries: the requested ones (each the agent's and its owner's), or all that qualify. */
  function scopeOf(agent: AgentRecord, req: IssueRequest): string[] {
    const owner = state.get<UserRecord>(keys.user(agent.owner))?.value;
    if (req.roles === undefined) return agent.roles.filter((r) => userHolds(owner, r));
    const path = req.rolesPath ?? '/body/roles';
    req.roles.forEach((role) => {
      if (!agent.roles.includes(role))
        throw forbidden(`${path}: the agent does not hold role ${role}; a credential carries a subset of its roles`);
      if (!userHolds(owner, role))
        throw forbidden(`${path}: the agent's owner no longer holds role ${role}, so no credential may carry it`);
    });
    return [...new Set(req.roles)];
  }

  return {
    ttlBound,

    async issue(ctx: RequestContext, agentItem: CachedItem<AgentRecord>, req: IssueRequest): Promise<IssuedCredential> {
      const agent = agentItem.value;
      if (agent.status !== 'active') {
        if (agent.status === 'suspended') throw conflict(`agent ${agent.id} is suspended; reactivate it first`);
        throw conflict(`agent ${agent.id} is revoked; it can never hold credentials again`);
      }
      const stopped = stoppedAncestor(state, agent);
      if (stopped)
        throw conflict(
          `agent ${stopped.id}, which created ${agent.name}'s line, is ${stopped.status}; nothing below it gets credentials`,
        );
      const bound = ttlBound(agent);
      if (req.ttl !== undefined && req.ttl > bound)
        throw invalidField('/body/ttl', `must be at most ${bound} s for this agent`);
      if (req.type === 'jwt' && req.audience === undefined)
        throw invalidField('/body/audience', 'is required for a jwt: a signed token names the service it is for');
      const roles = scopeOf(agent, req);
      await checkIssuanceLimit(ctx, agent);

      const now = clock();
      const room = makeRoom(agent, now);
      let ttlMs = (req.ttl ?? Math.min(settings.defaultTtl, bound)) * 1000;
      if (req.notAfter !== undefined) ttlMs = Math.min(ttlMs, req.notAfter - now);
      if (ttlMs < 1000) throw invalidField('/body/subject_token', 'expires too soon to be exchanged');
      const expiresAt = now + ttlMs;
      const id = newId('credential', now);
      const subject: PrincipalName | undefined = req.onBehalfOf
        ? { kind: 'user', id: req.onBehalfOf.id, name: req.onBehalfOf.name }
        : undefined;
      const actor = actorOf(ctx);
      const scoped = req.roles !== undefined ? { roles } : {};
      const record: CredentialRecord = {
        id,
        agent_id: agent.id,
        type: req.type,
        ...scoped,
        ...(req.audience !== undefined ? { audience: req.audience } : {}),
        ...(subject ? { on_behalf_of: { kind: 'user', id: subject.id } } : {}),
        ...(req.exchangedFrom ? { exchanged_from: req.exchangedFrom } : {}),
        created_by: { kind: actor.kind, ...(actor.id ? { id: actor.id } : {}) },
        created_at: isoTime(now),
        expires_at: isoTime(expiresAt),
      };
      const conditions: Condition[] = [{ key: agentItem.key, revision: agentItem.revision }];
      const operations: Operation[] = [...room];
      const secret: Partial<IssuedCredential> = {};
      let signing: Promise<string> | undefined;

      if (req.type === 'api_key') {
        const key = newApiKeyWrite(
          { kind: 'agent', id: agent.id },
          { name: `credential ${id}`, now, expiresAt, ...scoped, credentialId: id },
        );
        record.api_key_id = key.record.id;
        conditions.push(...key.conditions);
        operations.push(...key.operations);
        secret.api_key = key.secret;
      } else if (req.type === 'token') {
        // For Gatehouse's API: scoped roles are re-checked against the agent and owner per request.
        const token = deps.tokens.agentAccessToken(agent.id, ttlMs, {
          ...scoped,
          credential_id: id,
          ...(subject ? { on_behalf_of: { kind: 'user', id: subject.id } } : {}),
          ...(req.exchangedFrom ? { exchanged_from: req.exchangedFrom } : {}),
        });
        record.token_family = token.family;
        operations.push(token.op);
        secret.access_token = token.accessToken;
        secret.token_type = 'Bearer';
      } else {
        // For third parties, who verify offline: the scope is fixed now (and, delegated, within the user's roles).
        const scope = subject ? roles.filter((r) => userHolds(req.onBehalfOf, r)) : roles;
        const claims = {
          iss: settings.issuer,
          aud: req.audience as string,
          jti: id,
          scope: scope.join(' '),
          // RFC 8693 §4.1: a delegated token's subject is the user, and `act` names the agent acting.
          ...(subject ? { sub: subject.id, act: { sub: agent.id } } : { sub: agent.id }),
        };
        const key = await deps.signingKeys.current();
        record.kid = key.kid;
        secret.kid = key.kid;
        // Signed while the record is written; the JWT is handed out only if both succeed.
        signing = deps.signingKeys.sign(key, claims, Math.round(ttlMs / 1000));
      }
      operations.push({
        type: 'put',
        key: keys.credential(agent.id, id),
        value: JSON.stringify(record),
        expiresAt: expiresAt + TOMBSTONE_MS,
      });
      const [written, signed] = await Promise.allSettled([state.write(conditions, operations), signing]);
      if (written.status === 'rejected') {
        if (written.reason instanceof BackendError)
          throw conflict(`agent ${agent.id} changed while the credential was issued; retry`);
        throw written.reason;
      }
      if (signed.status === 'rejected') throw signed.reason;
      if (signed.value !== undefined) secret.jwt = signed.value;
      await audit.record({
        type: 'agent.credentials.issued',
        actor: actor as Actor,
        target: { kind: 'agent', id: agent.id, name: agent.name },
        ...eventContext(ctx),
        data: {
          credential_id: id,
          type: req.type,
          roles,
          ttl: Math.round(ttlMs / 1000),
          ...(req.audience !== undefined ? { audience: req.audience } : {}),
          ...(record.api_key_id ? { api_key_id: record.api_key_id } : {}),
          ...(record.kid ? { kid: record.kid } : {}),
          ...(subject ? { for_user: subject.id } : {}),
        },
      });
      return {
        id,
        agent_id: agent.id,
        type: req.type,
        roles,
        audience: req.audience ?? null,
        created_at: record.created_at,
        expires_at: record.expires_at,
        expires_in: Math.round(ttlMs / 1000),
        ...secret,
      };
    },
  };
}
