// Webhooks end to end: a real Gatehouse on loopback delivering to a real HTTP receiver, with the
// signatures checked by a verifier written here from the Standard Webhooks spec (not imported).
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

// ---- a verifier from the spec: HMAC-SHA256 keyed with base64-decoded whsec_ secret over "id.timestamp.body",
// ---- base64, sent as space-separated "v1,<sig>" entries in webhook-signature.
function verifyStandardWebhook(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = 300,
): boolean {
  const ts = Number(headers.timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowSeconds - ts) > toleranceSeconds) return false;
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const expected = createHmac('sha256', key).update(`${headers.id}.${headers.timestamp}.${body}`).digest();
  return headers.signature.split(' ').some((entry) => {
    const [version, sig] = entry.split(',');
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const signed = (h: IncomingHttpHeaders) => ({
  id: String(h['webhook-id']),
  timestamp: String(h['webhook-timestamp']),
  signature: String(h['webhook-signature']),
});

// ---- a receiver: per path, a behaviour decides each answer (a status, or hang without answering).
interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}
type Behaviour = (n: number) => number | 'hang';

async function startReceiver() {
  const hits: Hit[] = [];
  const behaviours = new Map<string, Behaviour>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const n = hits.filter((h) => h.path === path).length;
      hits.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = (behaviours.get(path) ?? (() => 200))(n);
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const location = answer >= 300 && answer < 400 ? { location: '/target' } : {};
      res.writeHead(answer, { 'content-type': 'text/plain', ...location }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    hits,
    on: (path: string, b: Behaviour) => behaviours.set(path, b),
    at: (path: string) => hits.filter((h) => h.path === path),
    hangingNow: () => hanging.size,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const FAST = {
  'webhooks.deliver': true,
  webhook_allowed_hosts: ['127.0.0.1'],
  'webhooks.retry_schedule': ['30ms', '60ms', '90ms'],
  'webhooks.timeout': '300ms',
  'webhooks.disable_after_failures': 1,
  'webhooks.poll_interval': '20ms',
};

let server: TestServer;
let receiver: Receiver;
const secrets: string[] = [];

async function createWebhook(s: TestServer, body: Record<string, unknown>, token = s.adminToken) {
  const res = await api(s.url, 'POST', '/v1/webhooks', { token, body });
  if (res.status === 201) secrets.push(res.json.secret);
  return res;
}
const deliveriesOf = async (s: TestServer, id: string, query = '') =>
  (await api(s.url, 'GET', `/v1/webhooks/${id}/deliveries${query}`, { token: s.adminToken })).json;

before(async () => {
  receiver = await startReceiver();
  server = await startTestServer(FAST);
});
after(async () => {
  await server.stop();
  await receiver.close();
});

describe('webhook CRUD', () => {
  test('create answers the secret once; get, list and events never show it; delete removes it', async () => {
    const created = await createWebhook(server, {
      name: 'crud',
      url: `${receiver.base}/crud`,
      event_types: ['agent.created'],
      description: 'for the CRUD test',
    });
    assert.equal(created.status, 201, created.text);
    const hook = created.json;
    assert.match(hook.id, /^whk_[0-9a-z]{26}$/);
    assert.equal(created.headers.get('location'), `/v1/webhooks/${hook.id}`);
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'whsec_ + base64 of 32 bytes');
    assert.equal(Buffer.from(hook.secret.slice(6), 'base64').length, 32);
    assert.equal(hook.status, 'active');
    assert.deepEqual(hook.event_types, ['agent.created']);
    assert.deepEqual(hook.failure, {
      consecutive_failures: 0,
      last_failure_at: null,
      last_error: null,
      disabled_at: null,
    });

    const one = await api(server.url, 'GET', `/v1/webhooks/${hook.id}`, { token: server.adminToken });
    assert.equal(one.status, 200);
    assert.equal(one.json.secret, undefined);
    assert.ok(!one.text.includes(hook.secret.slice(6)));
    assert.equal(one.json.url, `${receiver.base}/crud`);

    const list = await api(server.url, 'GET', '/v1/webhooks?per_page=100', { token: server.adminToken });
    assert.equal(list.status, 200);
    assert.ok(list.json.webhooks.some((w: { id: string }) => w.id === hook.id));
    assert.ok(!list.text.includes('whsec_'));
    assert.equal(typeof list.json.pagination.total, 'number');

    const events = await api(server.url, 'GET', `/v1/events?type=webhook.created&target=${hook.id}`, {
      token: server.adminToken,
    });
    assert.equal(events.json.events.length, 1);
    assert.equal(events.json.events[0].code, 'GH2400I');
    assert.equal(events.json.events[0].data.url_origin, receiver.base);
    assert.ok(!events.text.includes(hook.secret.slice(6)));

    const again = await createWebhook(server, { name: 'crud', url: `${receiver.base}/x`, event_types: ['*'] });
    assert.equal(again.status, 409);
    assert.equal(again.json.code, 'conflict');

    assert.equal(
      (await api(server.url, 'DELETE', `/v1/webhooks/${hook.id}`, { token: server.adminToken })).status,
      204,
    );
    for (const [method, path] of [
      ['GET', `/v1/webhooks/${hook.id}`],
      ['DELETE', `/v1/webhooks/${hook.id}`],
      ['GET', `/v1/webhooks/${hook.id}/deliveries`],
    ] as const) {
      const res = await api(server.url, method, path, { token: server.adminToken });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.json.code, 'not_found');
    }
    const deleted = await api(server.url, 'GET', `/v1/events?type=webhook.deleted&target=${hook.id}`, {
      token: server.adminToken,
    });
    assert.equal(deleted.json.events.length, 1);
    // The name is free again.
    const reuse = await createWebhook(server, { name: 'crud', url: `${receiver.base}/crud`, event_types: ['*'] });
    assert.equal(reuse.status, 201);
    await api(server.url, 'DELETE', `/v1/webhooks/${reuse.json.id}`, { token: server.adminToken });
  });

  test('invalid input answers 400 naming the field', async () => {
    const base = { name: 'bad', url: `${receiver.base}/bad`, event_types: ['user.created'] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, extra: true }, '/body/extra'],
      [{ ...base, event_types: [] }, '/body/event_types'],
      [{ ...base, event_types: ['user.created', 'no.such.event'] }, '/body/event_types/1'],
      [{ ...base, event_types: ['User Created'] }, '/body/event_types/0'],
      [{ ...base, name: '' }, '/body/name'],
      [{ ...base, url: 'x'.repeat(3000) }, '/body/url'],
      [{ ...base, url: 'not a url' }, '/body/url'],
      [{ name: 'bad', event_types: ['*'] }, '/body/url'],
    ];
    for (const [body, path] of cases) {
      const res = await createWebhook(server, body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} → ${res.status}`);
      assert.equal(res.json.code, 'invalid_request');
      assert.ok(
        res.json.errors.some((e: { path: string }) => e.path === path),
        `${path} in ${JSON.stringify(res.json.errors)}`,
      );
    }
    const tooMany = await api(server.url, 'GET', '/v1/webhooks?per_page=101', { token: server.adminToken });
    assert.equal(tooMany.status, 400);
    const badId = await api(server.url, 'GET', '/v1/webhooks/user_0000000000000000000000zzzz', {
      token: server.adminToken,
    });
    assert.equal(badId.status, 400);
    // Positive control: prefixes and * are accepted, duplicates folded.
    const ok = await createWebhook(server, {
      ...base,
      event_types: ['session.*', '*', 'user.created', 'user.created'],
    });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(ok.json.event_types, ['session.*', '*', 'user.created']);
    await api(server.url, 'DELETE', `/v1/webhooks/${ok.json.id}`, { token: server.adminToken });
  });

  test('webhooks:* is needed: an auditor is refused, an editor may (positive control)', async () => {
    const auditor = await userWithRoles(server, 'hook-auditor', ['auditor']);
    const editor = await userWithRoles(server, 'hook-editor', ['editor']);
    const body = { name: 'by-editor', url: `${receiver.base}/editor`, event_types: ['agent.created'] };
    assert.equal((await createWebhook(server, body, auditor.token)).status, 403);
    assert.equal((await api(server.url, 'GET', '/v1/webhooks', { token: auditor.token })).status, 403);
    const created = await createWebhook(server, body, editor.token);
    assert.equal(created.status, 201);
    assert.equal((await api(server.url, 'GET', '/v1/webhooks', { token: editor.token })).status, 200);
    const del = await api(server.url, 'DELETE', `/v1/webhooks/${created.json.id}`, { token: editor.token });
    assert.equal(del.status, 204);
  });
});

describe('URL policy (SSRF)', () => {
  test('private, loopback, link-local, CGNAT, unique-local and plain-http URLs are refused at creation', async () => {
    for (const url of [
      'http://10.0.0.1/hook',
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[fd00::1]/hook',
      'https://[fe80::1]/hook',
      'https://100.64.0.1/hook',
      'https://192.168.1.10/hook',
      'https://127.0.0.2/hook', // loopback, but not the allow-listed 127.0.0.1
      'https://localhost/hook',
      'http://example.com/hook',
      'ftp://example.com/hook',
      'https://user:pass@example.com/hook',
    ]) {
      const res = await createWebhook(server, { name: 'ssrf', url, event_types: ['*'] });
      assert.equal(res.status, 400, `${url} → ${res.status} ${res.text}`);
      assert.equal(res.json.errors[0].path, '/body/url', url);
    }
  });

  test('positive controls: a public https URL, and http to an allow-listed host, are accepted', async () => {
    for (const url of ['https://example.com/hook', 'https://93.184.215.14:8443/hook', `${receiver.base}/allowed`]) {
      // audit.pruned never happens in this test, so nothing is ever sent to the public hosts.
      const res = await createWebhook(server, { name: 'ssrf-ok', url, event_types: ['audit.pruned'] });
      assert.equal(res.status, 201, `${url} → ${res.status} ${res.text}`);
      await api(server.url, 'DELETE', `/v1/webhooks/${res.json.id}`, { token: server.adminToken });
    }
  });

  test('a name that resolves to a non-public address is refused when delivering (DNS rebinding)', async (t) => {
    const name = hostname();
    const resolved = await lookup(name).catch(() => undefined);
    const local =
      resolved && /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$|fe80:|f[cd])/i.test(resolved.address);
    if (!local) {
      assert.notEqual(process.env.CI, 'true', `${name} must resolve to a local address on CI machines`);
      t.skip(`${name} does not resolve to a loopback or private address here`);
      return;
    }
    // Not an IP literal, not "localhost": creation cannot know; delivery must check the answer.
    const created = await createWebhook(server, {
      name: 'rebinding',
      url: `https://${name}:${receiver.port}/rebind`,
      event_types: ['user.deleted'],
    });
    assert.equal(created.status, 201, created.text);
    const user = await api(server.url, 'POST', '/v1/users', { token: server.adminToken, body: { name: 'rebind-me' } });
    await api(server.url, 'DELETE', `/v1/users/${user.json.id}`, { token: server.adminToken });
    const delivery = await waitFor('a refused attempt', async () => {
      const d = (await deliveriesOf(server, created.json.id)).deliveries[0];
      return d?.attempts.length > 0 ? d : undefined;
    });
    assert.equal(delivery.attempts[0].status_code, null);
    assert.match(delivery.attempts[0].error, /resolves to .*refused/);
    assert.equal(receiver.at('/rebind').length, 0, 'nothing reached the address');
    await api(server.url, 'DELETE', `/v1/webhooks/${created.json.id}`, { token: server.adminToken });
  });
});

describe('delivery', () => {
  test('the verifier written here reproduces the Standard Webhooks test vector', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const headers = {
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: '1614265330',
      signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    assert.ok(verifyStandardWebhook(secret, headers, '{"test": 2432232314}', 1614265330));
    assert.ok(!verifyStandardWebhook(secret, headers, '{"test": 2432232315}', 1614265330));
    assert.ok(!verifyStandardWebhook(secret, headers, '{"test": 2432232314}', 1614265330 + 3600));
  });

  test('an event produces a signed delivery that an independent verifier accepts', async () => {
    const created = await createWebhook(server, {
      name: 'signed',
      url: `${receiver.base}/signed`,
      event_types: ['user.*'],
    });
    const { secret, id: webhookId } = created.json;
    const user = await api(server.url, 'POST', '/v1/users', { token: server.adminToken, body: { name: 'hooked' } });
    assert.equal(user.status, 201);

    const hit = await waitFor('the user.created delivery', () =>
      receiver.at('/signed').find((h) => JSON.parse(h.body).data?.target?.id === user.json.id),
    );
    assert.equal(hit.headers['content-type'], 'application/json');
    assert.match(String(hit.headers['webhook-id']), /^dlv_[0-9a-z]{26}$/);
    assert.ok(Math.abs(Number(hit.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
    assert.ok(verifyStandardWebhook(secret, signed(hit.headers), hit.body), 'signature verifies');
    assert.ok(!verifyStandardWebhook(secret, signed(hit.headers), `${hit.body} `), 'a changed body does not');
    const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    assert.ok(!verifyStandardWebhook(otherSecret, signed(hit.headers), hit.body), 'another secret does not');

    const payload = JSON.parse(hit.body);
    assert.equal(payload.type, 'user.created');
    assert.match(payload.data.id, /^evt_/);
    assert.equal(payload.data.type, 'user.created');
    assert.equal(payload.data.code, 'GH2000I');
    assert.equal(payload.timestamp, payload.data.time);
    assert.deepEqual(Object.keys(payload).sort(), ['data', 'timestamp', 'type']);

    const list = await waitFor('the delivery to be recorded as succeeded', async () => {
      const l = await deliveriesOf(server, webhookId);
      return l.deliveries.find(
        (d: { id: string; status: string }) => d.id === hit.headers['webhook-id'] && d.status === 'succeeded',
      )
        ? l
        : undefined;
    });
    const d = list.deliveries.find((x: { id: string }) => x.id === hit.headers['webhook-id']);
    assert.equal(d.webhook_id, webhookId);
    assert.equal(d.event_id, payload.data.id);
    assert.equal(d.event_type, 'user.created');
    assert.equal(d.next_attempt_at, null);
    assert.equal(d.attempts.length, 1);
    assert.equal(d.attempts[0].status_code, 200);
    assert.equal(d.attempts[0].error, null);
    assert.ok(d.attempts[0].latency_ms >= 0);
    const filtered = await deliveriesOf(server, webhookId, '?status=failed');
    assert.equal(filtered.deliveries.length, 0);

    // Delivery records expire (retention), so they cannot grow without bound.
    const stored = server.gatehouse.services.state.list(`webhook_deliveries/${webhookId}/`);
    assert.ok(stored.length >= 1);
    for (const item of stored) {
      const days = ((item.expiresAt ?? 0) - Date.now()) / 86_400_000;
      assert.ok(days > 6.9 && days <= 7, `expires in ${days} days`);
    }
  });

  test('retries after 500s and after a timeout, then succeeds; every attempt is listed', async () => {
    receiver.on('/flaky', (n) => ([500, 500, 'hang'] as const)[n] ?? 200);
    const created = await createWebhook(server, {
      name: 'flaky',
      url: `${receiver.base}/flaky`,
      event_types: ['role.created'],
    });
    const role = await api(server.url, 'POST', '/v1/roles', {
      token: server.adminToken,
      body: { name: 'hooked-role', allow: {} },
    });
    assert.equal(role.status, 201);
    const delivery = await waitFor('the fourth attempt to succeed', async () => {
      const d = (await deliveriesOf(server, created.json.id)).deliveries[0];
      return d?.status === 'succeeded' ? d : undefined;
    });
    assert.deepEqual(
      delivery.attempts.map((a: { status_code: number | null }) => a.status_code),
      [500, 500, null, 200],
    );
    assert.match(delivery.attempts[0].error, /HTTP 500/);
    assert.match(delivery.attempts[2].error, /no response within 300 ms/);
    assert.ok(delivery.attempts[2].latency_ms >= 290, `timed out after ${delivery.attempts[2].latency_ms} ms`);
    const times = delivery.attempts.map((a: { at: string }) => Date.parse(a.at));
    assert.deepEqual(
      [...times].sort((a, b) => a - b),
      times,
      'attempts in order',
    );

    const hits = receiver.at('/flaky');
    assert.equal(hits.length, 4);
    assert.ok(
      hits.every((h) => h.headers['webhook-id'] === delivery.id),
      'one webhook-id across retries',
    );
    assert.equal(new Set(hits.map((h) => h.body)).size, 1, 'the same body each time');
    for (const h of hits) assert.ok(verifyStandardWebhook(created.json.secret, signed(h.headers), h.body));
    const hook = await api(server.url, 'GET', `/v1/webhooks/${created.json.id}`, { token: server.adminToken });
    assert.equal(hook.json.status, 'active');
    assert.equal(hook.json.failure.consecutive_failures, 0);
  });

  test('a delivery that keeps failing fails after the schedule, with an event, and disables the webhook', async () => {
    receiver.on('/down', () => 503);
    const created = await createWebhook(server, {
      name: 'down',
      url: `${receiver.base}/down`,
      event_types: ['role.deleted'],
    });
    const id = created.json.id;
    await api(server.url, 'POST', '/v1/roles', { token: server.adminToken, body: { name: 'doomed', allow: {} } });
    assert.equal((await api(server.url, 'DELETE', '/v1/roles/doomed', { token: server.adminToken })).status, 204);

    const hook = await waitFor('the webhook to be disabled', async () => {
      const h = await api(server.url, 'GET', `/v1/webhooks/${id}`, { token: server.adminToken });
      return h.json.status === 'disabled' ? h.json : undefined;
    });
    assert.equal(hook.failure.consecutive_failures, 1);
    assert.match(hook.failure.last_error, /HTTP 503/);
    assert.ok(hook.failure.disabled_at);
    assert.equal(receiver.at('/down').length, 4, 'the first attempt and three retries');
    const d = (await deliveriesOf(server, id)).deliveries[0];
    assert.equal(d.status, 'failed');
    assert.equal(d.next_attempt_at, null);
    assert.equal(d.attempts.length, 4);

    const failed = await api(server.url, 'GET', `/v1/events?type=webhook.delivery.failed&target=${id}`, {
      token: server.adminToken,
    });
    assert.equal(failed.json.events.length, 1);
    assert.equal(failed.json.events[0].code, 'GH2403W');
    assert.equal(failed.json.events[0].success, false);
    assert.equal(failed.json.events[0].actor.kind, 'system');
    assert.equal(failed.json.events[0].data.delivery_id, d.id);
    const disabled = await api(server.url, 'GET', `/v1/events?type=webhook.disabled&target=${id}`, {
      token: server.adminToken,
    });
    assert.equal(disabled.json.events.length, 1);
    assert.equal(disabled.json.events[0].code, 'GH2402W');
    const listed = await api(server.url, 'GET', '/v1/webhooks?status=disabled', { token: server.adminToken });
    assert.ok(listed.json.webhooks.some((w: { id: string }) => w.id === id));

    // Disabled: new events are not sent to it.
    await api(server.url, 'POST', '/v1/roles', { token: server.adminToken, body: { name: 'doomed2', allow: {} } });
    await api(server.url, 'DELETE', '/v1/roles/doomed2', { token: server.adminToken });
    await sleep(300);
    assert.equal(receiver.at('/down').length, 4);
    assert.equal((await deliveriesOf(server, id)).deliveries.length, 1);
  });

  test('redirects are not followed', async () => {
    receiver.on('/redirect', () => 307);
    const created = await createWebhook(server, {
      name: 'redirect',
      url: `${receiver.base}/redirect`,
      event_types: ['user.api_key.created'],
    });
    const user = await api(server.url, 'POST', '/v1/users', { token: server.adminToken, body: { name: 'redirected' } });
    await api(server.url, 'POST', `/v1/users/${user.json.id}/api-keys`, { token: server.adminToken, body: {} });
    const delivery = await waitFor('an attempt', async () => {
      const d = (await deliveriesOf(server, created.json.id)).deliveries[0];
      return d?.attempts.length > 0 ? d : undefined;
    });
    assert.equal(delivery.attempts[0].status_code, 307);
    assert.match(delivery.attempts[0].error, /redirects are not followed/);
    await sleep(100);
    assert.equal(receiver.at('/target').length, 0);
    await api(server.url, 'DELETE', `/v1/webhooks/${created.json.id}`, { token: server.adminToken });
  });

  test('no signing secret ends up in the data dir, and the sealing key is 0600', () => {
    assert.ok(secrets.length >= 5);
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(server.dataDir);
    assert.ok(files.some((f) => f.endsWith('state.db')));
    for (const file of files) {
      const content = readFileSync(file);
      for (const secret of secrets) {
        const raw = Buffer.from(secret.slice(6), 'base64');
        assert.ok(!content.includes(secret.slice(6)), `${file} holds a secret (base64)`);
        assert.ok(!content.includes(raw), `${file} holds a secret (raw bytes)`);
      }
    }
    const keyFile = join(server.dataDir, 'webhook-secret.key');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    assert.equal(readFileSync(keyFile).length, 32);
  });
});

test('a hung receiver slows neither the API nor other webhooks', async () => {
  const s = await startTestServer({ ...FAST, 'webhooks.timeout': '5s', 'webhooks.concurrency': 8 });
  const r = await startReceiver();
  try {
    r.on('/hang', () => 'hang');
    const hung = await createWebhook(s, { name: 'hung', url: `${r.base}/hang`, event_types: ['*'] });
    const fine = await createWebhook(s, { name: 'fine', url: `${r.base}/fine`, event_types: ['user.created'] });
    assert.equal(hung.status, 201);
    assert.equal(fine.status, 201);

    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const res = await api(s.url, 'POST', '/v1/users', { token: s.adminToken, body: { name: `busy-${i}` } });
      latencies.push(performance.now() - started);
      assert.equal(res.status, 201);
    }
    await waitFor('the hung receiver to hold requests', () => r.hangingNow() >= 2);
    // Every event reached the healthy receiver while the other one held its connections open.
    await waitFor('the healthy webhook to get all 20 events', () => r.at('/fine').length >= 20, 3000);
    assert.ok(r.hangingNow() >= 1, 'the hung receiver still holds requests');
    assert.ok(r.hangingNow() <= 4, `per-webhook concurrency bounds the hung receiver (${r.hangingNow()})`);
    const max = Math.max(...latencies);
    assert.ok(max < 1000, `slowest API request took ${Math.round(max)} ms while deliveries hung for 5 s`);

    // Shutdown is bounded too: attempts in flight get a grace period, then are cut (and retried later).
    const stopping = performance.now();
    await s.stop();
    assert.ok(performance.now() - stopping < 4500, `stop took ${Math.round(performance.now() - stopping)} ms`);
  } finally {
    await s.stop().catch(() => undefined);
    await r.close();
  }
});

test('crash safety: deliveries survive restarts, whether not yet read or pending a retry', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-webhooks-'));
  const r = await startReceiver();
  try {
    // 1. Events recorded but not yet read by the dispatcher (it polls once an hour here).
    const first = await startTestServer({ ...FAST, 'webhooks.poll_interval': '1h' }, { dataDir });
    // Its one read, at start, is done before anything below happens.
    await waitFor('the first read', () => first.gatehouse.services.state.get('webhooks/dispatch/position'));
    const created = await createWebhook(first, {
      name: 'durable',
      url: `${r.base}/crash`,
      event_types: ['user.created'],
    });
    const hookId = created.json.id as string;
    const user = await api(first.url, 'POST', '/v1/users', { token: first.adminToken, body: { name: 'survivor' } });
    assert.equal(user.status, 201);
    await sleep(200);
    assert.equal(r.at('/crash').length, 0, 'not delivered yet');
    await first.stop({ keepData: true });

    // 2. The next instance reads them; the receiver fails, so the delivery is pending a retry when it stops.
    r.on('/crash', () => 500);
    const retry = { 'webhooks.retry_schedule': ['2s', '2s', '2s', '2s'] };
    const second = await startTestServer({ ...FAST, ...retry }, { dataDir });
    await waitFor('a first (failed) attempt', () => r.at('/crash').length >= 1);
    const pending = (await deliveriesOf(second, hookId)).deliveries;
    assert.equal(pending.length, 1);
    await second.stop({ keepData: true });

    // 3. A third instance retries it; now the receiver accepts.
    r.on('/crash', () => 200);
    const attemptsBefore = r.at('/crash').length;
    const third = await startTestServer({ ...FAST, ...retry }, { dataDir });
    try {
      const done = await waitFor(
        'the delivery to succeed after the restart',
        async () => {
          const d = (await deliveriesOf(third, hookId)).deliveries;
          return d[0]?.status === 'succeeded' ? d : undefined;
        },
        8000,
      );
      assert.equal(done.length, 1, 'one delivery: no duplicate was created on restart');
      const hits = r.at('/crash');
      assert.ok(hits.length > attemptsBefore);
      assert.equal(new Set(hits.map((h) => h.headers['webhook-id'])).size, 1, 'one webhook-id throughout');
      const last = hits[hits.length - 1] as Hit;
      assert.equal(JSON.parse(last.body).data.target.id, user.json.id);
      assert.ok(
        verifyStandardWebhook(created.json.secret, signed(last.headers), last.body),
        'same secret after restarts',
      );
      assert.equal(done[0].attempts.at(-1).status_code, 200);
    } finally {
      await third.stop();
    }
  } finally {
    await r.close();
  }
});

test('with no webhook the dispatcher moves past events without reading them; a webhook created later gets what follows', async () => {
  const r = await startReceiver();
  const s = await startTestServer(FAST);
  try {
    const store = s.gatehouse.services.auditStore;
    const position = () => s.gatehouse.services.state.get<{ position: string }>('webhooks/dispatch/position');
    await waitFor('the first read', position);
    let reads = 0;
    const tail = store.tail.bind(store);
    store.tail = (...args: Parameters<typeof tail>) => {
      reads++;
      return tail(...args);
    };
    for (let i = 0; i < 5; i++) {
      const res = await api(s.url, 'POST', '/v1/users', { token: s.adminToken, body: { name: `unread-${i}` } });
      assert.equal(res.status, 201);
    }
    const head = await store.head?.();
    assert.ok(head, 'the store names its head');
    await waitFor('the position at the head', () => position()?.value.position === head);
    assert.equal(reads, 0, 'no event was read while no webhook was active');

    // Positive control: with a webhook, events are read and delivered — only those after it.
    const hook = await createWebhook(s, { name: 'later', url: `${r.base}/later`, event_types: ['user.created'] });
    assert.equal(hook.status, 201);
    const res = await api(s.url, 'POST', '/v1/users', { token: s.adminToken, body: { name: 'read-1' } });
    assert.equal(res.status, 201);
    await waitFor('the delivery', () => r.at('/later').length >= 1);
    assert.ok(reads > 0);
    await sleep(200);
    const sent = r.at('/later').map((h) => JSON.parse(h.body).data?.target?.id);
    assert.deepEqual(sent, [res.json.id], 'only the event after the webhook was sent');
  } finally {
    await s.stop();
    await r.close();
  }
});

describe('a webhook lives no longer than its creator’s right to read audit events', () => {
  const role = (name: string, rules: unknown[]) =>
    api(server.url, 'POST', '/v1/roles', { token: server.adminToken, body: { name, allow: { rules } } });
  const webhookNow = async (id: string) =>
    (await api(server.url, 'GET', `/v1/webhooks/${id}`, { token: server.adminToken })).json;
  const eventsNamed = async (type: string, target: string) =>
    (await api(server.url, 'GET', `/v1/events?type=${type}&target=${target}`, { token: server.adminToken })).json
      .events;

  before(async () => {
    const hooksAndEvents = [
      { resources: ['webhooks'], verbs: ['*'] },
      { resources: ['events'], verbs: ['list', 'read'] },
    ];
    assert.equal((await role('hook-reader', hooksAndEvents)).status, 201);
    assert.equal((await role('hook-only', [{ resources: ['webhooks'], verbs: ['*'] }])).status, 201);
  });

  test('delivered while the creator reads events; disabled, with an event saying why, once the right is taken', async () => {
    const maker = await userWithRoles(server, 'hook-maker', ['hook-reader']);
    const created = await createWebhook(
      server,
      { name: 'by-maker', url: `${receiver.base}/by-maker`, event_types: ['role.created'] },
      maker.token,
    );
    assert.equal(created.status, 201);
    assert.deepEqual(created.json.created_by, { kind: 'user', id: maker.id });
    // Positive control: the creator may read events, so the webhook delivers.
    await role('made-while-allowed', []);
    await waitFor('the delivery while the creator may read events', () =>
      receiver.at('/by-maker').find((h) => JSON.parse(h.body).data.target?.name === 'made-while-allowed'),
    );

    const changed = await api(server.url, 'PATCH', `/v1/users/${maker.id}`, {
      token: server.adminToken,
      body: { roles: ['hook-only'] },
    });
    assert.equal(changed.status, 200);
    await role('made-after-the-change', []);
    const hook = await waitFor('the webhook to be disabled', async () => {
      const h = await webhookNow(created.json.id);
      return h.status === 'disabled' ? h : undefined;
    });
    assert.match(hook.failure.last_error, /hook-maker may no longer read audit events/);
    const [disabled] = await eventsNamed('webhook.disabled', created.json.id);
    assert.equal(disabled.data.reason, 'creator_lost_rights');
    await sleep(200);
    assert.equal(
      receiver.at('/by-maker').filter((h) => JSON.parse(h.body).data.target?.name === 'made-after-the-change').length,
      0,
      'the event after the change was not sent',
    );
    const [delivery] = (await deliveriesOf(server, created.json.id, '?status=failed')).deliveries;
    assert.match(delivery.attempts[0].error, /^not sent: /);
    assert.equal(delivery.attempts[0].status_code, null);
  });

  test('a deleted creator’s webhook stops too', async () => {
    const maker = await userWithRoles(server, 'hook-leaver', ['hook-reader']);
    const created = await createWebhook(
      server,
      { name: 'by-leaver', url: `${receiver.base}/by-leaver`, event_types: ['role.created'] },
      maker.token,
    );
    assert.equal(created.status, 201);
    await role('made-before-leaving', []);
    await waitFor('the delivery before the creator left', () => receiver.at('/by-leaver')[0]);
    assert.equal((await api(server.url, 'DELETE', `/v1/users/${maker.id}`, { token: server.adminToken })).status, 200);
    await role('made-after-leaving', []);
    const hook = await waitFor('the webhook to be disabled', async () => {
      const h = await webhookNow(created.json.id);
      return h.status === 'disabled' ? h : undefined;
    });
    assert.match(hook.failure.last_error, /hook-leaver was deleted/);
    assert.equal(receiver.at('/by-leaver').length, 1, 'nothing was sent after the creator was deleted');
  });
});

test('a receiver answering an endless body is cut off after 64 KiB, and the delivery still counts', async () => {
  // A long attempt timeout, so only the response bound (not the deadline) can end the endless answer.
  const s = await startTestServer({ ...FAST, 'webhooks.timeout': '20s' });
  let written = 0;
  let closedAfter = 0;
  const endless = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 120);
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) written += chunk.length;
      if (!res.destroyed) written += chunk.length;
    };
    res.on('drain', pump);
    res.on('close', () => {
      closedAfter = written;
    });
    pump();
  });
  await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
  try {
    const port = (endless.address() as { port: number }).port;
    const created = await createWebhook(s, {
      name: 'endless',
      url: `http://127.0.0.1:${port}/`,
      event_types: ['role.created'],
    });
    assert.equal(created.status, 201);
    await api(s.url, 'POST', '/v1/roles', { token: s.adminToken, body: { name: 'endless-trigger', allow: {} } });
    const delivery = await waitFor('the delivery to succeed', async () => {
      const d = (await deliveriesOf(s, created.json.id)).deliveries[0];
      return d?.status === 'succeeded' ? d : undefined;
    });
    assert.equal(delivery.attempts[0].status_code, 200);
    await waitFor('the receiver to see its connection closed', () => closedAfter > 0, 10_000);
    // 64 KiB read, plus what the two sockets' buffers held; an unbounded read would run for 20 s.
    assert.ok(closedAfter < 64 * 1024 * 1024, `the receiver wrote ${closedAfter} bytes before being cut off`);
  } finally {
    endless.closeAllConnections();
    await new Promise<void>((resolve) => endless.close(() => resolve()));
    await s.stop();
  }
});
