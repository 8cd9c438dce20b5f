// A recording changed in the object store after it was uploaded is not served: the download checks
// the stored object against the sha256 in the audit trail's recording.uploaded event (not against
// the store's own metadata, which whoever changes the object can change too), answers 409
// recording_tampered and records recording.integrity_failed. The positive control: the untouched
// recording downloads, marked `gatehouse-recording-verified: sha256`.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { sshExec } from './helpers/ssh-client.js';
import { registerSshdServer, requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

let gh: TestServer;
let sshd: Sshd;
const admin = (method: string, path: string, body?: unknown) =>
  api(gh.url, method, path, { token: gh.adminToken, ...(body === undefined ? {} : { body }) });

if (requireSshd('recording integrity')) {
  before(async () => {
    gh = await startTestServer();
    sshd = await startSshd();
    await registerSshdServer(admin, sshd, 'web-1', {});
    const role = await admin('POST', '/v1/roles', {
      name: 'ssh-any',
      allow: { resources: [{ kinds: ['server'] }], logins: [sshd.login] },
    });
    assert.equal(role.status, 201, role.text);
  });
  after(async () => {
    await gh?.stop();
    await sshd?.stop();
  });

  test('a recording changed in the object store is refused with recording_tampered; the untouched one is served', async () => {
    const { token } = await userWithRoles(gh, 'recorded', ['ssh-any']);
    const port = gh.gatehouse.sshAddr?.port as number;
    const ran = await sshExec('echo the-real-output', { port, user: `${sshd.login}@web-1`, password: token });
    assert.equal(ran.stdout, 'the-real-output\n', ran.stderr);
    const session = await until('the uploaded recording', async () => {
      const list = await admin('GET', '/v1/sessions?server=web-1&type=exec');
      const s = list.json.sessions[0];
      return s?.status === 'ended' && s.recording.status === 'uploaded' ? s : undefined;
    });

    const good = await admin('GET', `/v1/sessions/${session.id}/recording`);
    assert.equal(good.status, 200);
    assert.equal(good.headers.get('gatehouse-recording-verified'), 'sha256');
    assert.match(good.text, /the-real-output/);

    // Someone with write access to the store rewrites what the session showed.
    const object = join(gh.dataDir, 'recordings', `${session.id}.cast.gz`);
    const forged = gunzipSync(readFileSync(object)).toString().replace('the-real-output', 'nothing-happened');
    writeFileSync(object, gzipSync(forged));

    for (const query of ['', '?format=text']) {
      const refused = await admin('GET', `/v1/sessions/${session.id}/recording${query}`);
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.json.code, 'recording_tampered');
      assert.match(refused.json.detail, /is not the one uploaded/);
      assert.doesNotMatch(refused.text, /nothing-happened/);
    }
    const events = (await admin('GET', `/v1/events?type=recording.integrity_failed&session_id=${session.id}`)).json
      .events;
    assert.equal(events.length, 2);
    assert.equal(events[0].success, false);
    assert.match(events[0].data.expected_sha256, /^[0-9a-f]{64}$/);
  });
}
