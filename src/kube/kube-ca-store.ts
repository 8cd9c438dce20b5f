// The Kubernetes proxy's CA, one for the whole cluster: sealed in the state backend like the SSH user
// CA, so that every proxy behind a load balancer presents a certificate the same kubeconfig pins, and
// an auth-only instance can hand out kubeconfigs. An install whose data dir already holds a CA (from
// before it was shared) brings that one, so the kubeconfigs it issued stay valid.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { awaitCached, insertOrTheirs, type StateStore } from '../backend/state.js';
import { type Clock, isoTime } from '../lib/clock.js';
import type { SecretBox } from '../lib/secret-box.js';
import { createKubeCa, type KubeCa } from './kube-ca.js';

const KEY = 'secrets/kube-ca';
const CONTEXT = 'kube-ca';

interface KubeCaRecord {
  cert_pem: string;
  key_sealed: string;
  created_at: string;
}

function fromDataDir(dataDir: string): KubeCa | undefined {
  const certPath = join(dataDir, 'kube-ca.crt');
  const keyPath = join(dataDir, 'kube-ca.key');
  if (!existsSync(certPath) || !existsSync(keyPath)) return undefined;
  return { certPem: readFileSync(certPath, 'utf8'), keyPem: readFileSync(keyPath, 'utf8') };
}

/**
 * The cluster's CA, created when none exists yet. With mayCreate false (a proxy that reaches the
 * stores through auth, which may not write secrets) it waits for the auth tier's instead.
 */
export async function ensureKubeCa(deps: {
  state: StateStore;
  /** Absent on a proxy without the seal key: the certificate only (the auth tier signs with the key). */
  box?: SecretBox;
  clock: Clock;
  dataDir: string;
  mayCreate: boolean;
}): Promise<KubeCa | Pick<KubeCa, 'certPem'>> {
  let record = deps.state.get<KubeCaRecord>(KEY)?.value;
  if (!record && deps.mayCreate && deps.box) {
    const ca = fromDataDir(deps.dataDir) ?? createKubeCa(deps.clock());
    const fresh: KubeCaRecord = {
      cert_pem: ca.certPem,
      key_sealed: deps.box.seal(ca.keyPem, CONTEXT),
      created_at: isoTime(deps.clock()),
    };
    // Another instance may have stored one first: then theirs is the CA.
    record = await insertOrTheirs(deps.state, KEY, fresh);
  } else if (!record) {
    record = (await awaitCached<KubeCaRecord>(deps.state, KEY, 30_000))?.value;
  }
  if (!record) {
    throw new Error('the cluster has no Kubernetes proxy CA yet: start an auth instance first (it creates it)');
  }
  if (!deps.box) return { certPem: record.cert_pem };
  return { certPem: record.cert_pem, keyPem: deps.box.open(record.key_sealed, CONTEXT) };
}
