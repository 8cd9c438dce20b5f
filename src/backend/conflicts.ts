// Backend condition failures become domain errors here, in one place: a unique-name index key
// that already exists is a 409 naming the field; a stale revision is a 409 asking to retry.

import { conflict, GatehouseError } from '../lib/errors.js';
import { BackendError } from './types.js';

export async function translateConflicts<T>(write: () => Promise<T>, names: Record<string, string> = {}): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof BackendError && error.reason === 'too_large') {
      throw new GatehouseError('payload_too_large', 'the object is larger than the state store accepts');
    }
    if (error instanceof BackendError) {
      const described = names[error.key];
      throw conflict(described ?? 'the object changed while this request was applied; read it again and retry');
    }
    throw error;
  }
}

/** A write guarded by a revision, where losing the race means something to the caller: it hears `lost()`. */
export async function unlessRaceLost<T>(write: () => Promise<T>, lost: () => GatehouseError): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof BackendError) throw lost();
    throw error;
  }
}
