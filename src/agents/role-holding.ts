// "Nobody gives an agent more than they hold": who holds a role. A user holds their roles (an admin
// holds every role); an agent holds the roles of its token that its owner (and the user it acts
// for, if any) also hold.
import type { Principal } from '../auth/principal.js';
import { keys, type UserRecord } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';

export const userHolds = (user: Pick<UserRecord, 'roles'> | undefined, role: string): boolean =>
  user !== undefined && (user.roles.includes(role) || user.roles.includes('admin'));

export function principalHolds(state: StateStore, p: Principal, role: string): boolean {
  const own = p.roles.includes(role) || p.roles.includes('admin');
  if (p.kind === 'user') return own;
  const user = (id: string | undefined) => (id ? state.get<UserRecord>(keys.user(id))?.value : undefined);
  if (!own || !userHolds(user(p.owner), role)) return false;
  return p.onBehalfOf === undefined || userHolds(user(p.onBehalfOf.id), role);
}
