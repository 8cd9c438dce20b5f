// What the pickers offer: role names and user names from the API (for those who may list them),
// and the fixed vocabularies of a role. A person picks by name; ids stay out of sight.
import { useQuery } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import { useCan } from '../session';

export const VERBS = ['list', 'read', 'create', 'update', 'delete', '*'] as const;
export const API_RESOURCES = [
  'users',
  'roles',
  'resources',
  'agents',
  'sessions',
  'recordings',
  'events',
  'webhooks',
  'tokens',
  'cluster',
  'connectors',
  '*',
] as const;
export const RESOURCE_KINDS = ['server', 'database', 'app', 'kube_cluster', '*'] as const;
/** Logins are open (POSIX names): offered are the trait template and common accounts, not a limit. */
export const LOGIN_SUGGESTIONS = ['{{traits.logins}}', 'root', 'ubuntu', 'admin'] as const;

export function useRoleNames(): string[] {
  const may = useCan('roles', 'list');
  const query = useQuery({
    queryKey: ['role-names'],
    queryFn: () => ok(api.GET('/v1/roles', { params: { query: { per_page: 100 } } })),
    enabled: may,
  });
  return query.data?.roles.map((r) => r.name) ?? [];
}

/** The first 100 users' names, offered as the person types (the browser filters them). */
export function useUserNames(): string[] {
  const may = useCan('users', 'list');
  const query = useQuery({
    queryKey: ['user-names'],
    queryFn: () => ok(api.GET('/v1/users', { params: { query: { per_page: 100 } } })),
    enabled: may,
  });
  return query.data?.users.map((u) => u.name) ?? [];
}

/** A user typed by name (or id) to its id: users are addressable by name (GET /v1/users/{name}). */
export async function userIdOf(nameOrId: string): Promise<string> {
  const user = await ok(api.GET('/v1/users/{id}', { params: { path: { id: nameOrId } } }));
  return user.id;
}
