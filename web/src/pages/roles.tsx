// Roles: the list (built-in ones marked), with a way to create one in the editor.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, ok } from '../api/client';
import { Pager, usePage } from '../components/pager';
import { QueryTable } from '../components/query-table';
import { useCan } from '../session';

const PER_PAGE = 50;

export function RolesPage() {
  const page = usePage();
  const canCreate = useCan('roles', 'create');
  const query = useQuery({
    queryKey: ['roles', { page }],
    queryFn: () => ok(api.GET('/v1/roles', { params: { query: { page, per_page: PER_PAGE } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section>
      <div className="title-row">
        <h1>Roles</h1>
        {canCreate && (
          <Link className="button" to="/roles/new">
            Create a role
          </Link>
        )}
      </div>
      <QueryTable
        query={query}
        what="roles"
        label="Roles"
        items={(d) => d.roles}
        empty="No roles."
        headers={['Name', 'Description', 'Kind']}
        row={(r) => (
          <tr key={r.id}>
            <td>
              <Link to={`/roles/${r.id}`}>{r.name}</Link>
            </td>
            <td>{r.description}</td>
            <td>{r.builtin ? 'built-in' : 'custom'}</td>
          </tr>
        )}
        footer={(d) => <Pager total={d.pagination.total} page={page} perPage={PER_PAGE} />}
      />
    </section>
  );
}
