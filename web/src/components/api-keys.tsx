// A principal's API keys: created with a name (the secret shown once), listed by name and hint,
// deleted (the tokens issued from a key are revoked with it). The user page passes the
// /v1/users/{id}/api-keys calls, the profile the caller's own /v1/users/me/api-keys.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmButton } from './confirm';
import { TextField } from './field';
import { QueryTable } from './query-table';
import { ShownOnce } from './secret';
import { ProblemView } from './status';

interface ApiKeyView {
  id: string;
  name: string;
  hint: string;
  created_at: string;
  expires_at: string | null;
}

export function ApiKeys({
  queryKey,
  canUpdate,
  list,
  create: createKey,
  remove: removeKey,
}: {
  queryKey: readonly unknown[];
  canUpdate: boolean;
  list: () => Promise<{ api_keys: ApiKeyView[] }>;
  create: (name: string) => Promise<{ api_key: string }>;
  remove: (keyId: string) => Promise<unknown>;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string>();
  const key = queryKey;
  const query = useQuery({ queryKey: key, queryFn: list });
  const create = useMutation({
    mutationFn: () => createKey(name),
    onSuccess: (created) => {
      setSecret(created.api_key);
      setName('');
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const remove = useMutation({
    mutationFn: (keyId: string) => removeKey(keyId),
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
