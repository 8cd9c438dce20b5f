// The signed-in person's security keys and passkeys (account page; the profile page shows it too):
// add one with a name (the browser asks the key or the device), see each with its last use, remove
// one. Self-contained: its own queries against /v1/users/me/mfa/devices and its own WebAuthn call.
import { startRegistration } from '@simplewebauthn/browser';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type Body, ok } from '../api/client';
import { ConfirmButton } from './confirm';
import { TextField } from './field';
import { QueryTable } from './query-table';
import { ProblemView } from './status';

const KEY = ['my-security-keys'];
type Registration = Body<'/v1/users/me/mfa/devices', 'post'>['response'];

/** Asks the server for a challenge, the browser for a new credential, the server to keep it. */
export async function registerSecurityKey(name: string) {
  const options = await ok(api.POST('/v1/users/me/mfa/devices/options'));
  const response = await startRegistration({ optionsJSON: options as never });
  return ok(api.POST('/v1/users/me/mfa/devices', { body: { name, response: response as unknown as Registration } }));
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

export function SecurityKeys() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const query = useQuery({ queryKey: KEY, queryFn: () => ok(api.GET('/v1/users/me/mfa/devices')) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: KEY });
  const add = useMutation({
    mutationFn: () => registerSecurityKey(name.trim()),
    onSuccess: () => {
      setName('');
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) =>
      ok(api.DELETE('/v1/users/me/mfa/devices/{device_id}', { params: { path: { device_id: id } } })),
    onSuccess: refresh,
  });
  return (
    <section aria-labelledby="security-keys">
      <h2 id="security-keys">Security keys</h2>
      <p className="muted">
        A hardware key or a passkey on this device. Roles that require one ask for it at every sign-in; where a role
        allows it, a passkey signs you in alone.
      </p>
      <form
        className="filters"
        aria-label="Add a security key"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <TextField label="Key name" path="/body/name" problem={add.error} value={name} onChange={setName} required />
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? 'Touch your key…' : 'Add a security key'}
        </button>
      </form>
      {add.isError && <ProblemView error={add.error} title="Key not added" inline />}
      {remove.isError && <ProblemView error={remove.error} title="Key not removed" />}
      <QueryTable
        query={query}
        what="security keys"
        label="Security keys"
        items={(d) => d.devices}
        empty="No security keys yet."
        headers={['Name', 'Kind', 'Added', 'Last used', '']}
        row={(k) => (
          <tr key={k.id}>
            <td>{k.name}</td>
            <td>{k.discoverable ? 'passkey' : 'security key'}</td>
            <td>{when(k.created_at)}</td>
            <td>{when(k.last_used_at)}</td>
            <td>
              <ConfirmButton
                label={`Remove key ${k.name}`}
                confirmLabel="Remove it"
                onConfirm={() => remove.mutate(k.id)}
              />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
