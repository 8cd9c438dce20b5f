// The operator's commands for proxy identities, as the gatehouse client runs them (signed in with
// `gatehouse login`): `gatehouse tokens add --role proxy` prints a join token once; a proxy joins with
// it; `gatehouse instances ls` lists that proxy and `gatehouse instances rm` removes it (its credential
// is refused from then on). A login without the cluster rights is refused with the API's reason.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../src/cli/program.js';
import { ADMIN_KEY, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let gh: TestServer;
const homes: string[] = [];

/** A gatehouse client with a home of its own, signed in with this API key. */
async function client(apiKey: string) {
  const home = mkdtempSync(join(tmpdir(), 'gatehouse-cli-cluster-'));
  homes.push(home);
  const run = async (args: string[], env: Record<string, string> = {}) => {
    let stdout = '';
    let stderr = '';
    const out = {
      stdout: (t: string) => {
        stdout += t;
      },
      stderr: (t: string) => {
        stderr += t;
      },
    };
    const code = await runCli(args, { env: { GATEHOUSE_HOME: home, ...env }, out });
    return { code, stdout, stderr };
  };
  const login = await run(['login', '--proxy', gh.url], { GATEHOUSE_API_KEY: apiKey });
  assert.equal(login.code, 0, login.stderr);
  return run;
}

before(async () => {
  // An auth-only instance, as a cluster's auth tier is: it serves the proxies' internal API.
  gh = await startTestServer({ roles: ['auth'] });
});
after(async () => {
  await gh?.stop();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

describe('gatehouse tokens and instances', () => {
  test('tokens add prints a join token once; a proxy joins with it; instances ls lists it, rm removes it', async () => {
    const admin = await client(ADMIN_KEY);
    const made = await admin(['tokens', 'add', '--role', 'proxy', '--ttl', '30m', '--uses', '2']);
    assert.equal(made.code, 0, made.stderr);
    const token = /gjt_[0-9a-f]{64}/.exec(made.stdout)?.[0];
    assert.ok(token, made.stdout);
    assert.match(made.stdout, /Uses\s+2/);
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

    const ls = await admin(['instances', 'ls']);
    assert.equal(ls.code, 0, ls.stderr);
    assert.match(ls.stdout, new RegExp(`${instance}\\s+proxy\\s`));
    const json = await admin(['instances', 'ls', '--format', 'json']);
    assert.ok((JSON.parse(json.stdout) as Array<{ id: string }>).some((i) => i.id === instance));
    const rm = await admin(['instances', 'rm', instance]);
    assert.equal(rm.code, 0, rm.stderr);
    assert.match(rm.stdout, new RegExp(`Removed\\s+${instance}`));
    assert.equal(await asProxy(), 401, 'its credential is refused once removed');
    assert.doesNotMatch((await admin(['instances', 'ls'])).stdout, new RegExp(instance));
    const twice = await admin(['instances', 'rm', instance]);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /not_found: instance "prx_[0-9a-f]+" does not exist/);
  });

  test('without cluster rights the commands are refused with the API’s reason; a bad role or count is a usage error', async () => {
    const eve = await userWithRoles(gh, 'eve-cli', ['auditor']);
    const asEve = await client(eve.apiKey);
    const refused = await asEve(['tokens', 'add', '--role', 'proxy']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /cluster/);
    assert.equal((await asEve(['instances', 'ls'])).code, 1);
    const admin = await client(ADMIN_KEY);
    assert.equal((await admin(['tokens', 'add', '--role', 'auth'])).code, 2, 'a role that cannot join');
    assert.equal((await admin(['tokens', 'add', '--role', 'proxy', '--uses', '0'])).code, 2, 'no uses');
    const ok = await admin(['tokens', 'add', '--role', 'proxy']);
    assert.equal(ok.code, 0, `positive control: the admin makes one: ${ok.stderr}`);
  });
});
