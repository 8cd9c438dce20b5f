// Sessions: live and ended, filtered on the server (status, principal, server, login, type); a live
// one can be terminated; an ended one is played back (recording.tsx). An app session has no login
// and no recording (its requests are audited one by one): it shows the app's name.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, ok } from '../api/client';
import { ConfirmButton } from '../components/confirm';
import { SelectField, TextField } from '../components/field';
import { Pager, usePage } from '../components/pager';
import { QueryTable } from '../components/query-table';
import { Loading, ProblemView } from '../components/status';
import { useCan } from '../session';
import { LiveView } from './live-view';
import { Recording } from './recording';

const PER_PAGE = 20;
const FILTERS = ['principal', 'server', 'login', 'command', 'text'] as const;

type SessionRow = { type: string; login: string; resource: { name: string } };

/** Where a session went: login@server (or database user@database); an app has no login, its name. */
const whereOf = (s: SessionRow): string => (s.type === 'app' ? s.resource.name : `${s.login}@${s.resource.name}`);

/** Who: the principal, and the user a delegated agent acted for. */
const whoOf = (s: { principal: { name: string }; on_behalf_of?: { name: string } }): string =>
  s.on_behalf_of ? `${s.principal.name} for ${s.on_behalf_of.name}` : s.principal.name;

export function SessionsPage() {
  const [params, setParams] = useSearchParams();
  const page = usePage();
  const status = (params.get('status') ?? '') as '' | 'active' | 'ended' | 'terminated';
  const type = (params.get('type') ?? '') as '' | 'shell' | 'exec' | 'subsystem' | 'sql' | 'port_forward' | 'app';
  const text = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Record<
    (typeof FILTERS)[number],
    string
  >;
  const [inputs, setInputs] = useState(text);
  const query = useQuery({
    queryKey: ['sessions', { page, status, type, ...text }],
    queryFn: () =>
      ok(
        api.GET('/v1/sessions', {
          params: {
            query: {
              page,
              per_page: PER_PAGE,
              ...(status ? { status } : {}),
              ...(type ? { type } : {}),
              ...Object.fromEntries(FILTERS.filter((f) => text[f]).map((f) => [f, text[f]])),
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
    // Live sessions' counters move: keep the list fresh while someone looks at it.
    refetchInterval: status === 'active' ? 5000 : false,
  });
  const setParam = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    next.delete('page');
    setParams(next);
  };
  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams(params);
    for (const f of FILTERS) {
      if (inputs[f].trim()) next.set(f, inputs[f].trim());
      else next.delete(f);
    }
    next.delete('page');
    setParams(next);
  };
  return (
    <section>
      <h1>Sessions</h1>
      <form className="filters" aria-label="Filter sessions" onSubmit={apply}>
        <SelectField
          label="Status"
          value={status}
          onChange={(v) => setParam('status', v)}
          options={[
            ['', 'Any status'],
            ['active', 'Live'],
            ['ended', 'Ended'],
            ['terminated', 'Terminated'],
          ]}
        />
        <SelectField
          label="Type"
          value={type}
          onChange={(v) => setParam('type', v)}
          options={[
            ['', 'Any type'],
            ['shell', 'Shell'],
            ['exec', 'Command'],
            ['subsystem', 'Subsystem (sftp)'],
            ['sql', 'Database (SQL)'],
            ['port_forward', 'Port forward (kubectl)'],
            ['app', 'Application'],
          ]}
        />
        <TextField label="Who" value={inputs.principal} onChange={(v) => setInputs({ ...inputs, principal: v })} />
        <TextField label="Server" value={inputs.server} onChange={(v) => setInputs({ ...inputs, server: v })} />
        <TextField label="Login" value={inputs.login} onChange={(v) => setInputs({ ...inputs, login: v })} />
        <TextField
          label="Command contains"
          value={inputs.command}
          onChange={(v) => setInputs({ ...inputs, command: v })}
          placeholder="e.g. deploy"
          hint="Searches the command lines of ssh host cmd on the server"
        />
        <TextField
          label="Output contains"
          value={inputs.text}
          onChange={(v) => setInputs({ ...inputs, text: v })}
          placeholder="3+ characters"
          hint="Searches what the recordings show, on the server"
        />
        <button type="submit">Search</button>
      </form>
      <QueryTable
        query={query}
        what="sessions"
        label="Sessions"
        items={(d) => d.sessions}
        empty="No sessions match."
        headers={['Session', 'Who', 'Where', 'Type', 'Status', 'Started']}
        row={(s) => (
          <tr key={s.id}>
            <td>
              <Link to={`/sessions/${s.id}`}>{s.id}</Link>
            </td>
            <td>{whoOf(s)}</td>
            <td>{whereOf(s)}</td>
            <td>{s.command ? `${s.type}: ${s.command}` : s.type}</td>
            <td>{s.status === 'active' ? 'live' : s.status}</td>
            <td>{new Date(s.started_at).toLocaleString()}</td>
          </tr>
        )}
        footer={(d) => <Pager total={d.pagination.total} page={page} perPage={PER_PAGE} />}
      />
    </section>
  );
}

export function SessionPage() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const canTerminate = useCan('sessions', 'delete');
  const canWatch = useCan('recordings', 'read');
  const query = useQuery({
    queryKey: ['session', id],
    queryFn: () => ok(api.GET('/v1/sessions/{id}', { params: { path: { id } } })),
    refetchInterval: (q) =>
      q.state.data?.status === 'active' || q.state.data?.recording.status === 'pending' ? 2000 : false,
  });
  const terminate = useMutation({
    mutationFn: () => ok(api.DELETE('/v1/sessions/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['session', id] });
      void queryClient.invalidateQueries({ queryKey: ['sessions'] });
    },
  });
  if (query.isPending) return <Loading what="the session" />;
  if (query.isError) return <ProblemView error={query.error} />;
  const s = query.data;
  return (
    <section>
      <p>
        <Link to="/sessions">← Sessions</Link>
      </p>
      <div className="title-row">
        <h1>{s.type === 'app' ? `App ${s.resource.name}` : whereOf(s)}</h1>
        {canTerminate && s.status === 'active' && (
          <ConfirmButton label="Terminate session" confirmLabel="Terminate now" onConfirm={() => terminate.mutate()} />
        )}
      </div>
      {terminate.isError && <ProblemView error={terminate.error} title="Not terminated" />}
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{s.id}</code>
        </dd>
        <dt>Status</dt>
        <dd data-testid="session-status">{s.status === 'active' ? 'live' : s.status}</dd>
        <dt>Who</dt>
        <dd>
          {s.principal.name} ({s.principal.kind}){s.on_behalf_of && ` for ${s.on_behalf_of.name}`}
        </dd>
        <dt>Type</dt>
        <dd>{s.command ? `${s.type}: ${s.command}` : s.type}</dd>
        <dt>Started</dt>
        <dd>{new Date(s.started_at).toLocaleString()}</dd>
        <dt>Ended</dt>
        <dd>{s.ended_at ? new Date(s.ended_at).toLocaleString() : '—'}</dd>
        {s.end_reason && (
          <>
            <dt>End reason</dt>
            <dd>{s.end_reason}</dd>
          </>
        )}
        <dt>Bytes in / out</dt>
        <dd>
          {s.bytes_in} / {s.bytes_out}
        </dd>
        {s.type !== 'app' && (
          <>
            <dt>Exit code</dt>
            <dd>{s.exit_code ?? '—'}</dd>
          </>
        )}
        <dt>Recording</dt>
        <dd>{s.type === 'app' ? 'none (each request is in the audit log as app.request)' : s.recording.status}</dd>
      </dl>
      {s.recording.status === 'uploaded' ? (
        <Recording sessionId={s.id} startedAt={s.started_at} />
      ) : s.status === 'active' && s.recording.status === 'recording' && canWatch ? (
        <LiveView sessionId={s.id} />
      ) : s.status === 'active' ? (
        <p className="muted">The recording can be played once the session has ended.</p>
      ) : s.recording.status === 'pending' ? (
        <p role="status">The recording is being stored; it plays as soon as it is.</p>
      ) : null}
    </section>
  );
}
