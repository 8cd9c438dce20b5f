// One agent: issue credentials (each shown once), list and revoke them, its delegations, and the kill
// switch (suspend, reactivate, revoke) with the receipt of what it ended; the Access tab: every resource
// it reaches (its roles within its owner's), as whom, and the role granting each.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, ok } from '../api/client';
import { Credentials } from '../components/agent-credentials';
import { ConfirmButton } from '../components/confirm';
import { formatLabels } from '../components/labels';
import { PrincipalAccess } from '../components/principal-access';
import { QueryTable } from '../components/query-table';
import { Loading, ProblemView } from '../components/status';
import { Tabs } from '../components/tabs';
import { useCan } from '../session';

type Receipt = {
  status: string;
  revoked_tokens: number;
  revoked_credentials: number;
  ended_sessions: string[];
  revoked_issued_for_others?: { api_keys: number; ssh_keys: number; credentials: number; tokens: number };
};

export function AgentPage() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const canUpdate = useCan('agents', 'update');
  const [receipt, setReceipt] = useState<Receipt>();
  const query = useQuery({
    queryKey: ['agent', id],
    queryFn: () => ok(api.GET('/v1/agents/{id}', { params: { path: { id } } })),
  });
  const setStatus = useMutation({
    mutationFn: (status: 'active' | 'suspended' | 'revoked') =>
      ok(api.PATCH('/v1/agents/{id}', { params: { path: { id } }, body: { status } })),
    onSuccess: (r) => {
      setReceipt({
        status: r.status,
        revoked_tokens: r.revoked_tokens ?? 0,
        revoked_credentials: r.revoked_credentials ?? 0,
        ended_sessions: r.ended_sessions ?? [],
        ...(r.revoked_issued_for_others ? { revoked_issued_for_others: r.revoked_issued_for_others } : {}),
      });
      void queryClient.invalidateQueries({ queryKey: ['agent', id] });
      void queryClient.invalidateQueries({ queryKey: ['credentials', id] });
      void queryClient.invalidateQueries({ queryKey: ['agents'] });
    },
  });
  if (query.isPending) return <Loading what="the agent" />;
  if (query.isError) return <ProblemView error={query.error} />;
  const a = query.data;
  return (
    <section>
      <p>
        <Link to="/agents">← Agents</Link>
      </p>
      <div className="title-row">
        <h1>{a.name}</h1>
        {canUpdate && a.status === 'active' && (
          <ConfirmButton
            label="Suspend agent"
            confirmLabel="Suspend: end its tokens and sessions now"
            tone="caution"
            onConfirm={() => setStatus.mutate('suspended')}
          />
        )}
        {canUpdate && a.status === 'suspended' && (
          <button type="button" onClick={() => setStatus.mutate('active')}>
            Reactivate agent
          </button>
        )}
        {canUpdate && a.status !== 'revoked' && (
          <ConfirmButton
            label="Revoke agent (permanent)"
            confirmLabel="Revoke for good"
            onConfirm={() => setStatus.mutate('revoked')}
          />
        )}
      </div>
      {setStatus.isError && <ProblemView error={setStatus.error} title="Status not changed" />}
      {receipt && <KillSwitchReceipt receipt={receipt} />}
      <Tabs
        label={`About ${a.name}`}
        tabs={[
          { id: 'details', title: 'Details', panel: () => <AgentDetails agent={a} /> },
          { id: 'access', title: 'Access', panel: () => <PrincipalAccess kind="agent" id={a.id} name={a.name} /> },
        ]}
      />
    </section>
  );
}

type AgentView = Awaited<ReturnType<typeof getAgent>>;
const getAgent = (id: string) => ok(api.GET('/v1/agents/{id}', { params: { path: { id } } }));

function AgentDetails({ agent: a }: { agent: AgentView }) {
  return (
    <>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{a.id}</code>
        </dd>
        <dt>Status</dt>
        <dd>{a.status}</dd>
        <dt>Owner</dt>
        <dd>
          <Link to={`/users/${a.owner}`}>{a.owner}</Link>
        </dd>
        <dt>Roles</dt>
        <dd>{a.roles.join(', ') || '—'}</dd>
        <dt>Labels</dt>
        <dd>{formatLabels(a.labels) || '—'}</dd>
        <dt>Description</dt>
        <dd>{a.description || '—'}</dd>
      </dl>
      <Credentials agentId={a.id} agentRoles={a.roles} active={a.status === 'active'} />
      <Delegations agentId={a.id} />
    </>
  );
}

function KillSwitchReceipt({ receipt }: { receipt: Receipt }) {
  const others = receipt.revoked_issued_for_others;
  return (
    <section className="receipt" role="status" aria-label="Kill-switch receipt">
      <h2>Agent {receipt.status}</h2>
      <ul>
        <li>{receipt.revoked_tokens} tokens revoked</li>
        <li>{receipt.revoked_credentials} credentials revoked</li>
        <li>
          {receipt.ended_sessions.length} sessions ended
          {receipt.ended_sessions.length > 0 && (
            <>
              {': '}
              {receipt.ended_sessions.map((s) => (
                <Link key={s} to={`/sessions/${s}`}>
                  {s}{' '}
                </Link>
              ))}
            </>
          )}
        </li>
        {others && (
          <li>
            Taken back from others: {others.api_keys} API keys, {others.ssh_keys} SSH keys, {others.credentials}{' '}
            credentials, {others.tokens} tokens
          </li>
        )}
      </ul>
    </section>
  );
}

function Delegations({ agentId }: { agentId: string }) {
  const queryClient = useQueryClient();
  const key = ['delegations', agentId];
  const query = useQuery({
    queryKey: key,
    queryFn: () =>
      ok(
        api.GET('/v1/agents/{id}/delegations', {
          params: { path: { id: agentId }, query: { page: 1, per_page: 100 } },
        }),
      ),
  });
  const allow = useMutation({
    mutationFn: () => ok(api.POST('/v1/agents/{id}/delegations', { params: { path: { id: agentId } }, body: {} })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const withdraw = useMutation({
    mutationFn: (userId: string) =>
      ok(api.DELETE('/v1/agents/{id}/delegations/{user_id}', { params: { path: { id: agentId, user_id: userId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  return (
    <section aria-labelledby="delegations">
      <h2 id="delegations">Delegations</h2>
      <p className="muted">Users who let this agent act for them (token exchange).</p>
      <button type="button" onClick={() => allow.mutate()} disabled={allow.isPending}>
        Let this agent act for me
      </button>
      {allow.isError && <ProblemView error={allow.error} title="Not delegated" />}
      {withdraw.isError && <ProblemView error={withdraw.error} title="Not withdrawn" />}
      <QueryTable
        query={query}
        what="delegations"
        label="Delegations"
        items={(data) => data.delegations}
        empty="No delegations."
        headers={['User', 'Since', 'Until', '']}
        row={(d) => (
          <tr key={d.user_id}>
            <td>
              <Link to={`/users/${d.user_id}`}>{d.user_id}</Link>
            </td>
            <td>{new Date(d.created_at).toLocaleString()}</td>
            <td>{d.expires_at ? new Date(d.expires_at).toLocaleString() : 'no end'}</td>
            <td>
              <ConfirmButton
                label={`Withdraw delegation of ${d.user_id}`}
                confirmLabel="Withdraw"
                onConfirm={() => withdraw.mutate(d.user_id)}
              />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
