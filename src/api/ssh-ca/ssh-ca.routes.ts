// GET /v1/auth/ssh-ca: the public key of Gatehouse's SSH user CA, for a target's TrustedUserCAKeys.
// A target that trusts it accepts the proxy's short-lived certificates (5 minutes, one principal: the
// login) instead of a per-server key in authorized_keys.
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { authenticatedContext } from '../request-context.js';

const SshCa = Type.Object(
  {
    public_key: Type.String({ description: 'OpenSSH public key line of the user CA' }),
    sshd_config: Type.String({ description: 'What to add to the target (with the key saved to that file)' }),
  },
  { additionalProperties: false },
);

const CertificateRequest = Type.Object(
  {
    public_key: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'Your own ssh-ed25519 public key line (the private key never leaves you)',
    }),
  },
  { additionalProperties: false },
);

const LoginCertificate = Type.Object(
  {
    certificate: Type.String({ description: 'OpenSSH certificate line, for ssh -o CertificateFile=' }),
    key_id: Type.String({ description: 'Names the login and the token it is bound to' }),
    valid_after: Type.String({ format: 'date-time' }),
    valid_before: Type.String({ format: 'date-time', description: 'No later than the access token that asked' }),
    ssh_proxy: Type.Optional(
      Type.Object({ host: Type.String(), port: Type.Integer() }, { description: 'Where to connect with it' }),
    ),
  },
  { additionalProperties: false },
);

export function sshCaRoutes(app: App, deps: Pick<Services, 'userCa' | 'loginCertificates' | 'sshEndpoint'>): void {
  const route = declareRoutes(app, { tags: ['auth'], resource: 'resources' });
  route.get(
    '/v1/auth/ssh-ca',
    {
      permission: 'read',
      summary: "Export the SSH user CA's public key (for TrustedUserCAKeys on target servers)",
      200: SshCa,
    },
    async () => ({
      public_key: deps.userCa.publicKey,
      sshd_config: 'TrustedUserCAKeys /etc/ssh/gatehouse_user_ca.pub',
    }),
  );

  // The login's own certificate for the SSH proxy (gatehouse login, gatehouse ssh): see
  // ssh-keys/login-certificates.ts. It grants nothing the token does not: the proxy resolves it back to that token.
  declareRoutes(app, { tags: ['auth'] }).post(
    '/v1/ssh/certificates',
    {
      permission: 'authenticated',
      grants: ['self'],
      summary:
        'Certify your SSH public key for the SSH proxy: valid while your access token is (at most), refused once your login ends',
      body: CertificateRequest,
      200: LoginCertificate,
      noStore: true,
    },
    async (request) => {
      const issued = await deps.loginCertificates.issue(authenticatedContext(request), request.body.public_key);
      const proxy = deps.sshEndpoint();
      return { ...issued, ...(proxy ? { ssh_proxy: { host: proxy.host, port: proxy.port } } : {}) };
    },
  );
}
