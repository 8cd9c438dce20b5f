// Users: the list (filtered on the server by name and role) and creating one; user.tsx shows one.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, ok } from '../api/client';
import { TextField } from '../components/field';
import { PanelForm, TitleWithForm } from '../components/form-panel';
import { Pager, usePage } from '../components/pager';
import { useRoleNames } from '../components/pickers';
import { QueryTable } from '../components/query-table';
import { TokenInput } from '../components/token-input';
import { useCan } from '../session';

const PER_PAGE = 20;

export function UsersPage() {
  const [params, setParams] = useSearchParams();
  const page = usePage();
  const name = params.get('name') ?? '';
  const role = params.get('role') ?? '';
  const [nameInput, setNameInput] = useState(name);
  const [roleInput, setRoleInput] = useState(role);
  const canCreate = useCan('users', 'create');
  const query = useQuery({
    queryKey: ['users', { page, name, role }],
    queryFn: () =>
      ok(
        api.GET('/v1/users', {
          params: { query: { page, per_page: PER_PAGE, ...(name ? { name } : {}), ...(role ? { role } : {}) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return (
    <section>
      <TitleWithForm
        title="Users"
        button="Create a user"
        allowed={canCreate}
        form={(close) => <CreateUser onDone={close} />}
      />
      <form
        className="filters"
        aria-label="Filter users"
        onSubmit={(e) => {
          e.preventDefault();
          const next = new URLSearchParams();
          if (nameInput.trim()) next.set('name', nameInput.trim());
          if (roleInput.trim()) next.set('role', roleInput.trim());
          setParams(next);
        }}
      >
        <TextField label="Name" value={nameInput} onChange={setNameInput} placeholder="exact name" />
        <TextField label="Has role" value={roleInput} onChange={setRoleInput} placeholder="role name" />
        <button type="submit">Search</button>
      </form>
      <QueryTable
        query={query}
        what="users"
        label="Users"
        items={(d) => d.users}
        empty="No users match."
        headers={['Name', 'Roles', 'Status', 'Created']}
        row={(u) => (
          <tr key={u.id}>
            <td>
              <Link to={`/users/${u.id}`}>{u.name}</Link>
            </td>
            <td>{u.roles.join(', ')}</td>
            <td>{u.status}</td>
            <td>{new Date(u.created_at).toLocaleString()}</td>
          </tr>
        )}
        footer={(d) => <Pager total={d.pagination.total} page={page} perPage={PER_PAGE} />}
      />
    </section>
  );
}

function CreateUser({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [roles, setRoles] = useState<string[]>([]);
  const roleNames = useRoleNames();
  const [logins, setLogins] = useState<string[]>([]);
  const mutation = useMutation({
    mutationFn: () =>
      ok(api.POST('/v1/users', { body: { name, roles, ...(logins.length ? { traits: { logins } } : {}) } })),
    onSuccess: (user) => {
      void queryClient.invalidateQueries({ queryKey: ['users'] });
      onDone();
      navigate(`/users/${user.id}`);
    },
  });
  const p = mutation.error;
  return (
    <PanelForm label="Create a user" mutation={mutation} submit="Create user" failed="Not created" onCancel={onDone}>
      <TextField label="User name" path="/body/name" problem={p} value={name} onChange={setName} required />
      <TokenInput
        label="Roles"
        path="/body/roles"
        problem={p}
        values={roles}
        onChange={setRoles}
        suggestions={roleNames}
        placeholder="access"
      />
      {/* traits.logins: the logins that roles grant with {{traits.logins}}. */}
      <TokenInput
        label="Logins"
        path="/body/traits"
        problem={p}
        values={logins}
        onChange={setLogins}
        placeholder="ubuntu"
      />
    </PanelForm>
  );
}
