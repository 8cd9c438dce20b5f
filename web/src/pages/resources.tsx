// Servers, databases, apps and Kubernetes clusters: server-side paging, kind and label filters, text search;
// register one (its page, resource.tsx, shows and edits it).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, ok } from '../api/client';
import { SelectField, TextField } from '../components/field';
import { TitleWithForm } from '../components/form-panel';
import { formatLabels } from '../components/labels';
import { Pager, usePage } from '../components/pager';
import { QueryTable } from '../components/query-table';
import { RegisterResource } from '../components/register-resource';
import { useCan } from '../session';

type Kind = 'server' | 'database' | 'app' | 'kube_cluster';
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
          ['kube_cluster', 'Kubernetes clusters'],
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
