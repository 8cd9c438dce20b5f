// Register a resource of any kind with all its fields: a server, a database (protocol, and how
// Gatehouse logs in: users with passwords, the read-only login, TLS with its CA and a client
// certificate), an app, a Kubernetes cluster (API server, CA, token or client certificate).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, type Body, ok } from '../api/client';
import { SelectField, TextField } from './field';
import { PanelForm } from './form-panel';
import { parseLabels } from './labels';
import { DbFields, dbBody, emptyDb, emptyKube, KubeFields, kubeBody } from './upstream-fields';

type Kind = 'server' | 'database' | 'app' | 'kube_cluster';

export function RegisterResource({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [kind, setKind] = useState<Kind>('server');
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const [protocol, setProtocol] = useState('postgres');
  const [uri, setUri] = useState('');
  const [labels, setLabels] = useState('');
  const [description, setDescription] = useState('');
  const [kube, setKube] = useState(emptyKube);
  const [db, setDb] = useState(emptyDb);
  const mutation = useMutation({
    mutationFn: () => {
      const dbFields = kind === 'database' ? dbBody(db) : undefined;
      const body: Body<'/v1/resources', 'post'> = {
        kind,
        name,
        labels: parseLabels(labels),
        ...(description ? { description } : {}),
        ...(kind === 'app' ? { uri } : { address }),
        ...(kind === 'database' ? { protocol: protocol as 'postgres' } : {}),
        ...(dbFields ? { db: dbFields } : {}),
        ...(kind === 'kube_cluster' ? { kube: kubeBody(kube) } : {}),
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
          ['kube_cluster', 'Kubernetes cluster'],
        ]}
      />
      <TextField label="Resource name" path="/body/name" problem={p} value={name} onChange={setName} required />
      {kind === 'app' ? (
        <TextField label="URI" path="/body/uri" problem={p} value={uri} onChange={setUri} placeholder="https://…" />
      ) : (
        <TextField
          label={kind === 'kube_cluster' ? 'API server' : 'Address'}
          path="/body/address"
          problem={p}
          value={address}
          onChange={setAddress}
          placeholder={kind === 'kube_cluster' ? 'https://host:6443' : 'host:port'}
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
      {kind === 'database' && <DbFields draft={db} set={setDb} problem={p} />}
      {kind === 'kube_cluster' && <KubeFields draft={kube} set={setKube} problem={p} />}
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
