// Connect to a Kubernetes cluster: as whom the proxy will act for the person there, a kubeconfig to
// download (by the cluster's name, with a short-lived token of hers) and the gatehouse client's login.
import { useMutation } from '@tanstack/react-query';
import { download } from '../api/client';
import { Command, type MyResourceAccess } from './connect-common';
import { ProblemView } from './status';

export function ConnectKube({ access }: { access: MyResourceAccess }) {
  const get = useMutation({
    mutationFn: () =>
      download(`/v1/resources/${encodeURIComponent(access.name)}/kubeconfig`, `${access.name}.kubeconfig`),
  });
  return (
    <>
      <dl className="facts">
        <dt>Kubernetes user</dt>
        <dd>{access.kube_users.join(', ') || '—'}</dd>
        <dt>Kubernetes groups</dt>
        <dd>{access.kube_groups.join(', ') || '—'}</dd>
      </dl>
      <p>
        <button type="button" onClick={() => get.mutate()} disabled={get.isPending}>
          Download kubeconfig
        </button>{' '}
        <span className="muted">its token expires like a sign-in; download again when it does.</span>
      </p>
      {get.isError && <ProblemView error={get.error} title="No kubeconfig" />}
      <Command label="kubectl command" text={`KUBECONFIG=${access.name}.kubeconfig kubectl get pods`} />
      <p>With the gatehouse client (a context in your kubeconfig that refreshes itself):</p>
      <Command label="gatehouse command" text={`gatehouse kube login ${access.name}`} />
    </>
  );
}
