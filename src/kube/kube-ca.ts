// The Kubernetes proxy's CA (kept for the cluster by kube-ca-store.ts), and the TLS certificate it
// issues the listener at each start. Kubeconfigs carry the CA (certificate-authority-data), so kubectl
// verifies the proxy without anything installed. X.509 through node-forge; keys from node:crypto.
import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

export interface KubeCa {
  certPem: string;
  keyPem: string;
}

const DAY_MS = 86_400_000;

function rsaKeyPair(): { publicKey: forge.pki.PublicKey; privateKey: forge.pki.rsa.PrivateKey; privatePem: string } {
  // node:crypto generates the key (native, fast); forge only signs certificates with it.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(privatePem) as forge.pki.rsa.PrivateKey;
  return { privateKey: forgeKey, publicKey: forge.pki.rsa.setPublicKey(forgeKey.n, forgeKey.e), privatePem };
}

function baseCertificate(publicKey: forge.pki.PublicKey, validDays: number, now: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // A positive 128-bit serial (the leading 01 keeps it positive in DER).
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = new Date(now - 5 * 60_000);
  cert.validity.notAfter = new Date(now + validDays * DAY_MS);
  return cert;
}

/** A new CA (10 years); kube-ca-store.ts keeps it, sealed, in the state backend for the cluster. */
export function createKubeCa(now = Date.now()): KubeCa {
  const keys = rsaKeyPair();
  const cert = baseCertificate(keys.publicKey, 3650, now);
  const subject = [{ name: 'commonName', value: 'Gatehouse Kubernetes proxy CA' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privatePem };
}

/** A server certificate for the proxy's listener (30 days; a new one at every start). */
export function issueServerCertificate(ca: KubeCa, hosts: string[], now = Date.now()): { cert: string; key: string } {
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem) as forge.pki.rsa.PrivateKey;
  const keys = rsaKeyPair();
  const cert = baseCertificate(keys.publicKey, 30, now);
  cert.setSubject([{ name: 'commonName', value: hosts[0] ?? 'localhost' }]);
  cert.setIssuer(caCert.subject.attributes);
  const altNames = [...new Set([...hosts, 'localhost', '127.0.0.1', '::1'])].map((h) =>
    isIP(h) ? { type: 7, ip: h } : { type: 2, value: h },
  );
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  const pem = forge.pki.certificateToPem(cert);
  // Node checks what forge wrote before anything serves it.
  if (!new X509Certificate(pem).checkIssued(new X509Certificate(ca.certPem))) throw new Error('bad certificate');
  return { cert: pem, key: keys.privatePem };
}
