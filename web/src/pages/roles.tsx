// Roles: the list (built-in ones marked), with a way to create one in the editor.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, ok } from '../api/client';
import { Pager, usePage } from '../components/pager';
import { Empty, Loading, ProblemView } from '../components/status';
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
      {query.isPending ? (
        <Loading what="roles" />
      ) : query.isError ? (
        <ProblemView error={query.error} />
      ) : query.data.roles.length === 0 ? (
        <Empty>No roles.</Empty>
      ) : (
        <>
          <table aria-label="Roles">
            <thead>
              <tr>
                <th>Name</th>
                <th>Description</th>
                <th>Kind</th>
              </tr>
            </thead>
            <tbody>
              {query.data.roles.map((r) => (
                <tr key={r.id}>
                  <td>
                    <Link to={`/roles/${r.id}`}>{r.name}</Link>
                  </td>
                  <td>{r.description}</td>
                  <td>{r.builtin ? 'built-in' : 'custom'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager total={query.data.pagination.total} page={page} perPage={PER_PAGE} />
        </>
      )}
    </section>
  );
}
