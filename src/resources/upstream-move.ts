// A resource's sealed upstream credentials belong to the address they were given for. Moving the
// address alone would have the proxy log in to the new one with them — a PostgreSQL server there
// asks for a cleartext password and gets it, an API server gets the bearer token — so whoever can
// PATCH the address could collect secrets they were never shown. A move must carry the credentials
// again (the caller then knows them, and nothing stored goes anywhere new). TLS settings (the CA) sit
// inside the same credential objects, which a PATCH replaces whole, so they cannot change alone.

import { keys } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import { GatehouseError } from '../lib/errors.js';
import type { DbSecret } from './db-upstream.js';
import type { KubeSecret } from './kube-upstream.js';

/** The stored secrets a database's or cluster's address change would hand on, as the API names them. */
function heldSecrets(state: Pick<StateStore, 'get'>, kind: string, id: string): string[] {
  if (kind === 'database') {
    const secret = state.get<DbSecret>(keys.dbSecret(id))?.value;
    if (!secret) return [];
    return [
      ...Object.keys(secret.passwords_sealed ?? {}).map((user) => `the password of ${user}`),
      ...(secret.read_only_login?.password_sealed ? [`the password of ${secret.read_only_login.name}`] : []),
      ...(secret.client_key_sealed ? ['the client key'] : []),
    ];
  }
  if (kind === 'kube_cluster') {
    const secret = state.get<KubeSecret>(keys.kubeSecret(id))?.value;
    if (!secret) return [];
    return [...(secret.token_sealed ? ['the token'] : []), ...(secret.client_key_sealed ? ['the client key'] : [])];
  }
  return [];
}

/**
 * Refuses (409) a change of address that does not send the credentials again, when the resource
 * holds any; the message names the field to send.
 */
export function requireCredentialsWithMove(
  state: Pick<StateStore, 'get'>,
  r: { id: string; kind: string; name: string; address?: string },
  patch: { address?: string; db?: unknown; kube?: unknown },
): void {
  if (patch.address === undefined || patch.address === r.address) return;
  const field = r.kind === 'kube_cluster' ? 'kube' : 'db';
  if (patch[field] !== undefined) return;
  const held = heldSecrets(state, r.kind, r.id);
  if (held.length === 0) return;
  const drop = field === 'db' ? ' (or db: {} to drop them)' : '';
  const message = `is required with a new address: the credentials held for ${r.name} (${held.join(', ')}) were given for ${r.address}; send ${field} again with the new address${drop}`;
  throw new GatehouseError('conflict', `/body/${field}: ${message}`, { errors: [{ path: `/body/${field}`, message }] });
}
