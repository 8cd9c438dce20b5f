// A refused security-key step: audited (auth.mfa.failed, with the reason and never key material),
// then answered 401 with the same reason.
import type { AuditLog } from '../audit/audit-log.js';
import { actorOf, eventContext, type RequestContext } from '../auth/principal.js';
import type { UserRecord } from '../auth/records.js';
import { GatehouseError } from '../lib/errors.js';

export async function mfaFailed(
  audit: AuditLog,
  ctx: RequestContext,
  user: Pick<UserRecord, 'id' | 'name'> | undefined,
  ceremony: 'register' | 'sign-in' | 'passkey',
  reason: string,
): Promise<never> {
  await audit.record({
    type: 'auth.mfa.failed',
    actor: actorOf(ctx),
    ...(user ? { target: { kind: 'user', id: user.id, name: user.name } } : {}),
    success: false,
    ...eventContext(ctx),
    data: { ceremony, reason },
  });
  throw new GatehouseError('invalid_credentials', `the security key was not accepted: ${reason}`);
}
