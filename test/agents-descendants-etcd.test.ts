// The kill switch over an agent's line on a real etcd, where one write carries at most 128 operations
// and may not name a key twice: a line holding more is stopped by the creator's own write and marked
// in parts after it, and an owner whose agents took back from one another is deleted in writes that
// name each key once. Every token is asserted to work before and to be refused after.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type EtcdCluster, startEtcd } from './helpers/etcd.js';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

const keyDir = mkdtempSync(join(tmpdir(), 'gatehouse-seal-'));
const sealKey = join(keyDir, 'seal.key');
writeFileSync(sealKey, randomBytes(32), { mode: 0o600 });

let etcd: EtcdCluster;
let server: TestServer;
const { admin, as } = requestsTo(() => server);

before(async () => {
  etcd = await startEtcd(1);
  server = await startTestServer({
    backend_url: etcd.url('/descendants/'),
    seal_key_file: sealKey,
    'login_throttle.max_failures': 100_000,
  });
  const role = await admin('POST', '/v1/roles', {
    name: 'agent-maker',
    allow: { rules: [{ resources: ['agents'], verbs: ['*'] }] },
  });
  assert.equal(role.status, 201, role.text);
});
after(async () => {
  await server?.stop();
  await etcd?.close();
  rmSync(keyDir, { recursive: true, force: true });
});

const works = async (token: string) => (await as(token, 'GET', '/v1/agents?per_page=1')).status;
const login = async (apiKey: string): Promise<string> => {
  const res = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: apiKey } });
  assert.equal(res.status, 200, res.text);
  return res.json.access_token;
};

/** P (the user's), C created by P with an API key from P, G created by C with a token from C. */
async function line(userToken: string, prefix: string) {
  const make = async (token: string, name: string) => {
    const res = await as(token, 'POST', '/v1/agents', { name, roles: ['agent-maker'] });
    assert.equal(res.status, 201, res.text);
    return res.json.id as string;
  };
  const p = await make(userToken, `${prefix}-p`);
  const pToken = (await as(userToken, 'POST', `/v1/agents/${p}/credentials`, {})).json.access_token as string;
  const c = await make(pToken, `${prefix}-c`);
  const cKey = (await as(pToken, 'POST', `/v1/agents/${c}/credentials`, { type: 'api_key' })).json.api_key as string;
  const cToken = await login(cKey);
  const g = await make(cToken, `${prefix}-g`);
  const gToken = (await as(cToken, 'POST', `/v1/agents/${g}/credentials`, {})).json.access_token as string;
  return { p, pToken, c, cKey, cToken, g, gToken };
}

test('a line holding more than one etcd write takes is stopped by its creator and marked in parts', async () => {
  const bob = await userWithRoles(server, 'bob', ['agent-maker']);
  const f = await line(bob.token, 'big');
  // 70 more logins of C: 140 tokens, more than one etcd transaction carries with the records.
  const cTokens = [f.cToken];
  for (let i = 0; i < 70; i++) cTokens.push(await login(f.cKey));
  for (const t of [f.pToken, f.gToken, cTokens[0] as string, cTokens[70] as string]) assert.equal(await works(t), 200);

  const res = await as(bob.token, 'PATCH', `/v1/agents/${f.p}`, { status: 'suspended' });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual([...res.json.ended_agents].sort(), [f.c, f.g].sort());
  assert.equal(res.json.descendants.tokens, 2 * 71 + 1, "C's 71 logins and G's token");
  for (const t of [f.pToken, f.gToken, ...cTokens]) assert.equal(await works(t), 401);
  for (const id of [f.c, f.g]) assert.equal((await admin('GET', `/v1/agents/${id}`)).json.status, 'suspended');
  assert.equal((await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: f.cKey } })).status, 401);
});

test("deleting the owner of a whole line writes each agent's records once", async () => {
  const carol = await userWithRoles(server, 'carol', ['agent-maker']);
  const f = await line(carol.token, 'owned');
  const other = await userWithRoles(server, 'dave', ['agent-maker']);
  const control = await line(other.token, 'control');
  assert.equal(await works(f.gToken), 200);

  const res = await admin('DELETE', `/v1/users/${carol.id}`);
  assert.equal(res.status, 200, res.text);
  for (const id of [f.p, f.c, f.g]) assert.equal((await admin('GET', `/v1/agents/${id}`)).json.status, 'revoked');
  for (const t of [f.pToken, f.cToken, f.gToken]) assert.equal(await works(t), 401);
  assert.equal(await works(control.gToken), 200, "positive control: another owner's line");
});
