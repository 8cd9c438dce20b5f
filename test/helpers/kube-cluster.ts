// The setup every Kubernetes proxy test shares: the fake API server registered as a kube_cluster
// through the API, the role fragment that lets a user see it, audit events by type, and kubeconfigs
// issued by the API written into a fresh HOME for kubectl.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeKube } from './fake-kube-apiserver.js';
import { requestsTo, type TestServer } from './gatehouse.js';

/** The allow fragment that lets a role list and read kube_cluster resources (and so ask for a kubeconfig). */
export const SEE = {
  rules: [{ resources: ['resources'], verbs: ['list', 'read'] }],
  resources: [{ kinds: ['kube_cluster'] }],
};

export interface KubeEvent {
  type: string;
  success: boolean;
  actor: { kind: string; name?: string };
  target?: { kind: string; id?: string; name?: string };
  session_id?: string;
  data: Record<string, unknown>;
}

/** What kubectl needs to run as one user: its kubeconfig and HOME, and the kubeconfig's text. */
export interface UserKubeconfig {
  kubeconfig: string;
  home: string;
  yaml: string;
}

/**
 * One test file's client for Gatehouse's Kubernetes side. `homePrefix` names the temporary
 * directory under which each kubeconfig gets its own HOME; removeHome() deletes it.
 */
export function kubeClusterClient(server: () => TestServer, homePrefix: string) {
  const { admin, as } = requestsTo(server);
  const home = mkdtempSync(join(tmpdir(), homePrefix));
  let registered: string | undefined;

  const events = async (type: string): Promise<KubeEvent[]> =>
    (await admin('GET', `/v1/events?type=${type}&per_page=100`)).json.events as KubeEvent[];

  /** Registers `fake` as the kube_cluster `name` (with `fields` such as labels); kubeconfigFor then targets it. */
  async function registerCluster(fake: FakeKube, name: string, fields: Record<string, unknown> = {}): Promise<string> {
    const created = await admin('POST', '/v1/resources', {
      kind: 'kube_cluster',
      name,
      address: fake.url,
      ...fields,
      kube: { ca_pem: fake.caPem, token: fake.token },
    });
    assert.equal(created.status, 201, created.text);
    registered = created.json.id as string;
    return registered;
  }

  /** Writes the kubeconfig the API answers `token` for the cluster into a new HOME named after `name`. */
  async function kubeconfigFor(token: string, name: string, clusterId = registered): Promise<UserKubeconfig> {
    assert.ok(clusterId, 'no kube_cluster registered yet');
    const res = await as(token, 'GET', `/v1/resources/${clusterId}/kubeconfig`);
    assert.equal(res.status, 200, res.text);
    const dir = mkdtempSync(join(home, `${name}-`));
    writeFileSync(join(dir, 'config'), res.text);
    return { kubeconfig: join(dir, 'config'), home: dir, yaml: res.text };
  }

  const removeHome = () => rmSync(home, { recursive: true, force: true });

  return { admin, as, home, events, registerCluster, kubeconfigFor, removeHome };
}
