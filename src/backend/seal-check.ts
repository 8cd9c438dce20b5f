// Every instance must seal with the same key (lib/secret-box.ts), or secrets one sealed are garbage
// to another: checked at start against a marker the first instance wrote, not at the first failed open.
import type { SecretBox } from '../lib/secret-box.js';
import { awaitCached, type StateStore } from './state.js';

const SEAL_CHECK_KEY = 'secrets/seal-check';
const SEAL_CHECK_TEXT = 'gatehouse seal check';

/** Refuses to start (SealKeyMismatch) when this instance's key does not open the cluster's marker. */
export async function verifySealKey(
  state: Pick<StateStore, 'get' | 'insert'>,
  box: SecretBox,
  keyName: string,
): Promise<void> {
  let marker = state.get<{ sealed: string }>(SEAL_CHECK_KEY)?.value;
  if (!marker) {
    try {
      await state.insert(SEAL_CHECK_KEY, { sealed: box.seal(SEAL_CHECK_TEXT, SEAL_CHECK_KEY) });
      return;
    } catch {
      marker = (await awaitCached<{ sealed: string }>(state, SEAL_CHECK_KEY))?.value; // another instance won
    }
  }
  let opened: string | undefined;
  try {
    opened = marker ? box.open(marker.sealed, SEAL_CHECK_KEY) : undefined;
  } catch {
    opened = undefined;
  }
  if (opened !== SEAL_CHECK_TEXT) {
    throw new SealKeyMismatch(
      `${keyName} is not the key this cluster's secrets are sealed with; give every instance the same key file (GATEHOUSE_SEAL_KEY_FILE)`,
    );
  }
}

export class SealKeyMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealKeyMismatch';
  }
}
