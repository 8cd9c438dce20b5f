// A self-signed certificate for localhost and 127.0.0.1 (EC P-256, two days), made by the real
// openssl: the listener certificate of the TLS tests, and its own CA for the clients that trust it.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export function selfSignedCert(dir: string): { certFile: string; keyFile: string } {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2']
      .concat(['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'])
      .concat(['-keyout', keyFile, '-out', certFile]),
    { stdio: 'ignore' },
  );
  return { certFile, keyFile };
}
