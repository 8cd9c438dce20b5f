// GET /v1/auth/ssh-ca: the public key of Gatehouse's SSH user CA, for a target's TrustedUserCAKeys.
// A target that trusts it accepts the proxy's short-lived certificates (5 minutes, one principal: the
// login) instead of a per-server key in authorized_keys.
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';

const SshCa = Type.Object(
  {
    public_key: Type.String({ description: 'OpenSSH public key line of the user CA' }),
    sshd_config: Type.String({ description: 'What to add to the target (with the key saved to that file)' }),
  },
  { additionalProperties: false },
);

export function sshCaRoutes(app: App, deps: Pick<Services, 'userCa'>): void {
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
}
