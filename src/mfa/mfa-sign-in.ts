// The console sign-in's second step and the passkey sign-in. The first factor (an API key, SSO)
// left a pending login (auth/token-service.ts: its tokens open nothing else); here the person
// answers a challenge bound to that login with a registered key — or, holding none, registers one
// (they cannot skip it). A passkey alone signs in only where the person's roles allow it
// (mfa_passwordless) and the authenticator verified the user.
import { createHash } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { throttledError } from '../auth/login-failure.js';
import { type LoginThrottle, throttleKeys } from '../auth/login-throttle.js';
import { eventContext, type RequestContext } from '../auth/principal.js';
import { keys, type UserRecord } from '../auth/records.js';
import { BackendError } from '../backend/types.js';
import { isoTime } from '../lib/clock.js';
import { GatehouseError } from '../lib/errors.js';
import { authenticationOptions, CeremonyFailed, challengeOf, verifyAssertion } from './ceremonies.js';
import { ChallengeRefused } from './challenges.js';
import { mfaFailed } from './failures.js';
import { devicesOf, type MfaDeps, type MfaService } from './mfa-service.js';
import { type MfaDeviceRecord, mfaKeys } from './records.js';

/** A login waiting for its second factor: whose, and its access token's id. */
export interface PendingLogin {
  userId: string;
  tokenId: string;
}

export type SecondStep =
  | { mode: 'assert'; options: Awaited<ReturnType<typeof authenticationOptions>> }
  | { mode: 'register'; options: Awaited<ReturnType<MfaService['registrationOptions']>> };

export type MfaSignIn = ReturnType<typeof createMfaSignIn>;

export function createMfaSignIn(
  deps: MfaDeps & {
    devices: Pick<MfaService, 'registrationOptions' | 'register'>;
    /** Whether the person's roles let a passkey alone sign in (rbac combineSignInOptions). */
    passwordlessAllowed: (userId: string) => boolean;
    /** The login throttle every secret shares: failed assertions count against the source and the key. */
    throttle?: LoginThrottle;
  },
) {
  const { state, audit, clock, challenges } = deps;

  /**
   * A failed assertion, counted like a failed API key: against the caller's address and what it
   * answered for (the pending login's person, or the passkey's credential id). Past the limit it is
   * answered 429 instead of 401; a right assertion never meets the counters.
   */
  async function refused(
    ctx: RequestContext,
    user: UserRecord | undefined,
    ceremony: 'sign-in' | 'passkey',
    reason: string,
    counted: string,
  ): Promise<never> {
    if (deps.throttle) {
      const counters = throttleKeys(ctx.remoteAddr, createHash('sha256').update(counted).digest('base64url'));
      const throttled = await throttledError({ audit, throttle: deps.throttle }, ctx, counters, { ceremony });
      if (throttled) throw throttled;
      await deps.throttle.recordFailure(counters);
    }
    return mfaFailed(audit, ctx, user, ceremony, reason);
  }

  const person = (userId: string): UserRecord => {
    const user = state.get<UserRecord>(keys.user(userId))?.value;
    if (user?.status !== 'active') throw new GatehouseError('principal_disabled', 'the user is not active');
    return user;
  };

  /** Runs a ceremony step; a refused challenge or response is audited and answered 401. */
  async function guarded<T>(
    ctx: RequestContext,
    user: UserRecord | undefined,
    ceremony: 'sign-in' | 'passkey',
    counted: string,
    step: () => Promise<T>,
  ) {
    try {
      return await step();
    } catch (error) {
      if (error instanceof ChallengeRefused || error instanceof CeremonyFailed)
        return refused(ctx, user, ceremony, error.message, counted);
      throw error;
    }
  }

  /** Counter and last use, written under the device's revision: two racing uses of one key, one wins. */
  async function markUsed(item: { key: string; revision: number; value: MfaDeviceRecord }, counter: number) {
    const record: MfaDeviceRecord = { ...item.value, counter, last_used_at: isoTime(clock()) };
    try {
      await state.replace(item.key, item.revision, record);
    } catch (error) {
      if (error instanceof BackendError) throw new CeremonyFailed('the key was used twice at once');
      throw error;
    }
  }

  async function used(ctx: RequestContext, user: UserRecord, device: MfaDeviceRecord, via: string) {
    await audit.record({
      type: 'auth.mfa.used',
      actor: { kind: 'user', id: user.id, name: user.name },
      ...eventContext(ctx),
      data: { device_id: device.id, name: device.name, via },
    });
  }

  return {
    /** What the second step asks: an assertion by a registered key, else a registration. */
    async options(pending: PendingLogin): Promise<SecondStep> {
      const user = person(pending.userId);
      const devices = devicesOf(state, user.id);
      if (devices.length === 0)
        return {
          mode: 'register',
          options: await deps.devices.registrationOptions(user.id, { token_id: pending.tokenId }),
        };
      const challenge = await challenges.issue({ purpose: 'sign-in', user_id: user.id, token_id: pending.tokenId });
      return { mode: 'assert', options: await authenticationOptions(deps.relyingParty(), challenge, devices) };
    },

    /** Verifies the second step; the caller then completes the login. */
    async verify(
      ctx: RequestContext,
      pending: PendingLogin,
      input: { response: AuthenticationResponseJSON | RegistrationResponseJSON; name?: string },
    ): Promise<void> {
      const user = person(pending.userId);
      if ('attestationObject' in input.response.response) {
        // Only a person without keys registers here: one with keys proves they hold one.
        if (devicesOf(state, user.id).length > 0)
          return refused(ctx, user, 'sign-in', 'you have a security key: sign in with it', `mfa-user:${user.id}`);
        const name = input.name ?? 'Security key';
        const device = await deps.devices.register(
          ctx,
          user.id,
          { name, response: input.response as RegistrationResponseJSON },
          { token_id: pending.tokenId },
        );
        await used(ctx, user, { ...device, user_id: user.id } as MfaDeviceRecord, 'registered at sign-in');
        return;
      }
      const response = input.response as AuthenticationResponseJSON;
      await guarded(ctx, user, 'sign-in', `mfa-user:${user.id}`, async () => {
        const challenge = challengeOf(response);
        await challenges.take(challenge, 'sign-in', { user_id: user.id, token_id: pending.tokenId });
        const item = devicesOf(state, user.id).find((d) => d.credential_id === response.id);
        if (!item) throw new CeremonyFailed('this key is not one of yours');
        const stored = state.get<MfaDeviceRecord>(mfaKeys.device(user.id, item.id));
        if (!stored) throw new CeremonyFailed('this key was just removed');
        const counter = await verifyAssertion(deps.relyingParty(), response, challenge, stored.value, {
          requireUserVerification: false,
        });
        await markUsed(stored, counter);
        await used(ctx, user, stored.value, 'second factor');
      });
    },

    /** Options for a passkey sign-in: no person known yet, so no credentials listed. */
    async passkeyOptions() {
      const challenge = await challenges.issue({ purpose: 'passkey' });
      return authenticationOptions(deps.relyingParty(), challenge, []);
    },

    /** A passkey alone: answers whose it is, once its signature, user verification and roles allow. */
    async passkey(ctx: RequestContext, response: AuthenticationResponseJSON): Promise<{ userId: string }> {
      const counted = `passkey:${String(response.id).slice(0, 1024)}`;
      const challenge = await guarded(ctx, undefined, 'passkey', counted, async () => {
        const c = challengeOf(response);
        await challenges.take(c, 'passkey', {});
        return c;
      });
      const ref = state.get<{ ref: string }>(mfaKeys.credential(response.id))?.value.ref;
      const stored = ref ? state.get<MfaDeviceRecord>(ref) : undefined;
      if (!stored) return refused(ctx, undefined, 'passkey', 'no registered passkey has this credential id', counted);
      const user = state.get<UserRecord>(keys.user(stored.value.user_id))?.value;
      if (user?.status !== 'active')
        return refused(ctx, undefined, 'passkey', 'the passkey’s owner is not active', counted);
      await guarded(ctx, user, 'passkey', counted, async () => {
        // A discoverable credential names its owner (the user handle): it must be this key's owner.
        const handle = response.response.userHandle;
        if (!handle || Buffer.from(handle, 'base64url').toString('utf8') !== user.id)
          throw new CeremonyFailed('the passkey does not name its owner (not a discoverable credential)');
        const counter = await verifyAssertion(deps.relyingParty(), response, challenge, stored.value, {
          requireUserVerification: true,
        });
        await markUsed(stored, counter);
        if (!deps.passwordlessAllowed(user.id))
          throw new CeremonyFailed('your roles do not allow signing in with a passkey alone (mfa_passwordless)');
      });
      await used(ctx, user, stored.value, 'passkey alone');
      return { userId: user.id };
    },
  };
}
