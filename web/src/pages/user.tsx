// One user: roles and logins (edit), delete, and API keys (each shown once, with a copy button); the
// Access tab: every resource the user reaches, as whom, and the role granting each.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ok } from '../api/client';
import { ApiKeys } from '../components/api-keys';
import { ConfirmButton } from '../components/confirm';
import { FormToggle, PanelForm } from '../components/form-panel';
import { useRoleNames } from '../components/pickers';
import { PrincipalAccess } from '../components/principal-access';
import { Loading, ProblemView } from '../components/status';
import { Tabs } from '../components/tabs';
import { TokenInput } from '../components/token-input';
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
      <Tabs
        label={`About ${u.name}`}
        tabs={[
          { id: 'details', title: 'Details', panel: () => <UserDetails user={u} /> },
          { id: 'access', title: 'Access', panel: () => <PrincipalAccess kind="user" id={u.id} name={u.name} /> },
        ]}
      />
    </section>
  );
}

function UserDetails({ user: u }: { user: UserView }) {
  return (
    <>
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
      <UserApiKeys userId={u.id} />
    </>
  );
}

type UserView = Awaited<ReturnType<typeof getUser>>;
const getUser = (id: string) => ok(api.GET('/v1/users/{id}', { params: { path: { id } } }));

/** Roles and logins (traits.logins); other traits are kept as they are. */
function EditUser({ user: u, onDone }: { user: UserView; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [roles, setRoles] = useState<string[]>(u.roles);
  const roleNames = useRoleNames();
  const [logins, setLogins] = useState<string[]>(u.traits.logins ?? []);
  const save = useMutation({
    mutationFn: () =>
      ok(
        api.PATCH('/v1/users/{id}', {
          params: { path: { id: u.id } },
          body: { roles, traits: { ...u.traits, logins } },
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
      <TokenInput
        label="Roles"
        path="/body/roles"
        problem={save.error}
        values={roles}
        onChange={setRoles}
        suggestions={roleNames}
      />
      <TokenInput
        label="Logins"
        path="/body/traits"
        problem={save.error}
        values={logins}
        onChange={setLogins}
        placeholder="ubuntu"
      />
    </PanelForm>
  );
}

function UserApiKeys({ userId }: { userId: string }) {
  const path = { params: { path: { id: userId } } };
  return (
    <ApiKeys
      queryKey={['api-keys', userId]}
      canUpdate={useCan('users', 'update')}
      list={() => ok(api.GET('/v1/users/{id}/api-keys', path))}
      create={(name) => ok(api.POST('/v1/users/{id}/api-keys', { ...path, body: { name } }))}
      remove={(keyId) =>
        ok(api.DELETE('/v1/users/{id}/api-keys/{key_id}', { params: { path: { id: userId, key_id: keyId } } }))
      }
    />
  );
}
