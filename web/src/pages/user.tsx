// One user: roles and logins (edit), delete, and API keys (each shown once, with a copy button).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ok } from '../api/client';
import { ConfirmButton } from '../components/confirm';
import { TextField } from '../components/field';
import { FormToggle, PanelForm } from '../components/form-panel';
import { parseList } from '../components/labels';
import { QueryTable } from '../components/query-table';
import { ShownOnce } from '../components/secret';
import { Loading, ProblemView } from '../components/status';
import { useCan } from '../session';

export function UserPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const canDelete = useCan('users', 'delete');
  const canUpdate = useCan('users', 'update');
  const [editing, setEditing] = useState(false);
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
        {canUpdate && (
          <FormToggle open={editing} onToggle={() => setEditing((e) => !e)}>
            Edit roles and logins
          </FormToggle>
        )}
        {canDelete && (
          <ConfirmButton label="Delete user" confirmLabel={`Delete ${u.name}`} onConfirm={() => remove.mutate()} />
        )}
      </div>
      {remove.isError && <ProblemView error={remove.error} title="Not deleted" />}
      {editing && <EditUser user={u} onDone={() => setEditing(false)} />}
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

type UserView = Awaited<ReturnType<typeof getUser>>;
const getUser = (id: string) => ok(api.GET('/v1/users/{id}', { params: { path: { id } } }));

/** Roles and logins (traits.logins); other traits are kept as they are. */
function EditUser({ user: u, onDone }: { user: UserView; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [roles, setRoles] = useState(u.roles.join(', '));
  const [logins, setLogins] = useState((u.traits.logins ?? []).join(', '));
  const save = useMutation({
    mutationFn: () =>
      ok(
        api.PATCH('/v1/users/{id}', {
          params: { path: { id: u.id } },
          body: { roles: parseList(roles), traits: { ...u.traits, logins: parseList(logins) } },
        }),
      ),
    onSuccess: (updated) => {
      queryClient.setQueryData(['user', u.id], updated);
      void queryClient.invalidateQueries({ queryKey: ['users'] });
      onDone();
    },
  });
  return (
    <PanelForm label="Edit user" mutation={save} submit="Save changes" failed="Not saved" onCancel={onDone}>
      <TextField label="Roles" path="/body/roles" problem={save.error} value={roles} onChange={setRoles} />
      <TextField label="Logins" path="/body/traits" problem={save.error} value={logins} onChange={setLogins} />
    </PanelForm>
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
      <QueryTable
        query={query}
        what="API keys"
        label="API keys"
        items={(d) => d.api_keys}
        empty="No API keys."
        headers={['Name', 'Starts with', 'Created', 'Expires', '']}
        row={(k) => (
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
        )}
      />
    </section>
  );
}
