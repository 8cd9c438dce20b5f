// Break-glass: give a named user back admin access when no admin can log in any more. Creates the
// user with the `admin` role, or makes an existing one active and an admin, then gives it a new API
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
}

export async function resetAdmin(
  services: Pick<Services, 'users' | 'roles' | 'audit'>,
  opts: { userName: string },
): Promise<AdminResetResult> {
  const { users, audit } = services;
  // Cheap when they exist (createServices ensures them too): the `admin` role must be there to assign.
  await services.roles.ensureBuiltins();
  const existing = users.findByName(opts.userName);
  const user = existing ?? (await users.create(SYSTEM, { name: opts.userName, roles: ['admin'] }));
  const before = existing ? await users.reinstateAdmin(existing.id) : undefined;
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
      ...(before ? { previous_status: before.status, previous_roles: before.roles } : {}),
    },
  });
  return { user: { id: user.id, name: user.name }, action, apiKeyId: key.id, apiKey: key.api_key };
}
