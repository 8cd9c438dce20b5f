// WebAuthn challenges, kept server-side: random, bound to the ceremony (and person, and pending
// login) they were made for, short-lived, and used once. Taking one deletes it under its revision
// before anything is verified, so a replayed or raced response finds nothing, and a failed attempt
// burns its challenge too.
import type { StateStore } from '../backend/state.js';
import { BackendError } from '../backend/types.js';
import type { Clock } from '../lib/clock.js';
import { randomBytes } from '../lib/random.js';
import { type ChallengePurpose, type ChallengeRecord, mfaKeys } from './records.js';

/** How long a ceremony may take: the browser's own timeout is 60 s; this leaves room for a slow touch. */
export const CHALLENGE_TTL_MS = 2 * 60_000;

/** Why a challenge did not serve: the caller turns it into a refusal and an auth.mfa.failed event. */
export class ChallengeRefused extends Error {}

export function createChallenges(deps: { state: StateStore; clock: Clock }) {
  const { state, clock } = deps;
  return {
    async issue(binding: Omit<ChallengeRecord, 'expires_at'>): Promise<string> {
      const challenge = randomBytes(32).toString('base64url');
      const expiresAt = clock() + CHALLENGE_TTL_MS;
      const record: ChallengeRecord = { ...binding, expires_at: expiresAt };
      await state.insert(mfaKeys.challenge(challenge), record, { expiresAt });
      return challenge;
    },

    /** Takes (deletes) the challenge of a response, if it was made for this ceremony and binding. */
    async take(
      challenge: string,
      purpose: ChallengePurpose,
      binding: { user_id?: string; token_id?: string },
    ): Promise<void> {
      const item = /^[A-Za-z0-9_-]{43}$/.test(challenge)
        ? state.get<ChallengeRecord>(mfaKeys.challenge(challenge))
        : undefined;
      if (!item) throw new ChallengeRefused('unknown or already used challenge');
      try {
        await state.remove(item.key, { revision: item.revision });
      } catch (error) {
        // Another response took it first.
        if (error instanceof BackendError) throw new ChallengeRefused('unknown or already used challenge');
        throw error;
      }
      const r = item.value;
      if (r.purpose !== purpose) throw new ChallengeRefused(`the challenge was made for ${r.purpose}, not ${purpose}`);
      if (r.user_id !== binding.user_id || r.token_id !== binding.token_id)
        throw new ChallengeRefused('the challenge was made for another sign-in');
      if (r.expires_at <= clock()) throw new ChallengeRefused('the challenge expired');
    },
  };
}

export type Challenges = ReturnType<typeof createChallenges>;
