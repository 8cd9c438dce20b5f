// A new API key as backend operations (the record and its hash index), so that it can be written in
// one atomic write with what it belongs to (an agent credential).
import type { Condition, Operation } from '../backend/types.js';
import { isoTime } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { generateSecret, hashSecret, secretHint } from '../lib/secrets.js';
import { type ApiKeyRecord, keys, type PrincipalRef } from './records.js';
import { TOMBSTONE_MS } from './token-revocation.js';

export function newApiKeyWrite(
  principal: PrincipalRef,
  input: { name: string; now: number; expiresAt?: number; roles?: string[]; credentialId?: string },
): { record: ApiKeyRecord; secret: string; conditions: Condition[]; operations: Operation[] } {
  const secret = generateSecret('apiKey');
  const record: ApiKeyRecord = {
    id: newId('apiKey', input.now),
    hash: hashSecret(secret),
    hint: secretHint(secret),
    name: input.name,
    principal,
    created_at: isoTime(input.now),
    ...(input.expiresAt !== undefined ? { expires_at: isoTime(input.expiresAt) } : {}),
    ...(input.roles ? { roles: input.roles } : {}),
    ...(input.credentialId ? { credential_id: input.credentialId } : {}),
  };
  // An expiring key is swept a day after it expired (until then it answers "expired", not "unknown").
  const ttl = input.expiresAt !== undefined ? { expiresAt: input.expiresAt + TOMBSTONE_MS } : {};
  const operations: Operation[] = [
    { type: 'put', key: keys.apiKey(record.id), value: JSON.stringify(record), ...ttl },
    {
      type: 'put',
      key: keys.apiKeyHash(record.hash),
      value: JSON.stringify({ ref: keys.apiKey(record.id) }),
      ...ttl,
    },
  ];
  return { record, secret, conditions: [{ key: keys.apiKeyHash(record.hash), is: 'absent' }], operations };
}
