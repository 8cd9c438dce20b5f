// One resource: its details, the Connect panel filled for the signed-in person, Gatehouse's SSH key for a server (to copy) and its pinned host key
// (and the pin's reset); edit (PATCH: description, labels, where it is, and a cluster's or database's
// credentials replaced: rotate a token or a password) and delete.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, type Body, ok } from '../api/client';
import { ConfirmButton } from '../components/confirm';
import { ConnectPanel } from '../components/connect-panel';
import { SelectField, TextField } from '../components/field';
import { FormToggle, PanelForm } from '../components/form-panel';
import { formatLabels, parseLabels } from '../components/labels';
import { CopyButton } from '../components/secret';
import { Empty, Loading, ProblemView } from '../components/status';
import {
  type DbDraft,
  DbFields,
  dbBody,
  emptyDb,
  emptyKube,
  type KubeDraft,
  KubeFields,
  kubeBody,
} from '../components/upstream-fields';
import { UpstreamFacts } from '../components/upstream-summary';
import { useCan } from '../session';

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
  const [editing, setEditing] = useState(false);
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
        {canUpdate && (
          <FormToggle open={editing} onToggle={() => setEditing((e) => !e)}>
            Edit resource
          </FormToggle>
        )}
        {canDelete && (
          <ConfirmButton label="Delete resource" confirmLabel={`Delete ${r.name}`} onConfirm={() => remove.mutate()} />
        )}
      </div>
      {remove.isError && <ProblemView error={remove.error} title="Not deleted" />}
      {editing && <EditResource resource={r} onDone={() => setEditing(false)} />}
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
        <UpstreamFacts resource={r} />
        <dt>Labels</dt>
        <dd>{formatLabels(r.labels) || '—'}</dd>
        <dt>Description</dt>
        <dd>{r.description || '—'}</dd>
        <dt>Created</dt>
        <dd>{new Date(r.created_at).toLocaleString()}</dd>
      </dl>
      <ConnectPanel resource={r} />
      {r.kind === 'server' && canUpdate && (
        <>
          <h2>Gatehouse's key on the server</h2>
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

type ResourceView = Awaited<ReturnType<typeof getResource>>;
const getResource = (id: string) => ok(api.GET('/v1/resources/{id}', { params: { path: { id } } }));

/**
 * Changes what PATCH allows; the kind decides which of address, protocol and URI apply. A cluster's or
 * a database's credentials are write-only: replacing them sends the whole set again (the server
 * replaces the sealed ones whole), so the fields start empty and are sent only when asked.
 */
function EditResource({ resource: r, onDone }: { resource: ResourceView; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [description, setDescription] = useState(r.description);
  const [labels, setLabels] = useState(formatLabels(r.labels));
  const [address, setAddress] = useState(r.address ?? '');
  const [uri, setUri] = useState(r.uri ?? '');
  const [protocol, setProtocol] = useState<string>(r.protocol ?? 'postgres');
  const holdsCredentials = r.kind === 'kube_cluster' || r.kind === 'database';
  const [replacing, setReplacing] = useState(false);
  const [kube, setKube] = useState<KubeDraft>(emptyKube);
  const [db, setDb] = useState<DbDraft>(emptyDb);
  const save = useMutation({
    mutationFn: () => {
      const body: Body<'/v1/resources/{id}', 'patch'> = {
        description,
        labels: parseLabels(labels),
        ...(r.kind === 'app' ? { uri } : { address }),
        ...(r.kind === 'database' ? { protocol: protocol as 'postgres' } : {}),
        // An empty database draft replaces the credentials with none (a loopback database needs none).
        ...(replacing && r.kind === 'kube_cluster' ? { kube: kubeBody(kube) } : {}),
        ...(replacing && r.kind === 'database' ? { db: dbBody(db) ?? {} } : {}),
      };
      return ok(api.PATCH('/v1/resources/{id}', { params: { path: { id: r.id } }, body }));
    },
    onSuccess: (updated) => {
      queryClient.setQueryData(['resource', r.id], updated);
      void queryClient.invalidateQueries({ queryKey: ['resources'] });
      onDone();
    },
  });
  const p = save.error;
  return (
    <PanelForm label="Edit resource" mutation={save} submit="Save changes" failed="Not saved" onCancel={onDone}>
      {r.kind === 'app' ? (
        <TextField label="URI" path="/body/uri" problem={p} value={uri} onChange={setUri} />
      ) : (
        <TextField label="Address" path="/body/address" problem={p} value={address} onChange={setAddress} />
      )}
      {r.kind === 'database' && (
        <SelectField
          label="Protocol"
          value={protocol}
          onChange={setProtocol}
          options={['postgres', 'mysql', 'mongodb', 'redis'].map((x) => [x, x])}
        />
      )}
      <TextField label="Labels" path="/body/labels" problem={p} value={labels} onChange={setLabels} />
      <TextField
        label="Description"
        path="/body/description"
        problem={p}
        value={description}
        onChange={setDescription}
      />
      {holdsCredentials && (
        <label>
          <input type="checkbox" checked={replacing} onChange={(e) => setReplacing(e.target.checked)} /> Replace the
          credentials (rotate a token or a password: give the whole set again; a new address needs them too)
        </label>
      )}
      {replacing && r.kind === 'kube_cluster' && <KubeFields draft={kube} set={setKube} problem={p} />}
      {replacing && r.kind === 'database' && <DbFields draft={db} set={setDb} problem={p} />}
    </PanelForm>
  );
}
