// Bounds on what one API key, or one login, keeps in the token store. Every login stores two token
// records and every refresh two more, each kept until an hour after it expires (a day once revoked) so
// that its holder hears why it stopped working: ~1 KB of memory per login on every instance. Unbounded, one valid key
// logging in (or refreshing) in a loop — a misbehaving agent, or whoever stole the key — grows every
// auth instance by ~1.9 GB a day at 100 logins/s. As GitHub does with OAuth tokens (10 per user, app
// and scope), the least recently used login goes when a key has too many, and a login keeps only its
// last few rotations. Ended tokens are deleted, not revoked: a revocation is a record kept for a day.
import type { Operation } from '../backend/types.js';
import type { TokenIndex } from './token-index.js';

/** Tokens one login keeps: ten rotations' access and refresh tokens (reuse of an older one is no longer detected). */
export const MAX_TOKENS_PER_LOGIN = 20;

/**
 * Logins one login may end. A key far over its bound (the bound lowered, or logins in flight) comes
 * down by up to three per login, and a login's write stays within one etcd transaction (128
 * operations: 4 × 20 deletions and the login's own).
 */
export const MAX_ENDED_PER_LOGIN = 4;

const deleteOf = (key: string): Operation => ({ type: 'delete', key });

/**
 * Admits a new login (`family`) of the key, ending its least recently used logins so that it holds at
 * most `max`: their tokens' deletions, to be written with the new login's tokens; `undo` if that fails.
 */
export function admitLogin(
  index: Pick<TokenIndex, 'admitLogin'>,
  apiKeyId: string,
  family: string,
  max: number,
): { ended: number; ops: Operation[]; undo(): void } {
  const { ended, tokens, undo } = index.admitLogin(apiKeyId, family, max, MAX_ENDED_PER_LOGIN);
  return { ended: ended.length, ops: tokens.map(deleteOf), undo };
}

/**
 * Drops a login's oldest tokens, so that with `adding` new ones it holds at most
 * MAX_TOKENS_PER_LOGIN; never `keep` (the refresh token being rotated, written in the same batch).
 */
export function trimLogin(
  index: Pick<TokenIndex, 'familyByAge'>,
  family: string,
  adding: number,
  keep: string,
): Operation[] {
  const tokens = index.familyByAge(family).filter(([key]) => key !== keep);
  const over = tokens.length + 1 + adding - MAX_TOKENS_PER_LOGIN;
  return over > 0 ? tokens.slice(0, over).map(([key]) => deleteOf(key)) : [];
}
