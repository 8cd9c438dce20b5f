// Secrets Gatehouse hands out (API keys, access and refresh tokens, one-time tickets, agents'
// credentials) are shown once and kept only as hashes: after they are issued and used, none of them
// appears in the state or audit databases (with their WAL files) or in the process log at debug level.
// The positive control: each one works, and the stores do hold their hashes.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { api, startTestServer, type TestServer } from './helpers/gatehouse.js';

let gh: TestServer;
const logLines: string[] = [];

before(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  gh = await startTestServer({}, { logger: pino({ level: 'debug' }, sink) });
});
after(async () => {
  await gh?.stop();
});

test('API keys, tokens, tickets and agent credentials are nowhere in the data dir or the log, only their hashes', async () => {
  const admin = (method: string, path: string, body?: unknown) =>
    api(gh.url, method, path, { token: gh.adminToken, ...(body === undefined ? {} : { body }) });
  const role = await admin('POST', '/v1/roles', {
    name: 'web-user',
    allow: {
      resources: [{ kinds: ['server'] }],
      logins: ['ubuntu'],
      rules: [{ resources: ['sessions'], verbs: ['create'] }],
    },
  });
  assert.equal(role.status, 201, role.text);
  assert.equal(
    (await admin('POST', '/v1/resources', { kind: 'server', name: 'web', address: '127.0.0.1:22' })).status,
    201,
  );
  const user = await admin('POST', '/v1/users', { name: 'keeper', roles: ['web-user'] });
  const key = await admin('POST', `/v1/users/${user.json.id}/api-keys`, { name: 'laptop' });
  assert.equal(key.status, 201, key.text);
  const login = await api(gh.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } });
  assert.equal(login.status, 200, 'the API key works');
  const refreshed = await api(gh.url, 'POST', '/v1/auth/refresh', {
    body: { refresh_token: login.json.refresh_token },
  });
  assert.equal(refreshed.status, 200, refreshed.text);
  const ticket = await api(gh.url, 'POST', '/v1/sessions', {
    token: refreshed.json.access_token,
    body: { server: 'web', login: 'ubuntu' },
  });
  assert.equal(ticket.status, 201, ticket.text);
  const agent = await admin('POST', '/v1/agents', { name: 'keeper-bot', owner: user.json.id, roles: ['web-user'] });
  assert.equal(agent.status, 201, agent.text);
  const credential = await admin('POST', `/v1/agents/${agent.json.id}/credentials`, { type: 'api_key' });
  assert.equal(credential.status, 201, credential.text);
  const agentLogin = await api(gh.url, 'POST', '/v1/auth/token', { body: { api_key: credential.json.api_key } });
  assert.equal(agentLogin.status, 200, 'the agent credential works');

  const secrets: Record<string, string> = {
    'API key': key.json.api_key,
    'access token': login.json.access_token,
    'refresh token': login.json.refresh_token,
    'refreshed access token': refreshed.json.access_token,
    'refreshed refresh token': refreshed.json.refresh_token,
    ticket: ticket.json.ticket,
    'agent API key': credential.json.api_key,
    'agent access token': agentLogin.json.access_token,
  };
  for (const [what, secret] of Object.entries(secrets)) assert.ok(secret && secret.length >= 20, `${what} issued`);

  // Let the stores write what they batch, then read every file of the data dir as bytes.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const files = readdirSync(gh.dataDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
  assert.ok(
    files.some((f) => f.endsWith('state.db')),
    files.join(', '),
  );
  const everything = Buffer.concat(files.map((f) => readFileSync(f)));
  const log = logLines.join('');
  assert.ok(log.length > 0, 'the log was captured');
  for (const [what, secret] of Object.entries(secrets)) {
    // The part after the prefix is the random one; a prefix (gha_, ghr_…) alone proves nothing.
    const random = secret.slice(secret.indexOf('_') + 1);
    assert.ok(!everything.includes(random), `the ${what} is in the data dir in clear`);
    assert.ok(!log.includes(random), `the ${what} is in the log`);
  }
  // What is kept instead: a hash of the API key (hex SHA-256), which is how it is found again.
  const hex = createHash('sha256').update(key.json.api_key).digest('hex');
  const b64 = createHash('sha256').update(key.json.api_key).digest('base64url');
  assert.ok(everything.includes(hex) || everything.includes(b64), 'the API key is stored as its SHA-256');
});
