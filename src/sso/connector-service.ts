// Single sign-on connectors: which OpenID Providers people may sign in through, and which roles their
// claims give. Creating or changing one is granting (its claims_to_roles hand out roles), so the
// caller must cover every role it can give, as it is and as it becomes. The client secret is sealed
// and never answered.
import type { AuditLog } from '../audit/audit-log.js';
import type { EventType } from '../audit/catalogue.js';
import type { Covering } from '../auth/covering.js';
import type { PolicyResolver } from '../auth/policy-resolver.js';
import { unlessChanged } from '../auth/preconditions.js';
import { actorOf, eventContext, type RequestContext } from '../auth/principal.js';
import { prefixes, type TokenRecord, type UserRecord } from '../auth/records.js';
import type { TokenIndex } from '../auth/token-index.js';
import type { TokenService } from '../auth/token-service.js';
import { heldFoldedKey, insertNamed, nameConflicts, renameIndexKeys } from '../auth/unique-names.js';
import { translateConflicts } from '../backend/conflicts.js';
import type { StateStore } from '../backend/state.js';
import { type Clock, isoTime } from '../lib/clock.js';
import { found, invalidField } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { SecretBox } from '../lib/secret-box.js';
import { SUPERUSER_ROLE } from '../rbac/coverage.js';
import type { RoleSpec } from '../rbac/types.js';
import { isRoleTemplate } from './claims.js';
import { checkIssuer } from './issuer-policy.js';
import { type ClaimMapping, type ConnectorRecord, ssoKeys } from './records.js';

export interface ConnectorInput {
  kind: 'oidc';
  name: string;
  display_name: string;
  issuer: string;
  client_id: string;
  /** Required on create; on replace, absent keeps the sealed one. */
  client_secret?: string;
  scopes?: string[];
  claims_to_roles: ClaimMapping[];
  traits_from_claims?: Record<string, string>;
  username_claim?: string;
  enabled?: boolean;
  max_session_ttl?: number;
}

export const DEFAULT_SCOPES = ['openid', 'profile', 'email'];
export const DEFAULT_MAX_SESSION_TTL = 12 * 3600;
/** Where every connector's provider sends people back: register it there. */
export const CALLBACK_PATH = '/webapi/sso/callback';

export const toConnectorResponse = (c: ConnectorRecord, publicUrl: string) => ({
  id: c.id,
  kind: c.kind,
  name: c.name,
  display_name: c.display_name,
  issuer: c.issuer,
  client_id: c.client_id,
  scopes: c.scopes,
  claims_to_roles: c.claims_to_roles,
  traits_from_claims: c.traits_from_claims,
  username_claim: c.username_claim,
  enabled: c.enabled,
  max_session_ttl: c.max_session_ttl,
  redirect_uri: new URL(CALLBACK_PATH, publicUrl).href,
  created_at: c.created_at,
  updated_at: c.updated_at,
});

export type ConnectorService = ReturnType<typeof createConnectorService>;

export function createConnectorService(deps: {
  state: StateStore;
  audit: Pick<AuditLog, 'record'>;
  clock: Clock;
  box: SecretBox;
  covering: Pick<Covering, 'require'>;
  policies: Pick<PolicyResolver, 'roleByName'>;
  tokens: Pick<TokenService, 'revokeKeys'>;
  tokenIndex: Pick<TokenIndex, 'ofPrincipal'>;
}) {
  const { state, audit, clock } = deps;

  /**
   * Ends every login the connector made (tokens carrying its name, pending ones included) when it is
   * turned off or deleted: its users' API keys, if an administrator gave them any, are not its logins
   * and go on. Answers how many tokens were revoked.
   */
  async function endLogins(c: ConnectorRecord): Promise<number> {
    const tokenKeys = state
      .list<UserRecord>(prefixes.users)
      .filter((u) => u.value.auth === c.name)
      .flatMap((u) => deps.tokenIndex.ofPrincipal(u.value.id))
      .filter((k) => state.get<TokenRecord>(k)?.value.origin?.connector === c.name);
    return deps.tokens.revokeKeys(tokenKeys, `single sign-on through ${c.name} was turned off`);
  }

  /** A connector by id, or by name (the URLs people sign in through use the name). */
  function resolve(idOrName: string) {
    if (idOrName.startsWith('conn_')) {
      const byId = state.get<ConnectorRecord>(ssoKeys.connector(idOrName));
      if (byId) return byId;
    }
    const ref = state.get<{ ref: string }>(ssoKeys.connectorName(idOrName));
    const byName = ref ? state.get<ConnectorRecord>(ref.value.ref) : undefined;
    return found(byName, 'connector', idOrName);
  }

  /** Every role the mappings can give, as role specs; a template can name any role, so it is admin's. */
  function grantOf(mappings: readonly ClaimMapping[]): RoleSpec[] {
    const names = new Set<string>();
    mappings.forEach((m, i) => {
      m.roles.forEach((role, j) => {
        if (isRoleTemplate(role)) names.add(SUPERUSER_ROLE);
        else if (!deps.policies.roleByName(role))
          throw invalidField(`/body/claims_to_roles/${i}/roles/${j}`, `role ${JSON.stringify(role)} does not exist`);
        else names.add(role);
      });
    });
    return [...names].map((n) => deps.policies.roleByName(n)).filter((r): r is RoleSpec => r !== undefined);
  }

  /** Refuses (403, access.denied) unless the caller covers every role the mappings can give. */
  async function requireCovers(ctx: RequestContext, mappings: readonly ClaimMapping[], name: string, id?: string) {
    const roles = grantOf(mappings);
    const names = roles.map((r) => r.name);
    await deps.covering.require(
      ctx,
      { roles },
      { kind: 'connector', name, ...(id ? { id } : {}) },
      `let connector ${name} give roles [${names.join(', ')}]${mappings.some((m) => m.roles.some(isRoleTemplate)) ? ' (a {{…}} template can name any role, which only an admin covers)' : ''}`,
    );
  }

  function checked(input: ConnectorInput): URL {
    const verdict = checkIssuer(input.issuer);
    if (!verdict.ok) throw invalidField('/body/issuer', `the issuer ${verdict.reason}`);
    return verdict.url;
  }

  const normalizedIssuer = (url: URL) => url.href.replace(/\/$/, '');

  function record(id: string, input: ConnectorInput, sealed: string, createdAt: string, now: number): ConnectorRecord {
    return {
      id,
      kind: 'oidc',
      name: input.name,
      display_name: input.display_name,
      issuer: normalizedIssuer(checked(input)),
      client_id: input.client_id,
      client_secret: sealed,
      scopes: [...new Set(['openid', ...(input.scopes ?? DEFAULT_SCOPES)])],
      claims_to_roles: input.claims_to_roles,
      traits_from_claims: input.traits_from_claims ?? {},
      username_claim: input.username_claim ?? 'preferred_username',
      enabled: input.enabled ?? true,
      max_session_ttl: input.max_session_ttl ?? DEFAULT_MAX_SESSION_TTL,
      created_at: createdAt,
      updated_at: isoTime(now),
    };
  }

  const event = (ctx: RequestContext, type: EventType, c: ConnectorRecord, data: Record<string, unknown> = {}) =>
    audit.record({
      type,
      actor: actorOf(ctx),
      target: { kind: 'connector', id: c.id, name: c.name },
      ...eventContext(ctx),
      data: {
        issuer: c.issuer,
        enabled: c.enabled,
        roles: [...new Set(c.claims_to_roles.flatMap((m) => m.roles))],
        ...data,
      },
    });

  return {
    list: (): ConnectorRecord[] => state.list<ConnectorRecord>(ssoKeys.connectors).map((i) => i.value),
    get: (idOrName: string): ConnectorRecord => resolve(idOrName).value,
    /** The stored connector with its revision (its ETag). */
    getItem: (idOrName: string) => resolve(idOrName),
    /** The client secret, opened for the token request (never for an answer). */
    secretOf: (c: ConnectorRecord): string => deps.box.open(c.client_secret, c.id),

    async create(ctx: RequestContext, input: ConnectorInput): Promise<ConnectorRecord> {
      checked(input);
      if (input.client_secret === undefined) throw invalidField('/body/client_secret', 'is required');
      await requireCovers(ctx, input.claims_to_roles, input.name);
      const now = clock();
      const id = newId('connector', now);
      const connector = record(id, input, deps.box.seal(input.client_secret, id), isoTime(now), now);
      const index = { exact: ssoKeys.connectorName(input.name), folded: ssoKeys.connectorFoldedName(input.name) };
      await insertNamed(state, 'a connector', ssoKeys.connector(id), connector, index);
      await event(ctx, 'auth.connector.created', connector);
      return connector;
    },

    /** Replaces a connector; the caller must cover what it gives now and what it would give. */
    async replace(ctx: RequestContext, idOrName: string, input: ConnectorInput): Promise<ConnectorRecord> {
      const item = resolve(idOrName);
      unlessChanged(ctx, item, `connector ${item.value.name}`);
      const before = item.value;
      checked(input);
      await requireCovers(ctx, before.claims_to_roles, before.name, before.id);
      await requireCovers(ctx, input.claims_to_roles, input.name, before.id);
      const sealed =
        input.client_secret === undefined ? before.client_secret : deps.box.seal(input.client_secret, before.id);
      const after = record(before.id, input, sealed, before.created_at, clock());
      const indexOf = (name: string) => ({
        exact: ssoKeys.connectorName(name),
        folded: ssoKeys.connectorFoldedName(name),
      });
      const index = indexOf(after.name);
      await translateConflicts(
        () =>
          state.replace(item.key, item.revision, after, renameIndexKeys(state, item.key, indexOf(before.name), index)),
        nameConflicts(state, 'a connector', after.name, index),
      );
      const ended = before.enabled && !after.enabled ? await endLogins(before) : 0;
      await event(ctx, 'auth.connector.updated', after, {
        secret_changed: input.client_secret !== undefined,
        ...(ended > 0 ? { revoked_tokens: ended } : {}),
      });
      return after;
    },

    async remove(ctx: RequestContext, idOrName: string): Promise<void> {
      const item = resolve(idOrName);
      unlessChanged(ctx, item, `connector ${item.value.name}`);
      const c = item.value;
      await requireCovers(ctx, c.claims_to_roles, c.name, c.id);
      await translateConflicts(() =>
        state.remove(item.key, {
          revision: item.revision,
          indexKeys: [
            ssoKeys.connectorName(c.name),
            ...heldFoldedKey(state, ssoKeys.connectorFoldedName(c.name), item.key),
          ],
        }),
      );
      const ended = await endLogins(c);
      await event(ctx, 'auth.connector.deleted', c, ended > 0 ? { revoked_tokens: ended } : {});
    },
  };
}
