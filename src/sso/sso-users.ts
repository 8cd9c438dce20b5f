// The users an identity provider vouches for. The first sign-in creates the user (`auth: <connector>`);
// every sign-in sets its roles to what the provider's claims map to now, and its mapped traits to the
// claims' values, so a group removed at the provider is gone here at the person's next sign-in.
// A name already held by a local user, or by another connector's user, is never taken over.
import type { AuditLog } from '../audit/audit-log.js';
import { keys, type UserRecord } from '../auth/records.js';
import { insertNamed } from '../auth/unique-names.js';
import { translateConflicts } from '../backend/conflicts.js';
import type { StateStore } from '../backend/state.js';
import { type Clock, isoTime } from '../lib/clock.js';
import { newId } from '../lib/ids.js';

export type ProviderUserOutcome =
  | { ok: true; user: UserRecord; created: boolean }
  | { ok: false; reason: 'name_taken' | 'user_suspended' | 'no_role'; detail: string };

export interface ProviderIdentity {
  connector: string;
  name: string;
  roles: string[];
  /** Traits from claims; they replace the same-named traits, others stay as they were. */
  traits: Record<string, string[]>;
  /** The names traits_from_claims sets (a trait whose claim is now absent is emptied). */
  mappedTraits: string[];
}

export function createProviderUsers(deps: { state: StateStore; audit: Pick<AuditLog, 'record'>; clock: Clock }) {
  const { state, clock } = deps;
  const actor = (connector: string) => ({ kind: 'system' as const, name: `sso:${connector}` });
  const byName = (name: string) => {
    const ref = state.get<{ ref: string }>(keys.userName(name));
    return ref ? state.get<UserRecord>(ref.value.ref) : undefined;
  };

  async function create(who: ProviderIdentity, ctx: { remote_addr: string; request_id: string }) {
    const now = isoTime(clock());
    const user: UserRecord = {
      id: newId('user', clock()),
      name: who.name,
      roles: who.roles,
      traits: who.traits,
      status: 'active',
      auth: who.connector,
      created_at: now,
      updated_at: now,
    };
    const index = { exact: keys.userName(user.name), folded: keys.userFoldedName(user.name) };
    await insertNamed(state, 'a user', keys.user(user.id), user, index);
    await deps.audit.record({
      type: 'user.created',
      actor: actor(who.connector),
      target: { kind: 'user', id: user.id, name: user.name },
      ...ctx,
      data: { roles: user.roles, auth: who.connector },
    });
    return user;
  }

  return {
    /**
     * Creates or updates the provider's user. With no roles, an existing user is left with none (its
     * rights end now) and nobody is created: the caller refuses the sign-in.
     */
    async upsert(
      who: ProviderIdentity,
      ctx: { remote_addr: string; request_id: string },
    ): Promise<ProviderUserOutcome> {
      const item = byName(who.name);
      if (!item) {
        if (who.roles.length === 0) return { ok: false, reason: 'no_role', detail: 'no role: nobody created' };
        return { ok: true, user: await create(who, ctx), created: true };
      }
      const before = item.value;
      if (before.auth !== who.connector) {
        return {
          ok: false,
          reason: 'name_taken',
          detail: `the user name ${JSON.stringify(who.name)} belongs to ${before.auth ? `connector ${before.auth}'s user` : 'a local user'}; a provider cannot take it over`,
        };
      }
      if (before.status !== 'active')
        return { ok: false, reason: 'user_suspended', detail: `user ${who.name} is suspended` };
      const traits = { ...before.traits };
      for (const t of who.mappedTraits) delete traits[t];
      Object.assign(traits, who.traits);
      const after: UserRecord = { ...before, roles: who.roles, traits };
      if (JSON.stringify([after.roles, after.traits]) === JSON.stringify([before.roles, before.traits]))
        return { ok: true, user: before, created: false };
      const user = { ...after, updated_at: isoTime(clock()) };
      await translateConflicts(() => state.replace(item.key, item.revision, user));
      await deps.audit.record({
        type: 'user.updated',
        actor: actor(who.connector),
        target: { kind: 'user', id: user.id, name: user.name },
        ...ctx,
        data: { changed: ['roles', 'traits'], roles: user.roles, previous_roles: before.roles },
      });
      return { ok: true, user, created: false };
    },
  };
}
