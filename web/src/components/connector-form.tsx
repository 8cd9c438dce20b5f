// The form of a single sign-on connector, to create one or edit one in place. The client secret is
// write-only: the API never answers it, so editing leaves it empty and an empty field keeps the one
// stored. claims_to_roles is edited row by row (claim, a glob over its values, the roles it gives).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type Body, ok } from '../api/client';
import type { paths } from '../api/schema';
import { TextField } from './field';
import { PanelForm } from './form-panel';
import { parseList } from './labels';

export type Connector = paths['/v1/auth/connectors/{id}']['get']['responses'][200]['content']['application/json'];
type Input = Body<'/v1/auth/connectors', 'post'>;

interface MappingRow {
  claim: string;
  value: string;
  roles: string;
}

/** What a PUT takes of a connector as the API answered it (the answer's own fields dropped). */
export function inputOf(c: Connector): Input {
  const { id: _id, redirect_uri: _r, created_at: _c, updated_at: _u, ...input } = c;
  return input;
}

export function ConnectorForm({
  initial,
  onDone,
  onCancel,
}: {
  initial?: Connector;
  onDone: (c: Connector) => void;
  onCancel: () => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(initial?.name ?? '');
  const [displayName, setDisplayName] = useState(initial?.display_name ?? '');
  const [issuer, setIssuer] = useState(initial?.issuer ?? '');
  const [clientId, setClientId] = useState(initial?.client_id ?? '');
  const [secret, setSecret] = useState('');
  const [scopes, setScopes] = useState((initial?.scopes ?? ['openid', 'profile', 'email', 'groups']).join(', '));
  const [usernameClaim, setUsernameClaim] = useState(initial?.username_claim ?? 'preferred_username');
  const [enabled, setEnabled] = useState(initial?.enabled ?? true);
  const [rows, setRows] = useState<MappingRow[]>(
    initial?.claims_to_roles.map((m) => ({ claim: m.claim, value: m.value, roles: m.roles.join(', ') })) ?? [
      { claim: 'groups', value: '', roles: '' },
    ],
  );
  const setRow = (i: number, change: Partial<MappingRow>) =>
    setRows((all) => all.map((r, j) => (j === i ? { ...r, ...change } : r)));

  const mutation = useMutation({
    mutationFn: () => {
      const body: Input = {
        ...(initial ? inputOf(initial) : {}),
        kind: 'oidc',
        name,
        display_name: displayName,
        issuer,
        client_id: clientId,
        scopes: parseList(scopes),
        username_claim: usernameClaim,
        enabled,
        claims_to_roles: rows.map((r) => ({ claim: r.claim.trim(), value: r.value.trim(), roles: parseList(r.roles) })),
        ...(secret ? { client_secret: secret } : {}),
      };
      return initial
        ? ok(api.PUT('/v1/auth/connectors/{id}', { params: { path: { id: initial.id } }, body }))
        : ok(api.POST('/v1/auth/connectors', { body }));
    },
    onSuccess: (c) => {
      void queryClient.invalidateQueries({ queryKey: ['connectors'] });
      onDone(c);
    },
  });
  const p = mutation.error;
  const label = initial ? `Edit connector ${initial.name}` : 'Add a connector';
  return (
    <PanelForm
      label={label}
      mutation={mutation}
      submit={initial ? 'Save connector' : 'Add connector'}
      failed={initial ? 'Not saved' : 'Not added'}
      onCancel={onCancel}
    >
      <div className="grid">
        <TextField label="Name" path="/body/name" problem={p} value={name} onChange={setName} required hint="in URLs" />
        <TextField
          label="Display name"
          path="/body/display_name"
          problem={p}
          value={displayName}
          onChange={setDisplayName}
          required
          hint="the button says Sign in with …"
        />
        <TextField
          label="Issuer"
          path="/body/issuer"
          problem={p}
          value={issuer}
          onChange={setIssuer}
          required
          placeholder="https://login.example.com"
        />
        <TextField
          label="Client ID"
          path="/body/client_id"
          problem={p}
          value={clientId}
          onChange={setClientId}
          required
        />
        <TextField
          label="Client secret"
          path="/body/client_secret"
          problem={p}
          value={secret}
          onChange={setSecret}
          type="password"
          autoComplete="new-password"
          required={!initial}
          hint={initial ? 'stored sealed, never shown: leave empty to keep it' : 'stored sealed, never shown again'}
        />
        <TextField label="Scopes" path="/body/scopes" problem={p} value={scopes} onChange={setScopes} />
        <TextField
          label="Username claim"
          path="/body/username_claim"
          problem={p}
          value={usernameClaim}
          onChange={setUsernameClaim}
        />
      </div>
      <fieldset>
        <legend>Claims to roles</legend>
        <p className="muted">
          A claim (a dotted path such as realm_access.roles reaches nested ones), a glob over its values, and the roles
          it gives; {'{{value}}'} is the matched value. Roles are computed at every sign-in.
        </p>
        {rows.map((r, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
          <fieldset className="row mapping" key={i} aria-label={`Mapping ${i + 1}`}>
            <TextField
              label="Claim"
              path={`/body/claims_to_roles/${i}/claim`}
              problem={p}
              value={r.claim}
              onChange={(v) => setRow(i, { claim: v })}
              required
            />
            <TextField
              label="Value"
              path={`/body/claims_to_roles/${i}/value`}
              problem={p}
              value={r.value}
              onChange={(v) => setRow(i, { value: v })}
              placeholder="platform-*"
              required
            />
            <TextField
              label="Roles"
              path={`/body/claims_to_roles/${i}/roles`}
              problem={p}
              value={r.roles}
              onChange={(v) => setRow(i, { roles: v })}
              placeholder="dev, auditor"
              required
            />
            <button
              type="button"
              onClick={() => setRows((all) => all.filter((_, j) => j !== i))}
              disabled={rows.length === 1}
              aria-label={`Remove mapping ${i + 1}`}
            >
              Remove
            </button>
          </fieldset>
        ))}
        <button type="button" onClick={() => setRows((all) => [...all, { claim: 'groups', value: '', roles: '' }])}>
          Add a mapping
        </button>
      </fieldset>
      <label>
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled (offered on
        the sign-in page)
      </label>
    </PanelForm>
  );
}
