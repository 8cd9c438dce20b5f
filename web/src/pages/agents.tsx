// Agents: list with status, owner, name and label filters; create one with its owner and roles.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, ok } from '../api/client';
import { SelectField, TextField } from '../components/field';
import { PanelForm, TitleWithForm } from '../components/form-panel';
import { formatLabels, parseLabels, parseList } from '../components/labels';
import { Pager, usePage } from '../components/pager';
import { useRoleNames, userIdOf, useUserNames } from '../components/pickers';
import { QueryTable } from '../components/query-table';
import { TokenInput } from '../components/token-input';
import { useCan } from '../session';

const PER_PAGE = 20;
type Status = 'active' | 'suspended' | 'revoked';

export function AgentsPage() {
  const [params, setParams] = useSearchParams();
  const page = usePage();
  const status = (params.get('status') ?? '') as Status | '';
  const name = params.get('name') ?? '';
  const owner = params.get('owner') ?? '';
  const label = params.getAll('label');
  const [nameInput, setNameInput] = useState(name);
  const [ownerInput, setOwnerInput] = useState(owner);
  const [labelInput, setLabelInput] = useState(label.join(', '));
  const canCreate = useCan('agents', 'create');
  const query = useQuery({
    queryKey: ['agents', { page, status, name, owner, label }],
    queryFn: () =>
      ok(
        api.GET('/v1/agents', {
          params: {
            query: {
              page,
              per_page: PER_PAGE,
              ...(status ? { status } : {}),
              ...(name ? { name } : {}),
              ...(owner ? { owner } : {}),
              ...(label.length ? { label } : {}),
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    if (status) next.set('status', status);
    if (nameInput.trim()) next.set('name', nameInput.trim());
    if (ownerInput.trim()) next.set('owner', ownerInput.trim());
    for (const l of parseList(labelInput)) next.append('label', l);
    setParams(next);
  };
  return (
    <section>
      <TitleWithForm
        title="Agents"
        button="Create an agent"
        allowed={canCreate}
        form={(close) => <CreateAgent onDone={close} />}
      />
      <form className="filters" aria-label="Filter agents" onSubmit={apply}>
        <SelectField
          label="Status"
          value={status}
          onChange={(v) => {
            const next = new URLSearchParams(params);
            if (v) next.set('status', v);
            else next.delete('status');
            next.delete('page');
            setParams(next);
          }}
          options={[
            ['', 'Any status'],
            ['active', 'Active'],
            ['suspended', 'Suspended'],
            ['revoked', 'Revoked'],
          ]}
        />
        <TextField label="Name" value={nameInput} onChange={setNameInput} placeholder="exact name" />
        <TextField label="Owner" value={ownerInput} onChange={setOwnerInput} placeholder="user_…" />
        <TextField label="Labels" value={labelInput} onChange={setLabelInput} placeholder="team=infra" />
        <button type="submit">Search</button>
      </form>
      <QueryTable
        query={query}
        what="agents"
        label="Agents"
        items={(d) => d.agents}
        empty="No agents match."
        headers={['Name', 'Status', 'Owner', 'Roles', 'Labels', 'Last used']}
        row={(a) => (
          <tr key={a.id}>
            <td>
              <Link to={`/agents/${a.id}`}>{a.name}</Link>
            </td>
            <td>{a.status}</td>
            <td>
              <code>{a.owner}</code>
            </td>
            <td>{a.roles.join(', ')}</td>
            <td>{formatLabels(a.labels)}</td>
            <td>{a.last_used_at ? new Date(a.last_used_at).toLocaleString() : 'never'}</td>
          </tr>
        )}
        footer={(d) => <Pager total={d.pagination.total} page={page} perPage={PER_PAGE} />}
      />
    </section>
  );
}

function CreateAgent({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [roles, setRoles] = useState<string[]>([]);
  const [owner, setOwner] = useState('');
  const roleNames = useRoleNames();
  const userNames = useUserNames();
  const [description, setDescription] = useState('');
  const [labels, setLabels] = useState('');
  const mutation = useMutation({
    mutationFn: async () =>
      ok(
        api.POST('/v1/agents', {
          body: {
            name,
            roles,
            // Picked by name; the API takes the user's id.
            ...(owner.trim() ? { owner: await userIdOf(owner.trim()) } : {}),
            ...(description ? { description } : {}),
            ...(labels.trim() ? { labels: parseLabels(labels) } : {}),
          },
        }),
      ),
    onSuccess: (agent) => {
      void queryClient.invalidateQueries({ queryKey: ['agents'] });
      onDone();
      navigate(`/agents/${agent.id}`);
    },
  });
  const p = mutation.error;
  return (
    <PanelForm label="Create an agent" mutation={mutation} submit="Create agent" failed="Not created" onCancel={onDone}>
      <TextField label="Agent name" path="/body/name" problem={p} value={name} onChange={setName} required />
      <TokenInput
        label="Roles"
        path="/body/roles"
        problem={p}
        values={roles}
        onChange={setRoles}
        suggestions={roleNames}
        placeholder="auditor"
      />
      <TextField
        label="Owner"
        path="/body/owner"
        problem={p}
        value={owner}
        onChange={setOwner}
        list="owner-names"
        placeholder="a user's name (default: you)"
      />
      <datalist id="owner-names">
        {userNames.map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
      <TextField
        label="Description"
        path="/body/description"
        problem={p}
        value={description}
        onChange={setDescription}
      />
      <TextField
        label="Labels"
        path="/body/labels"
        problem={p}
        value={labels}
        onChange={setLabels}
        placeholder="team=infra"
      />
    </PanelForm>
  );
}
