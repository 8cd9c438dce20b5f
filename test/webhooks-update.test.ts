// PATCH /v1/webhooks/{id}: a webhook's URL, event types, description and status change in place,
// with the same secret; pointing the feed elsewhere (or turning it back on) is the same grant as
// creating it. A real Gatehouse delivering to a real receiver on loopback.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
const hits: Array<{ path: string; body: string }> = [];
let base = '';
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    hits.push({ path: req.url ?? '/', body });
    res.writeHead(200).end();
  });
});
const { admin } = requestsTo(() => server);
const at = (path: string) => hits.filter((h) => h.path === path);

async function until(what: string, probe: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A user.created event: what the webhooks below are fed. */
const makeUser = async (name: string) => assert.equal((await admin('POST', '/v1/users', { name })).status, 201);

before(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  server = await startTestServer({
    'webhooks.deliver': true,
    webhook_allowed_hosts: ['127.0.0.1'],
    'webhooks.poll_interval': '20ms',
  });
});
after(async () => {
  await server?.stop();
  receiver.closeAllConnections();
  receiver.close();
});

describe('changing a webhook', () => {
  test('a new URL: the next events go there and not to the old one; the event names the origin only', async () => {
    const made = await admin('POST', '/v1/webhooks', {
      name: 'move',
      url: `${base}/old`,
      event_types: ['user.created'],
    });
    assert.equal(made.status, 201, made.text);
    await makeUser('wh-move-1');
    await until('the first event at the old URL', () => at('/old').length === 1);

    const moved = await admin('PATCH', `/v1/webhooks/${made.json.id}`, { url: `${base}/new?token=s3cret` });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.json.url, `${base}/new?token=s3cret`);
    assert.equal(moved.json.secret, undefined, 'the secret is never answered again');
    await makeUser('wh-move-2');
    await until('the next event at the new URL', () => at('/new?token=s3cret').length === 1);
    assert.ok(at('/new?token=s3cret')[0]?.body.includes('wh-move-2'));
    assert.equal(at('/old').length, 1, 'nothing more to the old URL');

    const events = await admin('GET', '/v1/events?type=webhook.updated&per_page=10');
    const event = (events.json.events as Array<{ target: { id: string }; data: Record<string, unknown> }>).find(
      (e) => e.target.id === made.json.id,
    );
    assert.deepEqual(event?.data, { changed: ['url'], url_origin: base });
    assert.ok(!events.text.includes('s3cret'), 'the URL’s query never reaches the audit trail');
  });

  test('bad input is refused with where and why, nothing changed; a stale If-Match is 412', async () => {
    const made = await admin('POST', '/v1/webhooks', {
      name: 'strict',
      url: `${base}/strict`,
      event_types: ['user.*'],
    });
    const id = made.json.id as string;
    const offHost = await admin('PATCH', `/v1/webhooks/${id}`, { url: 'http://10.1.2.3/in' });
    assert.equal(offHost.status, 400, offHost.text);
    assert.equal(offHost.json.errors[0].path, '/body/url');
    assert.equal((await admin('PATCH', `/v1/webhooks/${id}`, {})).status, 400, 'an empty change');
    assert.equal((await admin('PATCH', `/v1/webhooks/${id}`, { name: 'renamed' })).status, 400, 'the name stays');
    assert.equal((await admin('PATCH', `/v1/webhooks/${id}`, { event_types: ['no.such'] })).status, 400);
    const now = await admin('GET', `/v1/webhooks/${id}`);
    assert.equal(now.json.url, `${base}/strict`);
    assert.deepEqual(now.json.event_types, ['user.*']);

    const etag = now.headers.get('etag') as string;
    const patch = (body: unknown) =>
      api(server.url, 'PATCH', `/v1/webhooks/${id}`, { token: server.adminToken, body, headers: { 'if-match': etag } });
    assert.equal((await patch({ description: 'first' })).status, 200, 'the current ETag applies (the control)');
    const stale = await patch({ description: 'second' });
    assert.equal(stale.status, 412, stale.text);
    assert.equal((await admin('GET', `/v1/webhooks/${id}`)).json.description, 'first');
  });

  test('who may change what: a webhooks manager who may not read events may describe or pause it, not point or resume it', async () => {
    const made = await admin('POST', '/v1/webhooks', {
      name: 'guarded',
      url: `${base}/guarded`,
      event_types: ['user.created'],
    });
    const id = made.json.id as string;
    assert.equal(
      (
        await admin('POST', '/v1/roles', {
          name: 'hooks-only',
          allow: { rules: [{ resources: ['webhooks'], verbs: ['*'] }] },
        })
      ).status,
      201,
    );
    const hooker = await userWithRoles(server, 'wh-hooker', ['hooks-only']);
    const as = (body: unknown) => api(server.url, 'PATCH', `/v1/webhooks/${id}`, { token: hooker.token, body });

    assert.equal((await as({ description: 'annotated' })).status, 200, 'a description (the control)');
    const pointed = await as({ url: `${base}/mine` });
    assert.equal(pointed.status, 403, pointed.text);
    assert.equal((await as({ event_types: ['*'] })).status, 403);
    assert.equal((await as({ status: 'disabled' })).status, 200, 'pausing a feed grants nothing');
    assert.equal((await as({ status: 'active' })).status, 403, 'resuming one is pointing it again');
    const held = await admin('GET', `/v1/webhooks/${id}`);
    assert.equal(held.json.url, `${base}/guarded`);
    assert.equal(held.json.status, 'disabled');

    // An admin (who reads events) resumes it: it delivers again, and now lives on the admin's right.
    const resumed = await admin('PATCH', `/v1/webhooks/${id}`, { status: 'active' });
    assert.equal(resumed.status, 200, resumed.text);
    assert.equal(resumed.json.failure.consecutive_failures, 0);
    assert.equal(resumed.json.failure.disabled_at, null);
    assert.equal(resumed.json.created_by.kind, 'user');
    await makeUser('wh-guarded-1');
    await until('a delivery after resuming', () => at('/guarded').length >= 1);
  });

  test('a paused webhook delivers nothing', async () => {
    const made = await admin('POST', '/v1/webhooks', {
      name: 'paused',
      url: `${base}/paused`,
      event_types: ['user.created'],
    });
    assert.equal((await admin('PATCH', `/v1/webhooks/${made.json.id}`, { status: 'disabled' })).status, 200);
    await makeUser('wh-paused-1');
    // The control: another active webhook gets the same event, so it was dispatched.
    await until('the event reached the active webhook', () =>
      at('/new?token=s3cret').some((h) => h.body.includes('wh-paused-1')),
    );
    await sleep(200);
    assert.equal(at('/paused').length, 0);
  });
});
