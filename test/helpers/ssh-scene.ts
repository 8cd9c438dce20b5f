// The SSH door's usual scene: a Gatehouse (with config overrides), a real sshd registered through
// the API, a role that allows every server as sshd's login (with role options), and a user who
// holds it. stop() ends both servers.
import assert from 'node:assert/strict';
import { api, type Reply, startTestServer, type TestServer, userWithRoles } from './gatehouse.js';
import { registerSshdServer, type Sshd, startSshd } from './sshd.js';

export interface SshScene {
  gh: TestServer;
  sshd: Sshd;
  /** The user's access token (typed as the SSH password). */
  token: string;
  admin(method: string, path: string, body?: unknown): Promise<Reply>;
  stop(): Promise<void>;
}

export async function startSshScene(
  config: Record<string, unknown>,
  names: { server: string; role: string; user: string; options?: Record<string, unknown> },
): Promise<SshScene> {
  const gh = await startTestServer(config);
  const admin = (method: string, path: string, body?: unknown) =>
    api(gh.url, method, path, { token: gh.adminToken, ...(body === undefined ? {} : { body }) });
  const sshd = await startSshd().catch(async (error) => {
    await gh.stop();
    throw error;
  });
  await registerSshdServer(admin, sshd, names.server, { env: 'dev' });
  const role = await admin('POST', '/v1/roles', {
    name: names.role,
    allow: { resources: [{ kinds: ['server'] }], logins: [sshd.login] },
    ...(names.options ? { options: names.options } : {}),
  });
  assert.equal(role.status, 201, role.text);
  const token = (await userWithRoles(gh, names.user, [names.role])).token;
  return {
    gh,
    sshd,
    token,
    admin,
    async stop() {
      await gh.stop();
      await sshd.stop();
    },
  };
}
