// Starts what the browser tests run against: the console built (if stale), a real Gatehouse on free
// loopback ports, a real sshd registered as server `web-1`. Workers learn the addresses from env.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ADMIN_KEY, api, startTestServer } from '../../test/helpers/gatehouse.js';
import { startSshd } from '../../test/helpers/sshd.js';

export default async function globalSetup() {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const build = spawnSync(process.execPath, ['scripts/build-web.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('the console did not build');

  const sshd = await startSshd();
  const gh = await startTestServer();
  const server = await api(gh.url, 'POST', '/v1/resources', {
    token: gh.adminToken,
    body: { kind: 'server', name: 'web-1', address: `127.0.0.1:${sshd.port}`, labels: { env: 'dev' } },
  });
  if (server.status !== 201) throw new Error(`register web-1: ${server.status} ${server.text}`);
  sshd.authorize(server.json.ssh_public_key);

  process.env.GH_WEB_URL = gh.webUrl;
  process.env.GH_AUTH_URL = gh.url;
  process.env.GH_ADMIN_KEY = ADMIN_KEY;
  process.env.GH_ADMIN_TOKEN = gh.adminToken;
  process.env.GH_SSH_PORT = String(gh.gatehouse.sshAddr?.port);
  process.env.GH_SSH_LOGIN = sshd.login;
  process.env.GH_SERVER_ID = server.json.id;
  return async () => {
    await gh.stop();
    await sshd.stop();
  };
}
