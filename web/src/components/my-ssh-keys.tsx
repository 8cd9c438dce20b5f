// The signed-in user's SSH public keys (profile page): add one (pasted, with a name), see each by
// name, type and fingerprint, remove one (the sessions it opened end). With a key here, stock ssh
// reaches every server her roles allow through the proxy.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok } from '../api/client';
import { ConfirmButton } from './confirm';
import { TextField } from './field';
import { QueryTable } from './query-table';
import { ProblemView } from './status';

const KEY = ['my-ssh-keys'];

export function MySshKeys() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const query = useQuery({ queryKey: KEY, queryFn: () => ok(api.GET('/v1/users/me/ssh-keys')) });
  const add = useMutation({
    mutationFn: () =>
      ok(api.POST('/v1/users/me/ssh-keys', { body: { public_key: publicKey.trim(), ...(name ? { name } : {}) } })),
    onSuccess: () => {
      setName('');
      setPublicKey('');
      void queryClient.invalidateQueries({ queryKey: KEY });
    },
  });
  const remove = useMutation({
    mutationFn: (keyId: string) =>
      ok(api.DELETE('/v1/users/me/ssh-keys/{key_id}', { params: { path: { key_id: keyId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
  return (
    <section aria-labelledby="ssh-keys">
      <h2 id="ssh-keys">SSH keys</h2>
      <form
        className="filters"
        aria-label="Add an SSH key"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <TextField
          label="Public key"
          path="/body/public_key"
          problem={add.error}
          value={publicKey}
          onChange={setPublicKey}
          placeholder="ssh-ed25519 AAAA… you@laptop"
          required
        />
        <TextField label="Key name" path="/body/name" problem={add.error} value={name} onChange={setName} />
        <button type="submit" disabled={add.isPending}>
          Add SSH key
        </button>
      </form>
      {add.isError && <ProblemView error={add.error} title="Key not added" inline />}
      {remove.isError && <ProblemView error={remove.error} title="Key not removed" />}
      <QueryTable
        query={query}
        what="SSH keys"
        label="SSH keys"
        items={(d) => d.ssh_keys}
        empty="No SSH keys yet: add your public key (~/.ssh/id_ed25519.pub) to ssh through the proxy."
        headers={['Name', 'Type', 'Fingerprint', 'Added', '']}
        row={(k) => (
          <tr key={k.id}>
            <td>{k.name ?? k.comment}</td>
            <td>{k.type}</td>
            <td>
              <code>{k.fingerprint}</code>
            </td>
            <td>{new Date(k.created_at).toLocaleString()}</td>
            <td>
              <ConfirmButton
                label={`Remove key ${k.name ?? k.fingerprint}`}
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
