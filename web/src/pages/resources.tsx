// Servers, databases and apps: server-side paging, kind and label filters, exact-name search;
// register and delete; a server's detail shows Gatehouse's SSH key for it and the pinned host key.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, type Body, ok } from '../api/client';
import { ConfirmButton } from '../components/confirm';
import { SelectField, TextField } from '../components/field';
import { formatLabels, parseLabels } from '../components/labels';
import { Pager, usePage } from '../components/pager';
import { CopyButton } from '../components/secret';
import { Empty, Loading, ProblemView } from '../components/status';
import { useCan } from '../session';

type Kind = 'server' | 'database' | 'app';
const PER_PAGE = 20;

export function ResourcesPage() {
  const [params, setParams] = useSearchParams();
  const page = usePage();
  const kind = (params.get('kind') ?? '') as Kind | '';
  const name = params.get('name') ?? '';
  const labels = params.getAll('label');
  const canCreate = useCan('resources', 'create');
  const [registering, setRegistering] = useState(false);
  const query = useQuery({
    queryKey: ['resources', { page, kind, name, labels }],
    queryFn: () =>
      ok(
        api.GET('/v1/resources', {
          params: {
            query: {
              page,
              per_page: PER_PAGE,
              ...(kind ? { kind } : {}),
              ...(name ? { name } : {}),
              ...(labels.length ? { label: labels } : {}),
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const setFilter = (mutate: (p: URLSearchParams) => void) => {
    const next = new URLSearchParams(params);
    mutate(next);
    next.delete('page');
    setParams(next);
  };
  return (
    <section>
      <div className="title-row">
        <h1>Resources</h1>
        {canCreate && (
          <button type="button" onClick={() => setRegistering((r) => !r)} aria-expanded={registering}>
            Register a resource
          </button>
        )}
      </div>
      {registering && <RegisterResource onDone={() => setRegistering(false)} />}
      <ResourceFilters
        kind={kind}
        name={name}
        labels={labels}
        onKind={(k) => setFilter((p) => (k ? p.set('kind', k) : p.delete('kind')))}
        onName={(n) => setFilter((p) => (n ? p.set('name', n) : p.delete('name')))}
        onLabels={(ls) =>
          setFilter((p) => {
            p.delete('label');
            for (const l of ls) p.append('label', l);
          })
        }
      />
      {query.isPending ? (
        <Loading what="resources" />
      ) : query.isError ? (
        <ProblemView error={query.error} />
      ) : query.data.resources.length === 0 ? (
        <Empty>No resources match.{canCreate ? ' Register one above.' : ''}</Empty>
      ) : (
        <>
          <table aria-label="Resources">
            <thead>
              <tr>
                <th>Name</th>
                <th>Kind</th>
                <th>Address</th>
                <th>Labels</th>
              </tr>
            </thead>
            <tbody>
              {query.data.resources.map((r) => (
                <tr key={r.id}>
                  <td>
                    <Link to={`/resources/${r.id}`}>{r.name}</Link>
                  </td>
                  <td>{r.kind}</td>
                  <td>{r.address ?? r.uri ?? ''}</td>
                  <td>{formatLabels(r.labels)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager total={query.data.pagination.total} page={page} perPage={PER_PAGE} />
        </>
      )}
    </section>
  );
}

function ResourceFilters(props: {
  kind: string;
  name: string;
  labels: string[];
  onKind: (k: string) => void;
  onName: (n: string) => void;
  onLabels: (l: string[]) => void;
}) {
  const [name, setName] = useState(props.name);
  const [label, setLabel] = useState('');
  return (
    <form
      className="filters"
      aria-label="Filter resources"
      onSubmit={(e) => {
        e.preventDefault();
        props.onName(name.trim());
        const l = label.trim();
        if (l.includes('=') && !props.labels.includes(l)) props.onLabels([...props.labels, l]);
        setLabel('');
      }}
    >
      <SelectField
        label="Kind"
        value={props.kind}
        onChange={props.onKind}
        options={[
          ['', 'All kinds'],
          ['server', 'Servers'],
          ['database', 'Databases'],
          ['app', 'Apps'],
        ]}
      />
      <TextField label="Name" value={name} onChange={setName} placeholder="exact name" />
      <TextField label="Add label filter" value={label} onChange={setLabel} placeholder="env=dev" />
      <button type="submit">Search</button>
      {props.labels.map((l) => (
        <button
          key={l}
          type="button"
          className="chip"
          aria-label={`Remove label filter ${l}`}
          onClick={() => props.onLabels(props.labels.filter((x) => x !== l))}
        >
          {l} ×
        </button>
      ))}
    </form>
  );
}

function RegisterResource({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [kind, setKind] = useState<Kind>('server');
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const [protocol, setProtocol] = useState('postgres');
  const [uri, setUri] = useState('');
  const [labels, setLabels] = useState('');
  const [description, setDescription] = useState('');
  const mutation = useMutation({
    mutationFn: () => {
      const body: Body<'/v1/resources', 'post'> = {
        kind,
        name,
        labels: parseLabels(labels),
        ...(description ? { description } : {}),
        ...(kind === 'app' ? { uri } : { address }),
        ...(kind === 'database' ? { protocol: protocol as 'postgres' } : {}),
      };
      return ok(api.POST('/v1/resources', { body }));
    },
    onSuccess: (created) => {
      void queryClient.invalidateQueries({ queryKey: ['resources'] });
      onDone();
      navigate(`/resources/${created.id}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    mutation.mutate();
  };
  const p = mutation.error;
  return (
    <form className="panel" aria-label="Register a resource" onSubmit={submit}>
      <SelectField
        label="Resource kind"
        value={kind}
        onChange={(k) => setKind(k as Kind)}
        options={[
          ['server', 'Server (SSH)'],
          ['database', 'Database'],
          ['app', 'App (HTTP)'],
        ]}
      />
      <TextField label="Resource name" path="/body/name" problem={p} value={name} onChange={setName} required />
      {kind === 'app' ? (
        <TextField label="URI" path="/body/uri" problem={p} value={uri} onChange={setUri} placeholder="https://…" />
      ) : (
        <TextField
          label="Address"
          path="/body/address"
          problem={p}
          value={address}
          onChange={setAddress}
          placeholder="host:port"
        />
      )}
      {kind === 'database' && (
        <SelectField
          label="Protocol"
          value={protocol}
          onChange={setProtocol}
          options={['postgres', 'mysql', 'mongodb', 'redis'].map((x) => [x, x])}
        />
      )}
      <TextField
        label="Labels"
        path="/body/labels"
        problem={p}
        value={labels}
        onChange={setLabels}
        placeholder="env=dev, team=infra"
      />
      <TextField
        label="Description"
        path="/body/description"
        problem={p}
        value={description}
        onChange={setDescription}
      />
      <div className="row">
        <button type="submit" disabled={mutation.isPending}>
          Register
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {mutation.isError && <ProblemView error={mutation.error} title="Not registered" inline />}
    </form>
  );
}

export function ResourcePage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const canDelete = useCan('resources', 'delete');
  const canUpdate = useCan('resources', 'update');
  const query = useQuery({
    queryKey: ['resource', id],
    queryFn: () => ok(api.GET('/v1/resources/{id}', { params: { path: { id } } })),
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/v1/resources/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['resources'] });
      navigate('/resources');
    },
  });
  const resetPin = useMutation({
    mutationFn: () => ok(api.DELETE('/v1/resources/{id}/ssh-host-key', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['resource', id] }),
  });
  if (query.isPending) return <Loading what="the resource" />;
  if (query.isError) return <ProblemView error={query.error} />;
  const r = query.data;
  return (
    <section>
      <p>
        <Link to="/resources">← Resources</Link>
      </p>
      <div className="title-row">
        <h1>{r.name}</h1>
        {canDelete && (
          <ConfirmButton label="Delete resource" confirmLabel={`Delete ${r.name}`} onConfirm={() => remove.mutate()} />
        )}
      </div>
      {remove.isError && <ProblemView error={remove.error} title="Not deleted" />}
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{r.id}</code>
        </dd>
        <dt>Kind</dt>
        <dd>{r.kind}</dd>
        {r.address && (
          <>
            <dt>Address</dt>
            <dd>{r.address}</dd>
          </>
        )}
        {r.protocol && (
          <>
            <dt>Protocol</dt>
            <dd>{r.protocol}</dd>
          </>
        )}
        {r.uri && (
          <>
            <dt>URI</dt>
            <dd>{r.uri}</dd>
          </>
        )}
        <dt>Labels</dt>
        <dd>{formatLabels(r.labels) || '—'}</dd>
        <dt>Description</dt>
        <dd>{r.description || '—'}</dd>
        <dt>Created</dt>
        <dd>{new Date(r.created_at).toLocaleString()}</dd>
      </dl>
      {r.kind === 'server' && (
        <>
          <h2>SSH</h2>
          <p>
            Add Gatehouse's key for this server to <code>~/.ssh/authorized_keys</code> of each login people may use:
          </p>
          {r.ssh_public_key ? (
            <div className="row">
              <section aria-label="Gatehouse's SSH public key for this server">
                <pre className="secret">{r.ssh_public_key}</pre>
              </section>
              <CopyButton text={r.ssh_public_key} label="Copy public key" />
            </div>
          ) : (
            <Empty>No key yet.</Empty>
          )}
          <h3>Host key</h3>
          {r.ssh_host_key_fingerprint ? (
            <p>
              Pinned ({r.ssh_host_key_pinned === 'registered' ? 'given at registration' : 'seen on first connection'}):{' '}
              <code>{r.ssh_host_key_fingerprint}</code>
            </p>
          ) : (
            <p>Not pinned yet: the key seen on the first connection will be.</p>
          )}
          {canUpdate && r.ssh_host_key_fingerprint && (
            <ConfirmButton
              label="Reset host-key pin"
              confirmLabel="Accept the next host key seen"
              onConfirm={() => resetPin.mutate()}
            />
          )}
          {resetPin.isError && <ProblemView error={resetPin.error} title="Pin not reset" />}
        </>
      )}
    </section>
  );
}
