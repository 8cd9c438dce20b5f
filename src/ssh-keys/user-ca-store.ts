// Gatehouse's SSH user CA: one ed25519 key for the whole cluster, sealed in the state backend so that
// every instance signs with the same CA (the targets trust one line: GET /v1/auth/ssh-ca).
import { awaitCached, insertOrTheirs, type StateStore } from '../backend/state.js';
import { type Clock, isoTime } from '../lib/clock.js';
import type { SecretBox } from '../lib/secret-box.js';
import { createUserCa, generateUserCaKey, publicUserCa, type UserCa } from './user-ca.js';

/** Which CA: the user CA targets trust, or the client CA whose certificates only the SSH proxy accepts. */
export interface CaSlot {
  key: string;
  context: string;
  comment: string;
}
export const USER_CA: CaSlot = { key: 'secrets/ssh-user-ca', context: 'ssh-user-ca', comment: 'gatehouse-user-ca' };
/**
 * A CA of its own for `gatehouse login`'s certificates: were they signed by the user CA, a target that
 * trusts it (TrustedUserCAKeys) would let their holders in directly, past the proxy, its checks and
 * its recording. No target is ever told to trust this one.
 */
export const CLIENT_CA: CaSlot = {
  key: 'secrets/ssh-client-ca',
  context: 'ssh-client-ca',
  comment: 'gatehouse-client-ca',
};

interface UserCaRecord {
  public_key: string;
  private_sealed: string;
  created_at: string;
}

export async function ensureUserCa(
  deps: { state: StateStore; box: SecretBox; clock: Clock },
  slot: CaSlot = USER_CA,
): Promise<UserCa> {
  const { key: KEY, context: CONTEXT } = slot;
  let record = deps.state.get<UserCaRecord>(KEY)?.value;
  if (!record) {
    const privateKey = generateUserCaKey(slot.comment);
    const ca = createUserCa(privateKey);
    const fresh: UserCaRecord = {
      public_key: ca.publicKey,
      private_sealed: deps.box.seal(privateKey, CONTEXT),
      created_at: isoTime(deps.clock()),
    };
    // Another instance may have created it first: then theirs is the CA.
    record = await insertOrTheirs(deps.state, KEY, fresh);
    if (!record) throw new Error('the user CA exists in the backend but did not reach the cache');
  }
  return createUserCa(deps.box.open(record.private_sealed, CONTEXT));
}

/**
 * The CA's public half, as a proxy without the seal key reads it (its record reaches proxies without
 * the sealed private key: cluster/proxy-reads.ts); waits for the auth tier to have made it.
 */
export async function publicCa(state: StateStore, slot: CaSlot = USER_CA): Promise<UserCa> {
  const record = (await awaitCached<Pick<UserCaRecord, 'public_key'>>(state, slot.key, 30_000))?.value;
  if (!record) throw new Error(`the cluster has no ${slot.comment} yet: start an auth instance first (it creates it)`);
  return publicUserCa(record.public_key);
}
