// An app behind an https uri: Gatehouse always verifies the app's certificate, against the system's
// CAs or the app's own `app.ca_pem`. Real certificates from the real openssl: a leaf signed by a CA
// of the test's, and a self-signed one (test/helpers/tls.ts). A certificate the configured CA did not
// sign, or a self-signed one with no ca_pem, is refused with a 502 that says why, the app sees
// nothing, and app.request records the failure; the right CA lets the same request through.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { appRequest, startTestApp, type TestApp } from './helpers/app-upstream.js';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { selfSignedCert } from './helpers/tls.js';

let gh: TestServer;
let dir: string;
/** Serves a leaf certificate signed by the test's CA (ca.crt). */
let signed: TestApp;
/** Serves a self-signed certificate (no CA but itself). */
let selfSigned: TestApp;
let caPem: string;
let selfSignedPem: string;
let otherCaPem: string;
let alice: { id: string; token: string };
const { admin } = requestsTo(() => gh);

const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });

/** A CA and a server certificate it signs for 127.0.0.1 and localhost. */
function caAndLeaf(): { certFile: string; keyFile: string; caFile: string } {
  openssl(['req', '-x509', ...ecKey, '-days', '2', '-subj', '/CN=app-test-ca', '-keyout', 'ca.key', '-out', 'ca.crt']);
  openssl(['req', ...ecKey, '-subj', '/CN=localhost', '-keyout', 'leaf.key', '-out', 'leaf.csr']);
  writeFileSync(join(dir, 'leaf.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  const sign = ['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial'];
  openssl([...sign, '-days', '2', '-extfile', 'leaf.ext', '-out', 'leaf.crt']);
  return { certFile: join(dir, 'leaf.crt'), keyFile: join(dir, 'leaf.key'), caFile: join(dir, 'ca.crt') };
}

/** A fresh subdirectory (selfSignedCert always writes cert.pem and key.pem). */
function sub(name: string): string {
  const d = join(dir, name);
  mkdirSync(d);
  return d;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-app-tls-'));
  const leaf = caAndLeaf();
  caPem = readFileSync(leaf.caFile, 'utf8');
  const own = selfSignedCert(sub('self'));
  selfSignedPem = readFileSync(own.certFile, 'utf8');
  otherCaPem = readFileSync(selfSignedCert(sub('other')).certFile, 'utf8');
  signed = await startTestApp({ tls: leaf });
  selfSigned = await startTestApp({ tls: own });
  gh = await startTestServer();
  const role = { name: 'tls-apps', allow: { resources: [{ kinds: ['app'], labels: { tls: 'yes' } }] } };
  assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  alice = await userWithRoles(gh, 'alice', ['tls-apps']);
});

after(async () => {
  await gh?.stop();
  await signed?.close();
  await selfSigned?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function register(name: string, uri: string, ca?: string): Promise<{ id: string; host: string }> {
  const body = { kind: 'app', name, uri, labels: { tls: 'yes' }, ...(ca ? { app: { ca_pem: ca } } : {}) };
  const created = await admin('POST', '/v1/resources', body);
  assert.equal(created.status, 201, created.text);
  return { id: created.json.id, host: new URL(created.json.public_url).host };
}

const get = (host: string, path: string) =>
  appRequest(gh.webUrl, host, path, { headers: { authorization: `Bearer ${alice.token}` } });

/** The app.request event of this path (answered requests' events are written in batches). */
async function requestEvent(path: string) {
  for (let i = 0; i < 40; i++) {
    const events = await admin('GET', '/v1/events?type=app.request&per_page=100');
    const found = events.json.events.find((e: { data: { path: string } }) => e.data.path === path);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`no app.request event for ${path}`);
}

describe('an https app verified against app.ca_pem', () => {
  test('a certificate signed by the configured CA works; a wrong CA is refused with a clear 502 and audited', async () => {
    const wrong = await register('signed-wrong', signed.url, otherCaPem);
    const before = signed.seen.length;
    const refused = await get(wrong.host, '/wrong-ca');
    assert.equal(refused.status, 502, refused.text);
    const problem = JSON.parse(refused.text);
    assert.equal(problem.code, 'upstream_unreachable');
    assert.match(problem.detail, /^cannot reach signed-wrong: its certificate is not trusted/);
    assert.match(problem.detail, /app\.ca_pem/);
    assert.equal(signed.seen.length, before, 'the app saw nothing of a request over an unverified connection');
    const failed = await requestEvent('/wrong-ca');
    assert.equal(failed.success, false);
    assert.equal(failed.data.status, 502);
    assert.equal(failed.actor.name, 'alice');
    assert.match(failed.data.error, /certificate/);

    // The positive control: the same app with the CA that signed its certificate.
    const right = await register('signed-right', signed.url, caPem);
    const ok = await get(right.host, '/right-ca');
    assert.equal(ok.status, 200, ok.text);
    assert.equal(signed.seen.at(-1)?.url, '/right-ca');
    const passed = await requestEvent('/right-ca');
    assert.equal(passed.success, true);
    assert.equal(passed.data.status, 200);
  });

  test('changing an app’s ca_pem takes effect on the next request (its connection pool is replaced)', async () => {
    const app = await register('signed-patched', signed.url, otherCaPem);
    assert.equal((await get(app.host, '/before')).status, 502);
    const patched = await admin('PATCH', `/v1/resources/${app.id}`, { app: { ca_pem: caPem } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await get(app.host, '/after')).status, 200);
  });

  test('a self-signed certificate is refused without ca_pem (never trusted by default) and works with it', async () => {
    const bare = await register('self-bare', selfSigned.url);
    const before = selfSigned.seen.length;
    const refused = await get(bare.host, '/no-ca');
    assert.equal(refused.status, 502, refused.text);
    assert.match(refused.text, /its certificate is not trusted \(self-signed certificate\)/);
    assert.equal(selfSigned.seen.length, before);
    assert.equal((await requestEvent('/no-ca')).success, false);

    const pinned = await register('self-pinned', selfSigned.url, selfSignedPem);
    assert.equal((await get(pinned.host, '/own-ca')).status, 200);
    assert.equal(selfSigned.seen.at(-1)?.url, '/own-ca');
  });

  test('a ca_pem that is not a certificate is refused at registration (400 naming the field)', async () => {
    const bad = await admin('POST', '/v1/resources', {
      kind: 'app',
      name: 'bad-ca',
      uri: signed.url,
      app: { ca_pem: '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n' },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /app\/ca_pem/);
  });
});
