import type { Static } from '@sinclair/typebox';
import { invalidField } from '../lib/errors.js';
import type { SecretBox } from '../lib/secret-box.js';
import { pemCertificate } from './db-upstream.js';
import type { KubeInput, KubeSummary } from './resource-shapes.js';

export interface KubeSecret {
  ca_pem: string;
  /** The token or the client key, sealed; the client certificate is not secret. */
  token_sealed?: string;
  client_cert_pem?: string;
  client_key_sealed?: string;
}

/** What the Kubernetes proxy needs to reach one cluster (in memory only). */
export interface KubeUpstream {
  /** https://host:port of the API server. */
  url: string;
  ca: string;
  token?: string;
  cert?: string;
  key?: string;
}

const sealContext = (clusterId: string, what: 'token' | 'client-key') => `kube-upstream-${what}:${clusterId}`;

/** A kube_cluster's address is its API server's https URL; every other kind's is host[:port]. */
export function checkAddress(kind: string, address: string): void {
  const https = address.startsWith('https://');
  if (kind === 'kube_cluster' && !https)
    throw invalidField('/body/address', 'must be the API server as https://host:port');
  if (kind !== 'kube_cluster' && https) throw invalidField('/body/address', 'must be host or host:port');
}

export function sealKubeUpstream(
  box: Pick<SecretBox, 'seal'>,
  clusterId: string,
  input: Static<typeof KubeInput>,
): { secret: KubeSecret; summary: Static<typeof KubeSummary> } {
  const ca = pemCertificate(input.ca_pem, '/body/kube/ca_pem');
  const withCert = input.client_cert_pem !== undefined || input.client_key_pem !== undefined;
  if (input.token !== undefined && withCert)
    throw invalidField('/body/kube', 'give either token or client_cert_pem with client_key_pem, not both');
  if (input.token === undefined && !withCert)
    throw invalidField('/body/kube', 'needs a token, or client_cert_pem with client_key_pem');
  const summary = { ca_fingerprint: ca.fingerprint256 };
  if (input.token !== undefined) {
    return {
      secret: { ca_pem: input.ca_pem, token_sealed: box.seal(input.token, sealContext(clusterId, 'token')) },
      summary: { credential: 'token', ...summary },
    };
  }
  if (input.client_cert_pem === undefined) throw invalidField('/body/kube/client_cert_pem', 'is required');
  if (input.client_key_pem === undefined) throw invalidField('/body/kube/client_key_pem', 'is required');
  pemCertificate(input.client_cert_pem, '/body/kube/client_cert_pem');
  return {
    secret: {
      ca_pem: input.ca_pem,
      client_cert_pem: input.client_cert_pem,
      client_key_sealed: box.seal(input.client_key_pem, sealContext(clusterId, 'client-key')),
    },
    summary: { credential: 'client_certificate', ...summary },
  };
}

/**
 * Opened credentials by the state cache's record: the proxy asks on every request, and opening
 * (AES-GCM) each time cost ~3% of a proxied GET. A changed secret is a new record, so never stale.
 */
const opened = new WeakMap<KubeSecret, KubeUpstream>();

export function openKubeUpstream(
  box: Pick<SecretBox, 'open'>,
  clusterId: string,
  secret: KubeSecret,
  url: string,
): KubeUpstream {
  const cached = opened.get(secret);
  if (cached?.url === url) return cached;
  const upstream: KubeUpstream = {
    url,
    ca: secret.ca_pem,
    ...(secret.token_sealed ? { token: box.open(secret.token_sealed, sealContext(clusterId, 'token')) } : {}),
    ...(secret.client_cert_pem ? { cert: secret.client_cert_pem } : {}),
    ...(secret.client_key_sealed
      ? { key: box.open(secret.client_key_sealed, sealContext(clusterId, 'client-key')) }
      : {}),
  };
  opened.set(secret, upstream);
  return upstream;
}
