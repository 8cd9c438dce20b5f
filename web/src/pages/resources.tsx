// Servers, databases and apps: server-side paging, kind and label filters, text search;
// register one (its page, resource.tsx, shows and edits it).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, type Body, ok } from '../api/client';
import { SelectField, TextField } from '../components/field';
import { PanelForm, TitleWithForm } from '../components/form-panel';
import { formatLabels, parseLabels } from '../components/labels';
import { Pager, usePage } from '../components/pager';
import { QueryTable } from '../components/query-table';
import { useCan } from '../session';

type Kind = 'server' | 'database' | 'app';
const PER_PAGE = 20;

export function ResourcesPage() {
  const [params, setParams] = useSearchParams();
  const page = usePage();
  const kind = (params.get('kind') ?? '') as Kind | '';
  const search = params.get('search') ?? '';
  const labels = params.getAll('label');
  const canCreate = useCan('resources', 'create');
  const query = useQuery({
    queryKey: ['resources', { page, kind, search, labels }],
    queryFn: () =>
      ok(
        api.GET('/v1/resources', {
          params: {
            query: {
              page,
              per_page: PER_PAGE,
              ...(kind ? { kind } : {}),
              ...(search ? { search } : {}),
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
      <TitleWithForm
        title="Resources"
        button="Register a resource"
        allowed={canCreate}
        form={(close) => <RegisterResource onDone={close} />}
      />
      <ResourceFilters
        kind={kind}
        search={search}
        labels={labels}
        onKind={(k) => setFilter((p) => (k ? p.set('kind', k) : p.delete('kind')))}
        onSearch={(n) => setFilter((p) => (n ? p.set('search', n) : p.delete('search')))}
        onLabels={(ls) =>
          setFilter((p) => {
            p.delete('label');
            for (const l of ls) p.append('label', l);
          })
        }
      />
      <QueryTable
        query={query}
        what="resources"
        label="Resources"
        items={(d) => d.resources}
        empty={<>No resources match.{canCreate ? ' Register one above.' : ''}</>}
        headers={['Name', 'Kind', 'Address', 'Labels']}
        row={(r) => (
          <tr key={r.id}>
            <td>
              <Link to={`/resources/${r.id}`}>{r.name}</Link>
            </td>
            <td>{r.kind}</td>
            <td>{r.address ?? r.uri ?? ''}</td>
            <td>{formatLabels(r.labels)}</td>
          </tr>
        )}
        footer={(d) => <Pager total={d.pagination.total} page={page} perPage={PER_PAGE} />}
      />
    </section>
  );
}

function ResourceFilters(props: {
  kind: string;
  search: string;
  labels: string[];
  onKind: (k: string) => void;
  onSearch: (n: string) => void;
  onLabels: (l: string[]) => void;
}) {
  const [search, setSearch] = useState(props.search);
  const [label, setLabel] = useState('');
  return (
    <form
      className="filters"
      aria-label="Filter resources"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSearch(search.trim());
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
      <TextField label="Search" value={search} onChange={setSearch} placeholder="name, address or label" />
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
  const p = mutation.error;
  return (
    <PanelForm
      label="Register a resource"
      mutation={mutation}
      submit="Register"
      failed="Not registered"
      onCancel={onDone}
    >
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
    </PanelForm>
  );
}
