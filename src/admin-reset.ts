// Break-glass: give a named user back admin access when no admin can log in any more. Creates the
// user with the `admin` role, or makes an existing one active and an admin, removes its security keys
// (whoever needs a reset may have lost the key a require_mfa role asks for), then gives it a new API
// key and records `system.admin_reset`. The caller shows the key once; it is stored only as a hash.
import { actorOf, eventContext, type RequestContext } from './auth/principal.js';
import type { Services } from './services.js';

const SYSTEM: RequestContext = { remoteAddr: 'local', requestId: 'admin-reset', system: 'admin-reset' };

export interface AdminResetResult {
  user: { id: string; name: string };
  /** created: there was no user by that name; re-enabled: it exists and is now active and an admin. */
  action: 'created' | 're-enabled';
  apiKeyId: string;
  /** The new API key's secret: show it once, never log or store it. */
  apiKey: string;
  /** Security keys and passkeys of the user that were removed. */
  removedMfaDevices: number;
  /** A role of the user requires a security key: the API key gets no tokens from the API, only at the console. */
  requiresMfa: boolean;
}

export async function resetAdmin(
  services: Pick<Services, 'users' | 'roles' | 'audit' | 'mfa' | 'tokens'>,
  opts: { userName: string },
): Promise<AdminResetResult> {
  const { users, audit } = services;
  // Cheap when they exist (createServices ensures them too): the `admin` role must be there to assign.
  await services.roles.ensureBuiltins();
  const existing = users.findByName(opts.userName);
  const user = existing ?? (await users.create(SYSTEM, { name: opts.userName, roles: ['admin'] }));
  const before = existing ? await users.reinstateAdmin(existing.id) : undefined;
  const removedMfaDevices = existing ? await services.mfa.removeAllForReset(SYSTEM, user.id) : 0;
  const key = await users.createApiKey(SYSTEM, user.id, { name: 'admin-reset' });
  const action = before ? 're-enabled' : 'created';
  await audit.record({
    type: 'system.admin_reset',
    actor: actorOf(SYSTEM),
    target: { kind: 'user', id: user.id, name: user.name },
    ...eventContext(SYSTEM),
    data: {
      action,
      api_key_id: key.id,
      removed_mfa_devices: removedMfaDevices,
      ...(before ? { previous_status: before.status, previous_roles: before.roles } : {}),
    },
  });
  return {
    user: { id: user.id, name: user.name },
    action,
    apiKeyId: key.id,
    apiKey: key.api_key,
    removedMfaDevices,
    requiresMfa: services.tokens.requiresMfa({ kind: 'user', id: user.id }),
  };
}
