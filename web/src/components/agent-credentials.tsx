// An agent's credentials: issue one (token, API key or JWT; shown once), narrowed to some of the
// agent's roles if asked; each row says which roles it carries; revoke one.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok } from '../api/client';
import { useCan } from '../session';
import { ConfirmButton } from './confirm';
import { SelectField, TextField } from './field';
import { QueryTable } from './query-table';
import { ShownOnce } from './secret';
import { ProblemView } from './status';
import { TokenInput } from './token-input';

export function Credentials({
  agentId,
  agentRoles,
  active,
}: {
  agentId: string;
  agentRoles: string[];
  active: boolean;
}) {
  const queryClient = useQueryClient();
  const canUpdate = useCan('agents', 'update');
  const [type, setType] = useState<'token' | 'api_key' | 'jwt'>('token');
  const [ttl, setTtl] = useState('');
  const [audience, setAudience] = useState('');
  const [roles, setRoles] = useState<string[]>([]);
  const [secret, setSecret] = useState<{ title: string; value: string }>();
  const key = ['credentials', agentId];
  const query = useQuery({
    queryKey: key,
    queryFn: () =>
      ok(
        api.GET('/v1/agents/{id}/credentials', {
          params: { path: { id: agentId }, query: { page: 1, per_page: 100 } },
        }),
      ),
  });
  const issue = useMutation({
    mutationFn: () => {
      const roleList = roles;
      return ok(
        api.POST('/v1/agents/{id}/credentials', {
          params: { path: { id: agentId } },
          body: {
            type,
            ...(ttl ? { ttl: Number(ttl) } : {}),
            ...(type === 'jwt' ? { audience } : {}),
            ...(roleList.length ? { roles: roleList } : {}),
          },
        }),
      );
    },
    onSuccess: (c) => {
      const value = c.api_key ?? c.access_token ?? c.jwt ?? '';
      setSecret({ title: `New ${c.type} credential ${c.id}`, value });
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: (credentialId: string) =>
      ok(
        api.DELETE('/v1/agents/{id}/credentials/{credential_id}', {
          params: { path: { id: agentId, credential_id: credentialId } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const p = issue.error;
  return (
    <section aria-labelledby="credentials">
      <h2 id="credentials">Credentials</h2>
      {secret && <ShownOnce title={secret.title} secret={secret.value} onDone={() => setSecret(undefined)} />}
      {canUpdate && active && (
        <form
          className="filters"
          aria-label="Issue a credential"
          onSubmit={(e) => {
            e.preventDefault();
            issue.mutate();
          }}
        >
          <SelectField
            label="Credential type"
            value={type}
            onChange={(v) => setType(v as typeof type)}
            options={[
              ['token', 'Access token'],
              ['api_key', 'API key'],
              ['jwt', 'JWT (third-party)'],
            ]}
          />
          <TextField
            label="Lifetime (seconds)"
            path="/body/ttl"
            problem={p}
            value={ttl}
            onChange={setTtl}
            inputMode="numeric"
          />
          {type === 'jwt' && (
            <TextField label="Audience" path="/body/audience" problem={p} value={audience} onChange={setAudience} />
          )}
          <TokenInput
            label="Only these roles"
            path="/body/roles"
            problem={p}
            values={roles}
            onChange={setRoles}
            suggestions={agentRoles}
            strict
          />
          <button type="submit" disabled={issue.isPending}>
            Issue credential
          </button>
        </form>
      )}
      {issue.isError && <ProblemView error={issue.error} title="No credential issued" inline />}
      {revoke.isError && <ProblemView error={revoke.error} title="Not revoked" />}
      <QueryTable
        query={query}
        what="credentials"
        label="Credentials"
        items={(d) => d.credentials}
        empty="No credentials issued."
        headers={['Id', 'Type', 'Roles', 'Expires', 'State', '']}
        row={(c) => (
          <tr key={c.id}>
            <td>
              <code>{c.id}</code>
            </td>
            <td>{c.type}</td>
            <td>{c.roles ? c.roles.join(', ') || 'none' : `all of the agent’s: ${agentRoles.join(', ') || 'none'}`}</td>
            <td>{new Date(c.expires_at).toLocaleString()}</td>
            <td>{c.revoked_at ? 'revoked' : new Date(c.expires_at) < new Date() ? 'expired' : 'valid'}</td>
            <td>
              {canUpdate && !c.revoked_at && (
                <ConfirmButton
                  label={`Revoke credential ${c.id}`}
                  confirmLabel="Revoke it"
                  onConfirm={() => revoke.mutate(c.id)}
                />
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
