// Single sign-on connectors: the OpenID Providers people sign in through, which roles their claims
// give, and the redirect URI to register at each. Adding or changing one is granting: the API refuses
// a connector that could give a role you do not cover, and this page shows its refusal.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok } from '../api/client';
import { ConfirmButton } from '../components/confirm';
import { type Connector, ConnectorForm, inputOf } from '../components/connector-form';
import { FormToggle } from '../components/form-panel';
import { QueryTable } from '../components/query-table';
import { ProblemView } from '../components/status';
import { useCan } from '../session';

export function ConnectorsPage() {
  const queryClient = useQueryClient();
  const canCreate = useCan('connectors', 'create');
  const canUpdate = useCan('connectors', 'update');
  const canDelete = useCan('connectors', 'delete');
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | undefined>();
  const [saved, setSaved] = useState<Connector | undefined>();
  const query = useQuery({
    queryKey: ['connectors'],
    queryFn: () => ok(api.GET('/v1/auth/connectors', { params: { query: { per_page: 100 } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['connectors'] });
  const toggle = useMutation({
    mutationFn: (c: Connector) =>
      ok(
        api.PUT('/v1/auth/connectors/{id}', {
          params: { path: { id: c.id } },
          body: { ...inputOf(c), enabled: !c.enabled },
        }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (c: Connector) => ok(api.DELETE('/v1/auth/connectors/{id}', { params: { path: { id: c.id } } })),
    onSuccess: refresh,
  });
  const done = (c: Connector) => {
    setAdding(false);
    setEditing(undefined);
    setSaved(c);
  };
  const editingOne = query.data?.connectors.find((c) => c.id === editing);
  return (
    <section>
      <div className="title-row">
        <h1>Single sign-on</h1>
        {canCreate && (
          <FormToggle open={adding} onToggle={() => setAdding((o) => !o)}>
            Add a connector
          </FormToggle>
        )}
      </div>
      <p className="muted">
        People sign in through these OpenID Providers; their claims give them roles at every sign-in. Turning a
        connector off or deleting it ends the sign-ins it made.
      </p>
      {adding && <ConnectorForm onDone={done} onCancel={() => setAdding(false)} />}
      {saved && (
        <p role="status" className="receipt">
          Connector <strong>{saved.name}</strong> saved. Register this redirect URI at the provider:{' '}
          <code>{saved.redirect_uri}</code>
        </p>
      )}
      {editingOne && (
        <ConnectorForm key={editingOne.id} initial={editingOne} onDone={done} onCancel={() => setEditing(undefined)} />
      )}
      {toggle.isError && <ProblemView error={toggle.error} title="Not changed" />}
      {remove.isError && <ProblemView error={remove.error} title="Not deleted" />}
      <QueryTable
        query={query}
        what="connectors"
        label="Connectors"
        items={(d) => d.connectors}
        empty="No connectors: people sign in with API keys and passkeys only."
        headers={['Name', 'Issuer', 'Claims to roles', 'Redirect URI', 'Status', '']}
        row={(c) => (
          <tr key={c.id}>
            <td>
              {c.name}
              <br />
              <span className="muted">{c.display_name}</span>
            </td>
            <td>{c.issuer}</td>
            <td>
              {c.claims_to_roles.map((m, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a mapping's place is its identity
                <div key={i}>
                  {m.claim} ~ {m.value} → {m.roles.join(', ')}
                </div>
              ))}
            </td>
            <td>
              <code>{c.redirect_uri}</code>
            </td>
            <td>{c.enabled ? 'enabled' : 'off'}</td>
            <td className="actions">
              {canUpdate && (
                <button type="button" onClick={() => setEditing(c.id)} aria-label={`Edit ${c.name}`}>
                  Edit
                </button>
              )}
              {canUpdate && (
                <button
                  type="button"
                  className="caution"
                  onClick={() => toggle.mutate(c)}
                  disabled={toggle.isPending}
                  aria-label={`${c.enabled ? 'Turn off' : 'Turn on'} ${c.name}`}
                >
                  {c.enabled ? 'Turn off' : 'Turn on'}
                </button>
              )}
              {canDelete && (
                <ConfirmButton
                  label={`Delete ${c.name}`}
                  confirmLabel={`Delete ${c.name} and end its sign-ins`}
                  onConfirm={() => remove.mutate(c)}
                />
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
