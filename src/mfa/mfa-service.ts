// A person's security keys and passkeys: register (a WebAuthn ceremony), list, rename, remove; an
// administrator who covers the person removes them (recovery). The sign-in side is mfa-sign-in.ts.
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { AuditLog } from '../audit/audit-log.js';
import type { Covering } from '../auth/covering.js';
import { actorOf, eventContext, type RequestContext } from '../auth/principal.js';
import { keys, type UserRecord } from '../auth/records.js';
import { translateConflicts } from '../backend/conflicts.js';
import type { StateStore } from '../backend/state.js';
import { type Clock, isoTime } from '../lib/clock.js';
import { found, notFound } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { CeremonyFailed, challengeOf, registrationOptions, verifyRegistration } from './ceremonies.js';
import { ChallengeRefused, type Challenges } from './challenges.js';
import { mfaFailed } from './failures.js';
import { deviceDeleteOps, type MfaDeviceRecord, mfaKeys } from './records.js';
import type { RelyingParty } from './relying-party.js';

export const toDeviceResponse = (d: MfaDeviceRecord) => ({
  id: d.id,
  name: d.name,
  credential_id: d.credential_id,
  transports: d.transports,
  discoverable: d.discoverable,
  created_at: d.created_at,
  last_used_at: d.last_used_at,
});

export interface MfaDeps {
  state: StateStore;
  audit: AuditLog;
  clock: Clock;
  challenges: Challenges;
  /** From web_public_url, read when a ceremony starts (the default needs the web listener's port). */
  relyingParty: () => RelyingParty;
}

/** A person's devices, oldest first (ids sort by creation time). */
export const devicesOf = (state: Pick<StateStore, 'list'>, userId: string): MfaDeviceRecord[] =>
  state.list<MfaDeviceRecord>(mfaKeys.devicesOf(userId)).map((i) => i.value);

export type MfaService = ReturnType<typeof createMfaService>;

export function createMfaService(deps: MfaDeps & { covering: Pick<Covering, 'requirePrincipal'> }) {
  const { state, audit, clock, challenges } = deps;

  const person = (userId: string): UserRecord => found(state.get<UserRecord>(keys.user(userId))?.value, 'user', userId);
  const target = (u: UserRecord) => ({ kind: 'user' as const, id: u.id, name: u.name });

  function device(userId: string, id: string) {
    const item = state.get<MfaDeviceRecord>(mfaKeys.device(userId, id));
    if (!item) throw notFound('security key', id);
    return item;
  }

  async function removeDevices(ctx: RequestContext, user: UserRecord, list: MfaDeviceRecord[], by: string) {
    if (list.length === 0) return;
    await translateConflicts(() =>
      state.write(
        list.map((d) => ({ key: mfaKeys.device(d.user_id, d.id), is: 'present' as const })),
        list.flatMap(deviceDeleteOps),
      ),
    );
    for (const d of list)
      await audit.record({
        type: 'auth.mfa.removed',
        actor: actorOf(ctx),
        target: target(user),
        ...eventContext(ctx),
        data: { device_id: d.id, name: d.name, credential_id: d.credential_id, by },
      });
  }

  return {
    list(userId: string) {
      person(userId);
      return { devices: devicesOf(state, userId).map(toDeviceResponse) };
    },

    /** Options for navigator.credentials.create(), with a challenge bound to this person. */
    async registrationOptions(userId: string, binding: { token_id?: string } = {}) {
      const user = person(userId);
      const challenge = await challenges.issue({ purpose: 'register', user_id: user.id, ...binding });
      return registrationOptions(deps.relyingParty(), user, challenge, devicesOf(state, user.id));
    },

    /** Verifies a registration response and keeps the new credential (auth.mfa.registered). */
    async register(
      ctx: RequestContext,
      userId: string,
      input: { name: string; response: RegistrationResponseJSON },
      binding: { token_id?: string } = {},
    ) {
      const user = person(userId);
      let verified: Awaited<ReturnType<typeof verifyRegistration>>;
      try {
        const challenge = challengeOf(input.response);
        await challenges.take(challenge, 'register', { user_id: user.id, ...binding });
        verified = await verifyRegistration(deps.relyingParty(), input.response, challenge);
      } catch (error) {
        if (error instanceof ChallengeRefused || error instanceof CeremonyFailed)
          return mfaFailed(audit, ctx, user, binding.token_id ? 'sign-in' : 'register', error.message);
        throw error;
      }
      const now = clock();
      const record: MfaDeviceRecord = {
        id: newId('mfaDevice', now),
        user_id: user.id,
        ...verified,
        name: input.name,
        created_at: isoTime(now),
        last_used_at: null,
      };
      const credentialKey = mfaKeys.credential(record.credential_id);
      await translateConflicts(
        () =>
          state.write(
            [
              { key: keys.user(user.id), is: 'present' },
              { key: credentialKey, is: 'absent' },
            ],
            [
              { type: 'put', key: mfaKeys.device(user.id, record.id), value: JSON.stringify(record) },
              { type: 'put', key: credentialKey, value: JSON.stringify({ ref: mfaKeys.device(user.id, record.id) }) },
            ],
          ),
        {
          [credentialKey]: 'this security key is already registered',
          [keys.user(user.id)]: 'the user no longer exists',
        },
      );
      await audit.record({
        type: 'auth.mfa.registered',
        actor: actorOf(ctx),
        target: target(user),
        ...eventContext(ctx),
        data: {
          device_id: record.id,
          name: record.name,
          credential_id: record.credential_id,
          discoverable: record.discoverable,
        },
      });
      return toDeviceResponse(record);
    },

    async rename(ctx: RequestContext, userId: string, id: string, name: string) {
      const user = person(userId);
      const item = device(userId, id);
      const record = { ...item.value, name };
      await translateConflicts(() => state.replace(item.key, item.revision, record));
      await audit.record({
        type: 'auth.mfa.renamed',
        actor: actorOf(ctx),
        target: target(user),
        ...eventContext(ctx),
        data: { device_id: id, name },
      });
      return toDeviceResponse(record);
    },

    /** The person removes one of their own keys. */
    async removeOwn(ctx: RequestContext, userId: string, id: string): Promise<void> {
      await removeDevices(ctx, person(userId), [device(userId, id).value], 'owner');
    },

    /**
     * An administrator removes a person's keys (one, or all: recovery from a lost key). Removing
     * them lets the person in with the first factor alone, so it needs rights over that person.
     */
    async removeFor(ctx: RequestContext, userId: string, id?: string): Promise<{ removed: number }> {
      const user = person(userId);
      const list = id === undefined ? devicesOf(state, userId) : [device(userId, id).value];
      await deps.covering.requirePrincipal(
        ctx,
        { kind: 'user', id: userId },
        `remove security keys of user ${user.name}`,
      );
      await removeDevices(ctx, user, list, 'administrator');
      return { removed: list.length };
    },

    /**
     * Break-glass (`gatehouse admin reset`, a system context): every key of the person goes, so an
     * operator who lost the key a require_mfa role asks for registers a new one at the console.
     */
    async removeAllForReset(ctx: RequestContext, userId: string): Promise<number> {
      const list = devicesOf(state, userId);
      await removeDevices(ctx, person(userId), list, 'admin-reset');
      return list.length;
    },

    hasDevices: (userId: string): boolean => devicesOf(state, userId).length > 0,
  };
}
