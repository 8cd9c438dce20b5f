// Input a hostile or careless client sends, refused with a 400 that names the field: label keys
// (which used to be stored and then dropped from every answer), NUL and lone surrogates, integers
// in query strings that only Number() would read, and several Authorization headers.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { api, startTestServer, type TestServer } from './helpers/gatehouse.js';

let gh: TestServer;
before(async () => {
  gh = await startTestServer();
});
after(() => gh.stop());

let n = 0;
const server = (labels: Record<string, string>) =>
  api(gh.url, 'POST', '/v1/resources', {
    token: gh.adminToken,
    body: { kind: 'server', name: `strict-${n++}`, address: '10.0.0.1:22', labels },
  });

test('a label key that is not valid is refused, naming the key; nothing is stored', async () => {
  for (const key of ['bad key', '', '-leading', 'x'.repeat(64), 'tab\there']) {
    const r = await server({ [key]: 'x' });
    assert.equal(r.status, 400, `${JSON.stringify(key)}: ${r.text}`);
    assert.deepEqual(
      r.json.errors.map((e: { path: string }) => e.path),
      [`/body/labels/${key}`],
    );
    assert.match(r.json.errors[0].message, /is not a valid key/);
  }
  const found = await api(gh.url, 'GET', `/v1/servers?label=${encodeURIComponent('bad key=x')}`, {
    token: gh.adminToken,
  });
  assert.equal(found.json.pagination.total, 0, 'no resource was stored with the bad key');
  // Positive control: good keys are kept and answered.
  const ok = await server({ env: 'dev', 'team.io/owner': 'infra' });
  assert.equal(ok.status, 201);
  assert.deepEqual(ok.json.labels, { env: 'dev', 'team.io/owner': 'infra' });
});

test('agents refuse bad label keys too', async () => {
  const r = await api(gh.url, 'POST', '/v1/agents', {
    token: gh.adminToken,
    body: { name: 'lbl-bot', labels: { 'a b': 'x' } },
  });
  assert.equal(r.status, 400);
  assert.equal(r.json.errors[0].path, '/body/labels/a b');
});

test('label values with NUL or a lone surrogate are refused; astral characters are fine', async () => {
  for (const value of ['a\u0000b', 'a\ud800', '\udc00z']) {
    const r = await server({ env: value });
    assert.equal(r.status, 400, JSON.stringify(value));
    assert.equal(r.json.errors[0].path, '/body/labels/env');
    assert.match(r.json.errors[0].message, /NUL or unpaired/);
  }
  const ok = await server({ env: 'ok 😀' });
  assert.equal(ok.status, 201);
  assert.equal(ok.json.labels.env, 'ok 😀');
});

test('integers in query strings are decimal digits only', async () => {
  for (const bad of ['0x10', '1e1', '%20%2010', '10.0', '+5']) {
    const r = await api(gh.url, 'GET', `/v1/agents?per_page=${bad}`, { token: gh.adminToken });
    assert.equal(r.status, 400, `per_page=${bad}: ${r.text}`);
    assert.equal(r.json.errors[0].path, '/query/per_page');
  }
  const ok = await api(gh.url, 'GET', '/v1/agents?per_page=10&page=1', { token: gh.adminToken });
  assert.equal(ok.status, 200);
  assert.equal(ok.json.pagination.per_page, 10);
});

test('two Authorization headers are refused, even when the first is valid', async () => {
  const send = (values: string[]) =>
    new Promise<{ status: number; body: { detail?: string } }>((resolve, reject) => {
      const headers = [['host', 'x'], ...values.map((v) => ['authorization', v])].flat();
      const req = request(
        { port: Number(new URL(gh.url).port), host: '127.0.0.1', path: '/v1/users', headers },
        (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  const two = await send([`Bearer ${gh.adminToken}`, 'Bearer gha_other']);
  assert.equal(two.status, 400);
  assert.match(two.body.detail ?? '', /one Authorization header/);
  assert.equal((await send([`Bearer ${gh.adminToken}`])).status, 200, 'positive control: one header');
});
