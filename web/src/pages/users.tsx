// Users: list, create (roles and logins), delete; a user's API keys (shown once) and their removal.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, ok } from '../api/client';
import { ConfirmButton } from '../components/confirm';
import { TextField } from '../components/field';
import { parseList } from '../components/labels';
import { Pager, usePage } from '../components/pager';
import { ShownOnce } from '../components/secret';
import { Empty, Loading, ProblemView } from '../components/status';
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
  const [creating, setCreating] = useState(false);
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
      <div className="title-row">
        <h1>Users</h1>
        {canCreate && (
          <button type="button" onClick={() => setCreating((c) => !c)} aria-expanded={creating}>
            Create a user
          </button>
        )}
      </div>
      {creating && <CreateUser onDone={() => setCreating(false)} />}
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
      {query.isPending ? (
        <Loading what="users" />
      ) : query.isError ? (
        <ProblemView error={query.error} />
      ) : query.data.users.length === 0 ? (
        <Empty>No users match.</Empty>
      ) : (
        <>
          <table aria-label="Users">
            <thead>
              <tr>
                <th>Name</th>
                <th>Roles</th>
                <th>Status</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {query.data.users.map((u) => (
                <tr key={u.id}>
                  <td>
                    <Link to={`/users/${u.id}`}>{u.name}</Link>
                  </td>
                  <td>{u.roles.join(', ')}</td>
                  <td>{u.status}</td>
                  <td>{new Date(u.created_at).toLocaleString()}</td>
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

function CreateUser({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [roles, setRoles] = useState('');
  const [logins, setLogins] = useState('');
  const mutation = useMutation({
    mutationFn: () => {
      const loginList = parseList(logins);
      return ok(
        api.POST('/v1/users', {
          body: { name, roles: parseList(roles), ...(loginList.length ? { traits: { logins: loginList } } : {}) },
        }),
      );
    },
    onSuccess: (user) => {
      void queryClient.invalidateQueries({ queryKey: ['users'] });
      onDone();
      navigate(`/users/${user.id}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    mutation.mutate();
  };
  const p = mutation.error;
  return (
    <form className="panel" aria-label="Create a user" onSubmit={submit}>
      <TextField label="User name" path="/body/name" problem={p} value={name} onChange={setName} required />
      <TextField
        label="Roles"
        path="/body/roles"
        problem={p}
        value={roles}
        onChange={setRoles}
        placeholder="access, auditor"
      />
      <TextField
        label="Logins"
        path="/body/traits"
        problem={p}
        value={logins}
        onChange={setLogins}
        placeholder="ubuntu, deploy"
        hint="traits.logins: the logins roles grant with {{traits.logins}}"
      />
      <div className="row">
        <button type="submit" disabled={mutation.isPending}>
          Create user
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {mutation.isError && <ProblemView error={mutation.error} title="Not created" inline />}
    </form>
  );
}

export function UserPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const canDelete = useCan('users', 'delete');
  const query = useQuery({
    queryKey: ['user', id],
    queryFn: () => ok(api.GET('/v1/users/{id}', { params: { path: { id } } })),
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/v1/users/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['users'] });
      navigate('/users');
    },
  });
  if (query.isPending) return <Loading what="the user" />;
  if (query.isError) return <ProblemView error={query.error} />;
  const u = query.data;
  return (
    <section>
      <p>
        <Link to="/users">← Users</Link>
      </p>
      <div className="title-row">
        <h1>{u.name}</h1>
        {canDelete && (
          <ConfirmButton label="Delete user" confirmLabel={`Delete ${u.name}`} onConfirm={() => remove.mutate()} />
        )}
      </div>
      {remove.isError && <ProblemView error={remove.error} title="Not deleted" />}
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{u.id}</code>
        </dd>
        <dt>Roles</dt>
        <dd>{u.roles.join(', ') || '—'}</dd>
        <dt>Logins</dt>
        <dd>{u.traits.logins?.join(', ') || '—'}</dd>
        <dt>Status</dt>
        <dd>{u.status}</dd>
      </dl>
      <ApiKeys userId={u.id} />
    </section>
  );
}

function ApiKeys({ userId }: { userId: string }) {
  const queryClient = useQueryClient();
  const canUpdate = useCan('users', 'update');
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string>();
  const key = ['api-keys', userId];
  const query = useQuery({
    queryKey: key,
    queryFn: () => ok(api.GET('/v1/users/{id}/api-keys', { params: { path: { id: userId } } })),
  });
  const create = useMutation({
    mutationFn: () => ok(api.POST('/v1/users/{id}/api-keys', { params: { path: { id: userId } }, body: { name } })),
    onSuccess: (created) => {
      setSecret(created.api_key);
      setName('');
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const remove = useMutation({
    mutationFn: (keyId: string) =>
      ok(api.DELETE('/v1/users/{id}/api-keys/{key_id}', { params: { path: { id: userId, key_id: keyId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  return (
    <section aria-labelledby="api-keys">
      <h2 id="api-keys">API keys</h2>
      {secret && <ShownOnce title="New API key" secret={secret} onDone={() => setSecret(undefined)} />}
      {canUpdate && (
        <form
          className="filters"
          aria-label="Create an API key"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <TextField
            label="Key name"
            path="/body/name"
            problem={create.error}
            value={name}
            onChange={setName}
            required
          />
          <button type="submit" disabled={create.isPending}>
            Create API key
          </button>
        </form>
      )}
      {create.isError && <ProblemView error={create.error} title="No key created" inline />}
      {remove.isError && <ProblemView error={remove.error} title="Key not deleted" />}
      {query.isPending ? (
        <Loading what="API keys" />
      ) : query.isError ? (
        <ProblemView error={query.error} />
      ) : query.data.api_keys.length === 0 ? (
        <Empty>No API keys.</Empty>
      ) : (
        <table aria-label="API keys">
          <thead>
            <tr>
              <th>Name</th>
              <th>Starts with</th>
              <th>Created</th>
              <th>Expires</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {query.data.api_keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.hint}</code>
                </td>
                <td>{new Date(k.created_at).toLocaleString()}</td>
                <td>{k.expires_at ? new Date(k.expires_at).toLocaleString() : 'never'}</td>
                <td>
                  {canUpdate && (
                    <ConfirmButton
                      label={`Delete key ${k.name}`}
                      confirmLabel="Delete it"
                      onConfirm={() => remove.mutate(k.id)}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
