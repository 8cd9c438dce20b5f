// Approvals of held MCP tool calls (docs/mcp.md): the list of those that concern the signed-in
// person (hers, her agents', or ones she may decide; the API chooses), and one approval's page —
// the URL an MCP client is sent to (`/approvals/<id>`) — with Approve and Deny. Whether she may
// decide is the API's answer (she must cover the requester's rights, and never be the requester):
// the page shows what it says, and hides the buttons only from the requester, whom it always refuses.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, ok } from '../api/client';
import { type Approval, Arguments, Chain, listApprovals, When } from '../components/approval-parts';
import { SelectField } from '../components/field';
import { Pager, usePage } from '../components/pager';
import { QueryTable } from '../components/query-table';
import { Empty, Loading, ProblemView } from '../components/status';
import { useSession } from '../session';

const PER_PAGE = 20;
type Status = Approval['status'];

export function ApprovalsPage() {
  const [params, setParams] = useSearchParams();
  const page = usePage();
  // Pending by default: what waits on someone. "any" shows decided and used ones too.
  const status = (params.get('status') ?? 'pending') as Status | 'any';
  const query = useQuery({
    queryKey: ['approvals', { page, status }],
    queryFn: () => listApprovals({ page, per_page: PER_PAGE, ...(status !== 'any' ? { status } : {}) }),
    placeholderData: keepPreviousData,
    // A held call waits on this page: keep it fresh while someone looks.
    refetchInterval: 5000,
  });
  return (
    <section>
      <h1>Approvals</h1>
      <p className="muted">
        MCP tool calls Gatehouse holds until someone who covers the requester's rights approves them. An approval is for
        exactly these arguments, once, until it expires.
      </p>
      <form className="filters" aria-label="Filter approvals" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label="Status"
          value={status}
          onChange={(v) => setParams(v === 'pending' ? {} : { status: v })}
          options={[
            ['pending', 'Pending'],
            ['approved', 'Approved'],
            ['denied', 'Denied'],
            ['used', 'Used'],
            ['any', 'Any status'],
          ]}
        />
      </form>
      <QueryTable
        query={query}
        what="approvals"
        label="Approvals"
        items={(d) => d.approvals}
        empty={status === 'pending' ? 'No call waits for an approval.' : 'No approval matches.'}
        headers={['Tool', 'Who asks', 'Arguments', 'Status', 'Expires']}
        row={(a) => (
          <tr key={a.id}>
            <td>
              <Link to={`/approvals/${a.id}`} aria-label={`${a.tool} on ${a.app.name} (${a.id})`}>
                {a.tool}
              </Link>{' '}
              <span className="muted">on {a.app.name}</span>
            </td>
            <td>
              <Chain approval={a} />
            </td>
            <td>
              <Arguments shown={a.shown} label={`Arguments of ${a.id}`} />
            </td>
            <td>{a.status}</td>
            <td>
              <When at={a.expires_at} />
            </td>
          </tr>
        )}
        footer={(d) => <Pager total={d.pagination.total} page={page} perPage={PER_PAGE} />}
      />
    </section>
  );
}

/**
 * One approval (GET /v1/approvals/{id}); null when the API answers 404: it expired, never existed,
 * or does not concern the signed-in person, which the API does not tell apart.
 */
async function findApproval(id: string): Promise<Approval | null> {
  const answer = await api.GET('/v1/approvals/{id}', { params: { path: { id } } });
  if (answer.response.status === 404) return null;
  return ok(Promise.resolve(answer));
}

export function ApprovalPage() {
  const { id = '' } = useParams();
  const session = useSession();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ['approval', id], queryFn: () => findApproval(id) });
  const decide = useMutation({
    mutationFn: (verdict: 'approve' | 'deny') =>
      ok(
        verdict === 'approve'
          ? api.POST('/v1/approvals/{id}/approve', { params: { path: { id } } })
          : api.POST('/v1/approvals/{id}/deny', { params: { path: { id } } }),
      ),
    onSuccess: (decided) => {
      queryClient.setQueryData(['approval', id], decided);
      void queryClient.invalidateQueries({ queryKey: ['approvals'] });
    },
  });
  if (query.isPending) return <Loading what="the approval" />;
  if (query.isError) return <ProblemView error={query.error} />;
  const back = (
    <p>
      <Link to="/approvals">← Approvals</Link>
    </p>
  );
  const a = query.data;
  if (!a)
    return (
      <section>
        {back}
        <Empty>
          No approval {id} that concerns you: it expired, or it is not yours to see (yours, your agents', or one you may
          decide).
        </Empty>
      </section>
    );
  const mine = session.principal.kind === a.requester.kind && session.principal.id === a.requester.id;
  return (
    <section>
      {back}
      <h1>
        Approve {a.tool} on {a.app.name}?
      </h1>
      <dl className="facts">
        <dt>Status</dt>
        <dd>{a.status}</dd>
        <dt>Who asks</dt>
        <dd>
          <Chain approval={a} />
        </dd>
        <dt>Tool</dt>
        <dd>
          <code>{a.tool}</code> on {a.app.name}
        </dd>
        <dt>Arguments</dt>
        <dd>
          <Arguments shown={a.shown} label="Arguments" />
        </dd>
        <dt>Call digest</dt>
        <dd>
          <code>{a.digest}</code>
        </dd>
        <dt>Asked</dt>
        <dd>
          <When at={a.created_at} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <When at={a.expires_at} />
        </dd>
        {a.decided_by && (
          <>
            <dt>Decided by</dt>
            <dd>
              {a.decided_by.name} {a.decided_at && <When at={a.decided_at} />}
            </dd>
          </>
        )}
      </dl>
      {a.status !== 'pending' ? null : mine ? (
        <Empty>You asked for this call: someone who covers your rights must approve it, not you.</Empty>
      ) : (
        <div className="row">
          <button type="button" disabled={decide.isPending} onClick={() => decide.mutate('approve')}>
            Approve
          </button>
          <button type="button" disabled={decide.isPending} onClick={() => decide.mutate('deny')}>
            Deny
          </button>
        </div>
      )}
      {decide.isError && <ProblemView error={decide.error} title="Not decided" />}
    </section>
  );
}
