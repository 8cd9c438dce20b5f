// What a principal reaches (GET /v1/users/{id}/access, /v1/agents/{id}/access, /v1/users/me/access):
// each resource, as whom, and per role what that role grants there. The API lists only what the one
// access checker admits, so this is what the doors will do, not a reading of the roles.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, ok } from '../api/client';
import type { paths } from '../api/schema';
import { useCan } from '../session';
import { Empty, Loading, ProblemView } from './status';

type Access = paths['/v1/users/me/access']['get']['responses'][200]['content']['application/json'];
type Item = Access['resources'][number];
type AsWhom = Pick<Item, 'logins' | 'db_users' | 'db_names' | 'kube_users' | 'kube_groups'>;

/** "ubuntu, deploy", "app → appdb", "alice, group dev-team": the values a door will accept. */
export const asWhom = (r: AsWhom) =>
  [
    r.logins.join(', '),
    r.db_users.length ? `${r.db_users.join(', ')} → ${r.db_names.join(', ')}` : '',
    [...r.kube_users, ...r.kube_groups.map((g) => `group ${g}`)].join(', '),
  ]
    .filter(Boolean)
    .join('; ');

export function AccessTable({
  access,
  label,
  empty,
  linkRoles = false,
}: {
  access: Access;
  label: string;
  empty: string;
  /** Roles as links to their editor (for whoever may read roles). */
  linkRoles?: boolean;
}) {
  if (!access.active)
    return (
      <Empty>{access.principal.name} may not act now (suspended, revoked, or its owner is): it reaches nothing.</Empty>
    );
  if (access.resources.length === 0) return <Empty>{empty}</Empty>;
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th>Resource</th>
          <th>Kind</th>
          <th>As</th>
          <th>Granted by</th>
        </tr>
      </thead>
      <tbody>
        {access.resources.map((r) => (
          <tr key={r.id}>
            <td>
              <Link to={`/resources/${r.id}`}>{r.name}</Link>
            </td>
            <td>{r.kind.replace('_', ' ')}</td>
            <td>{asWhom(r) || '—'}</td>
            <td>
              <ul className="plain">
                {r.grants.map((g) => (
                  <li key={g.role}>
                    {linkRoles ? <Link to={`/roles/${encodeURIComponent(g.role)}`}>{g.role}</Link> : g.role}
                    {asWhom(g) && <span className="muted">: {asWhom(g)}</span>}
                  </li>
                ))}
              </ul>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The Access tab of a user's or an agent's page. */
export function PrincipalAccess({ kind, id, name }: { kind: 'user' | 'agent'; id: string; name: string }) {
  const canReadRoles = useCan('roles', 'read');
  const path = { params: { path: { id } } };
  const query = useQuery({
    queryKey: ['access', kind, id],
    queryFn: () =>
      ok(kind === 'user' ? api.GET('/v1/users/{id}/access', path) : api.GET('/v1/agents/{id}/access', path)),
  });
  if (query.isPending) return <Loading what={`what the ${kind} reaches`} />;
  if (query.isError) return <ProblemView error={query.error} />;
  return (
    <AccessTable
      access={query.data}
      label={`What ${name} can reach`}
      empty={
        kind === 'user'
          ? `${name}'s roles reach no resource.`
          : `${name}'s roles (within its owner's) reach no resource.`
      }
      linkRoles={canReadRoles}
    />
  );
}
