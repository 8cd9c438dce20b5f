// The operator's commands for proxy identities: `gatehouse tokens add --role proxy` prints a join token
// once; a proxy joins with it; `gatehouse instances ls` lists that proxy and `gatehouse instances rm`
// removes it (its credential is refused from then on). Run as the installed command (bin/gatehouse.mjs)
// and in process; without rights or credentials they fail with the API's reason, exit 1.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { clusterCommand } from '../src/cli/cluster.js';
import { ADMIN_KEY, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

const bin = fileURLToPath(new URL('../bin/gatehouse.mjs', import.meta.url));
let gh: TestServer;

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  process.exitCode = undefined;
  const code = await clusterCommand(args, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  process.exitCode = undefined;
  return { code, stdout, stderr };
}

function runBin(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

before(async () => {
  // An auth-only instance, as a cluster's auth tier is: it serves the proxies' internal API.
  gh = await startTestServer({ roles: ['auth'] });
});
after(async () => {
  await gh?.stop();
});

describe('gatehouse tokens and instances', () => {
  test('tokens add prints a join token once; a proxy joins with it; instances ls lists it, rm removes it', async () => {
    const made = await runBin(['tokens', 'add', '--role', 'proxy', '--ttl', '30m', '--uses', '2'], {
      GATEHOUSE_URL: gh.url,
      GATEHOUSE_API_KEY: ADMIN_KEY,
    });
    assert.equal(made.code, 0, made.stderr);
    const token = /gjt_[0-9a-f]{64}/.exec(made.stdout)?.[0];
    assert.ok(token, made.stdout);
    assert.match(made.stdout, /2 use\(s\)/);
    const joined = await fetch(`${gh.url}/internal/v1/join`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, public_key: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) }),
    });
    assert.equal(joined.status, 200);
    const { instance, credential } = (await joined.json()) as { instance: string; credential: string };
    const asProxy = () =>
      fetch(`${gh.url}/internal/v1/backend/ping`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gatehouse-proxy-credential': credential },
        body: '{"args":[]}',
      }).then((r) => r.status);
    assert.equal(await asProxy(), 200, 'positive control: the joined proxy is let in');

    const ls = await cli(['instances', 'ls', '--url', gh.url, '--token', gh.adminToken]);
    assert.equal(ls.code, 0, ls.stderr);
    assert.match(ls.stdout, new RegExp(`^${instance}\\tproxy\\t`, 'm'));
    const rm = await cli(['instances', 'rm', instance, '--url', gh.url, '--token', gh.adminToken]);
    assert.equal(rm.code, 0, rm.stderr);
    assert.match(rm.stdout, new RegExp(`removed ${instance}`));
    assert.equal(await asProxy(), 401, 'its credential is refused once removed');
    const again = await cli(['instances', 'ls', '--url', gh.url, '--token', gh.adminToken]);
    assert.doesNotMatch(again.stdout, new RegExp(instance));
    const twice = await cli(['instances', 'rm', instance, '--url', gh.url, '--token', gh.adminToken]);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /404/);
  });

  test('without cluster rights or any credential the commands fail with the API’s reason', async () => {
    const eve = await userWithRoles(gh, 'eve-cli', ['auditor']);
    const refused = await cli(['tokens', 'add', '--role', 'proxy', '--url', gh.url, '--token', eve.token]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /POST \/v1\/cluster\/join-tokens: 403/);
    const anonymous = await cli(['instances', 'ls', '--url', gh.url]);
    assert.equal(anonymous.code, 1);
    assert.match(anonymous.stderr, /401/);
    const badRole = await cli(['tokens', 'add', '--role', 'auth', '--url', gh.url, '--token', gh.adminToken]);
    assert.equal(badRole.code, 2, 'a role that cannot join is a usage error');
    const ok = await cli(['tokens', 'add', '--role', 'proxy', '--url', gh.url, '--token', gh.adminToken]);
    assert.equal(ok.code, 0, `positive control: the admin makes one: ${ok.stderr}`);
  });
});
