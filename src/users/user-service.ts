// Users and their API keys. A key's secret is shown once and stored as a hash; deleting a key or a
// user revokes every token that came from it.

import { type KillSwitch, onePerKey } from '../agents/kill-switch.js';
import type { ServiceDeps } from '../audit/service-deps.js';
import type { Covering } from '../auth/covering.js';
import type { PolicyResolver } from '../auth/policy-resolver.js';
import { unlessChanged } from '../auth/preconditions.js';
import { actorOf, eventContext, type RequestContext } from '../auth/principal.js';
import {
  type AgentRecord,
  type ApiKeyRecord,
  creatorOf,
  type DelegationGrant,
  keys,
  prefixes,
  type UserRecord,
} from '../auth/records.js';
import type { TokenIndex } from '../auth/token-index.js';
import type { TokenService } from '../auth/token-service.js';
import { heldFoldedKey, insertNamed } from '../auth/unique-names.js';
import { translateConflicts } from '../backend/conflicts.js';
import type { Operation } from '../backend/types.js';
import type { SessionBus } from '../cluster/session-bus.js';
import { isoTime } from '../lib/clock.js';
import { conflict, found, invalidField, notFound } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { pageOfRecords } from '../lib/paging.js';
import { generateSecret, hashSecret, secretHint } from '../lib/secrets.js';
import { sessionTerminationOps } from '../sessions/session-registry.js';
import { sshKeyRemovalOps } from '../ssh-keys/ssh-key-service.js';

export interface CreateUserInput {
  name: string;
  roles: string[];
  traits?: Record<string, string[]>;
}

export const toUserResponse = (u: UserRecord) => ({
  id: u.id,
  name: u.name,
  roles: u.roles,
  traits: u.traits,
  status: u.status,
  ...(u.auth ? { auth: u.auth } : {}),
  created_at: u.created_at,
  updated_at: u.updated_at,
});

export const toApiKeyResponse = (k: ApiKeyRecord) => ({
  id: k.id,
  name: k.name,
  hint: k.hint,
  created_at: k.created_at,
  expires_at: k.expires_at ?? null,
  created_by: k.created_by ?? null,
});

export type UserService = ReturnType<typeof createUserService>;

export function createUserService(
  deps: ServiceDeps & {
    tokens: Pick<TokenService, 'revokeKeys'>;
    tokenIndex: TokenIndex;
    policies: Pick<PolicyResolver, 'roleByName'>;
    covering: Pick<Covering, 'require' | 'requirePrincipal' | 'userGrant'>;
    /** Deleting a user revokes the agents they own, in the same write. */
    killSwitch: Pick<KillSwitch, 'plan' | 'confirmEnded'>;
    /** Asks the proxies holding the user's sessions to end them, and hears which did. */
    sessions: Pick<SessionBus, 'confirmEnded'>;
  },
) {
  const { state, audit, clock } = deps;

  const findItem = (id: string) => found(state.get<UserRecord>(keys.user(id)), 'user', id);
  const find = (id: string): UserRecord => findItem(id).value;

  function checkRolesExist(roles: string[]): void {
    roles.forEach((name, i) => {
      if (!deps.policies.roleByName(name))
        throw invalidField(`/body/roles/${i}`, `role ${JSON.stringify(name)} does not exist`);
    });
  }

  const keysOf = (userId: string) =>
    state
      .list<ApiKeyRecord>(prefixes.apiKeys)
      .filter((k) => k.value.principal.kind === 'user' && k.value.principal.id === userId);

  async function insertApiKey(
    principal: ApiKeyRecord['principal'],
    input: { name: string; ttl?: number; secret?: string },
    ctx: RequestContext,
  ): Promise<{ record: ApiKeyRecord; secret: string }> {
    const now = clock();
    const secret = input.secret ?? generateSecret('apiKey');
    const record: ApiKeyRecord = {
      id: newId('apiKey', now),
      hash: hashSecret(secret),
      hint: secretHint(secret),
      name: input.name,
      principal,
      created_by: creatorOf(ctx),
      created_at: isoTime(now),
      ...(input.ttl ? { expires_at: isoTime(now + input.ttl * 1000) } : {}),
    };
    const principalKey = principal.kind === 'user' ? keys.user(principal.id) : keys.agent(principal.id);
    await translateConflicts(
      () =>
        state.write(
          [
            { key: principalKey, is: 'present' },
            { key: keys.apiKeyHash(record.hash), is: 'absent' },
          ],
          [
            { type: 'put', key: keys.apiKey(record.id), value: JSON.stringify(record) },
            { type: 'put', key: keys.apiKeyHash(record.hash), value: JSON.stringify({ ref: keys.apiKey(record.id) }) },
          ],
        ),
      { [principalKey]: `${principal.kind} ${principal.id} no longer exists` },
    );
    return { record, secret };
  }

  /** An event the caller caused on one user (created, changed, deleted, an API key made or removed). */
  const userEvent = (
    ctx: RequestContext,
    type: Parameters<typeof audit.record>[0]['type'],
    target: { id: string; name: string },
    data: Record<string, unknown>,
  ) => audit.record({ type, actor: actorOf(ctx), target: { kind: 'user', ...target }, ...eventContext(ctx), data });

  return {
    list(q: { page: number; per_page: number; name?: string; role?: string }) {
      const filtered = q.name !== undefined || q.role !== undefined;
      return pageOfRecords(
        state.list<UserRecord>(prefixes.users),
        q,
        filtered
          ? (u) => (q.name === undefined || u.name === q.name) && (q.role === undefined || u.roles.includes(q.role))
          : undefined,
      );
    },

    get: find,
    /** The stored user with its revision (its ETag). */
    getItem: findItem,

    /**
     * Break-glass only (`gatehouse admin reset`, which records `system.admin_reset` for it): makes
     * the user active and adds `admin` to its roles. Answers the user as it was before.
     */
    async reinstateAdmin(id: string): Promise<UserRecord> {
      const item = findItem(id);
      const before = item.value;
      const roles = before.roles.includes('admin') ? before.roles : [...before.roles, 'admin'];
      const user: UserRecord = { ...before, status: 'active', roles, updated_at: isoTime(clock()) };
      await translateConflicts(() => state.replace(item.key, item.revision, user));
      return before;
    },

    findByName(name: string): UserRecord | undefined {
      const ref = state.get<{ ref: string }>(keys.userName(name));
      return ref ? state.get<UserRecord>(ref.value.ref)?.value : undefined;
    },

    async create(ctx: RequestContext, input: CreateUserInput): Promise<UserRecord> {
      checkRolesExist(input.roles);
      // The roles with these traits: the logins `{{traits.logins}}` expands to are granted too.
      await deps.covering.require(
        ctx,
        deps.covering.userGrant({ roles: input.roles, traits: input.traits ?? {} }),
        { kind: 'user', name: input.name },
        `create user ${input.name} with roles [${input.roles.join(', ')}]`,
      );
      const now = isoTime(clock());
      const user: UserRecord = {
        id: newId('user', clock()),
        name: input.name,
        roles: [...new Set(input.roles)],
        traits: input.traits ?? {},
        status: 'active',
        created_at: now,
        updated_at: now,
      };
      const index = { exact: keys.userName(user.name), folded: keys.userFoldedName(user.name) };
      await insertNamed(state, 'a user', keys.user(user.id), user, index);
      await userEvent(ctx, 'user.created', { id: user.id, name: user.name }, { roles: user.roles });
      return user;
    },

    /**
     * Changes a user's roles or traits. The caller must cover the user as it is (target-principal)
     * and as it becomes (assigned-roles); the last active admin keeps `admin`. New rights apply from
     * the user's next request (policies are resolved per request).
     */
    async update(ctx: RequestContext, id: string, patch: { roles?: string[]; traits?: UserRecord['traits'] }) {
      const item = findItem(id);
      unlessChanged(ctx, item, `user ${item.value.name}`);
      const before = item.value;
      if (patch.roles) checkRolesExist(patch.roles);
      const after: UserRecord = {
        ...before,
        ...(patch.roles ? { roles: [...new Set(patch.roles)] } : {}),
        ...(patch.traits ? { traits: patch.traits } : {}),
      };
      const changed = (['roles', 'traits'] as const).filter(
        (f) => JSON.stringify(after[f]) !== JSON.stringify(before[f]),
      );
      if (changed.length === 0) return before;
      if (before.auth && changed.includes('roles')) {
        // The provider is the source of truth: a hand-made role would be gone at the next sign-in,
        // or worse, outlive the group that justified it until then.
        throw conflict(
          `user ${before.name} signs in through connector ${before.auth}: their roles are what its claims_to_roles ` +
            'maps their claims to, set at every sign-in; change the mapping or their groups at the provider',
        );
      }
      await deps.covering.requirePrincipal(ctx, { kind: 'user', id }, `change user ${before.name}`);
      await deps.covering.require(
        ctx,
        deps.covering.userGrant({ roles: after.roles, traits: after.traits }),
        { kind: 'user', id, name: before.name },
        `give user ${before.name} roles [${after.roles.join(', ')}]`,
      );
      if (before.roles.includes('admin') && !after.roles.includes('admin') && before.status === 'active') {
        const others = state
          .list<UserRecord>(prefixes.users)
          .filter((u) => u.value.id !== id && u.value.status === 'active' && u.value.roles.includes('admin'));
        if (others.length === 0) throw conflict('this is the last active admin; make another admin first');
      }
      const user = { ...after, updated_at: isoTime(clock()) };
      await translateConflicts(() => state.replace(item.key, item.revision, user));
      await userEvent(
        ctx,
        'user.updated',
        { id, name: user.name },
        {
          changed,
          ...(changed.includes('roles') ? { roles: user.roles, previous_roles: before.roles } : {}),
        },
      );
      return user;
    },

    /** Deletes the user with all it holds; answers the live sessions ended (its own and its agents'). */
    async remove(
      ctx: RequestContext,
      id: string,
    ): Promise<{ id: string; ended_sessions: string[]; confirmed_ended_sessions: string[] }> {
      const item = findItem(id);
      unlessChanged(ctx, item, `user ${item.value.name}`);
      const user = item.value;
      if (ctx.principal?.kind === 'user' && ctx.principal.id === id) {
        throw conflict('you cannot delete yourself; ask another administrator');
      }
      await deps.covering.requirePrincipal(ctx, { kind: 'user', id }, `delete user ${user.name}`);
      // Nobody is accountable for the user's agents any more: they are revoked (terminal) in the same
      // write, with every token, credential and session they hold; the records stay for the audit trail.
      const agents = state
        .list<AgentRecord>(prefixes.agents)
        .filter((a) => a.value.owner === id && a.value.status !== 'revoked');
      const now = clock();
      // Each owned agent has its own plan; the agents below it that the user owns too are left to theirs.
      const owned = new Set(agents.map((a) => a.value.id));
      const kills = agents.map((a) => ({
        agent: a.value,
        plan: deps.killSwitch.plan(a, 'revoked', now, { skip: owned }),
      }));
      const grants = state.list<DelegationGrant>(prefixes.delegations).filter((g) => g.value.user_id === id);
      if (user.roles.includes('admin')) {
        const otherAdmins = state
          .list<UserRecord>(prefixes.users)
          .filter((u) => u.value.id !== id && u.value.status === 'active' && u.value.roles.includes('admin'));
        if (otherAdmins.length === 0) throw conflict('this is the last active admin; create another admin first');
      }
      const apiKeys = keysOf(id);
      const sshKeyOps = sshKeyRemovalOps(state, id);
      // Its own live sessions end with it (marked terminated, for the proxy holding each to end).
      const own = sessionTerminationOps(state, id, now, 'user_deleted');
      // The user's record and its agents' go first (every door then refuses them); what they held is
      // written down after, in parts if it is more than one etcd write takes (StateStore.writeInParts).
      const conditions = [{ key: item.key, revision: item.revision }, ...kills.flatMap((k) => k.plan.conditions)];
      const decisive: Operation[] = [
        { type: 'delete', key: item.key },
        { type: 'delete', key: keys.userName(user.name) },
        ...heldFoldedKey(state, keys.userFoldedName(user.name), item.key).map((key) => ({
          type: 'delete' as const,
          key,
        })),
        ...kills.flatMap((k) => k.plan.operations),
      ];
      // Each agent's record changes in the user's own write, which etcd bounds (128 operations).
      if (!state.fits(conditions, decisive))
        throw conflict(
          `user ${user.name} owns ${agents.length} agents, more than can be revoked with it in one write; delete or revoke some of them first`,
        );
      await translateConflicts(() =>
        state.writeInParts(
          conditions,
          decisive,
          // One agent's plan may take back what another issued it: each key once (kill-switch.ts).
          onePerKey([
            ...own.operations,
            ...kills.flatMap((k) => k.plan.cleanup),
            ...apiKeys.flatMap((k) => [
              { type: 'delete' as const, key: k.key },
              { type: 'delete' as const, key: keys.apiKeyHash(k.value.hash) },
            ]),
            ...grants.map((g) => ({ type: 'delete' as const, key: g.key })),
            ...sshKeyOps,
          ]),
        ),
      );
      const revoked = await deps.tokens.revokeKeys(deps.tokenIndex.ofPrincipal(id));
      if (kills.length > 0) {
        await audit.record(
          ...kills.map(({ agent, plan }) => ({
            type: 'agent.revoked' as const,
            actor: actorOf(ctx),
            target: { kind: 'agent', id: agent.id, name: agent.name },
            ...eventContext(ctx),
            data: {
              reason: 'owner_deleted',
              revoked_tokens: plan.revokedTokens,
              revoked_credentials: plan.revokedCredentials,
              deleted_api_keys: plan.deletedApiKeys,
              ended_sessions: plan.endedSessions,
              revoked_issued_for_others: plan.issuedForOthers,
            },
          })),
        );
      }
      await userEvent(
        ctx,
        'user.deleted',
        { id, name: user.name },
        {
          deleted_api_keys: apiKeys.length,
          deleted_ssh_keys: sshKeyOps.length / 2,
          revoked_tokens: revoked,
          revoked_agents: kills.map((k) => k.agent.id),
          ended_sessions: own.ids,
        },
      );
      if (own.ids.length > 0) {
        await audit.record(
          ...own.ids.map((sessionId) => ({
            type: 'session.terminated' as const,
            actor: actorOf(ctx),
            target: { kind: 'session', id: sessionId },
            session_id: sessionId,
            ...eventContext(ctx),
            data: { reason: 'user_deleted', user_id: id },
          })),
        );
      }
      const confirmed = await Promise.all([
        own.ids.length > 0 ? deps.sessions.confirmEnded(own.ids, 'user_deleted') : [],
        ...kills.map((k) => deps.killSwitch.confirmEnded(k.plan, 'revoked')),
      ]);
      return {
        id,
        ended_sessions: [...own.ids, ...kills.flatMap((k) => k.plan.endedSessions)],
        confirmed_ended_sessions: confirmed.flat(),
      };
    },

    async createApiKey(ctx: RequestContext, userId: string, input: { name: string; ttl?: number; secret?: string }) {
      const user = find(userId);
      await deps.covering.requirePrincipal(
        ctx,
        { kind: 'user', id: userId },
        `create an API key for user ${user.name}`,
      );
      const { record, secret } = await insertApiKey({ kind: 'user', id: userId }, input, ctx);
      await userEvent(
        ctx,
        'user.api_key.created',
        { id: userId, name: user.name },
        { api_key_id: record.id, name: record.name, expires_at: record.expires_at ?? null },
      );
      return { ...toApiKeyResponse(record), api_key: secret };
    },

    insertApiKey,

    listApiKeys(userId: string) {
      find(userId);
      return keysOf(userId).map((k) => toApiKeyResponse(k.value));
    },

    async deleteApiKey(ctx: RequestContext, userId: string, keyId: string): Promise<void> {
      const user = find(userId);
      const item = state.get<ApiKeyRecord>(keys.apiKey(keyId));
      if (!item || item.value.principal.id !== userId) throw notFound('API key', keyId);
      await deps.covering.requirePrincipal(ctx, { kind: 'user', id: userId }, `delete an API key of user ${user.name}`);
      await translateConflicts(() =>
        state.remove(item.key, { revision: item.revision, indexKeys: [keys.apiKeyHash(item.value.hash)] }),
      );
      const revoked = await deps.tokens.revokeKeys(deps.tokenIndex.ofApiKey(keyId));
      await userEvent(
        ctx,
        'user.api_key.deleted',
        { id: userId, name: user.name },
        { api_key_id: keyId, revoked_tokens: revoked },
      );
    },
  };
}
