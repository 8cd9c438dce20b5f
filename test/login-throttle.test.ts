// Failed logins are throttled per source address and per presented credential, and a valid
// credential is never refused: anyone behind the same NAT or load balancer must not be able to lock
// everyone else out by failing on purpose. Sources are told apart by loopback address (127.0.0.x).
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { ADMIN_KEY, api, startTestServer, type TestServer } from './helpers/gatehouse.js';

let gh: TestServer;
before(async () => {
  gh = await startTestServer({ 'login_throttle.max_failures': 3, 'login_throttle.window': '1m' });
});
after(() => gh.stop());

/** POST a JSON body from a chosen local address: what a client at that address would see. */
function postFrom(
  from: string,
  path: string,
  body: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected field by field
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: any }> {
  const url = new URL(path, gh.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const wrongKey = (n: number) => `ghk_${String(n).padStart(43, 'x')}`;
const events = async (type: string) =>
  (await api(gh.url, 'GET', `/v1/events?type=${type}&per_page=100`, { token: gh.adminToken })).json;

test('after max_failures from one address its failures get 429, yet a valid key from it still works', async () => {
  const from = '127.0.0.21';
  for (let i = 0; i < 3; i++)
    assert.equal((await postFrom(from, '/v1/auth/token', { api_key: wrongKey(i) })).status, 401);
  const blocked = await postFrom(from, '/v1/auth/token', { api_key: wrongKey(99) });
  assert.equal(blocked.status, 429);
  assert.equal(blocked.json.code, 'rate_limited');
  const retry = Number(blocked.headers['retry-after']);
  assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
  assert.equal(blocked.headers['ratelimit-remaining'], '0');

  const right = await postFrom(from, '/v1/auth/token', { api_key: ADMIN_KEY });
  assert.equal(right.status, 200, 'a valid key is never throttled');
  const refreshed = await postFrom(from, '/v1/auth/refresh', { refresh_token: right.json.refresh_token });
  assert.equal(refreshed.status, 200, 'nor a valid refresh token');

  // Positive control: another address is not affected by this one's failures.
  assert.equal((await postFrom('127.0.0.22', '/v1/auth/token', { api_key: wrongKey(5) })).status, 401);
  const throttled = await events('auth.login.throttled');
  assert.ok(throttled.events.some((e: { remote_addr?: string }) => e.remote_addr === from));
});

test('one wrong credential tried from many addresses is throttled as a credential', async () => {
  const key = wrongKey(7);
  for (const from of ['127.0.0.31', '127.0.0.32', '127.0.0.33']) {
    assert.equal((await postFrom(from, '/v1/auth/token', { api_key: key })).status, 401);
  }
  // A fresh address presenting that same key: refused for the key's failures.
  assert.equal((await postFrom('127.0.0.34', '/v1/auth/token', { api_key: key })).status, 429);
  // Control: the fresh address with another wrong key is an ordinary 401.
  assert.equal((await postFrom('127.0.0.34', '/v1/auth/token', { api_key: wrongKey(8) })).status, 401);
  // And the right key from any of them works.
  assert.equal((await postFrom('127.0.0.31', '/v1/auth/token', { api_key: ADMIN_KEY })).status, 200);
});

test('the counters forget after the window', async () => {
  const from = '127.0.0.41';
  for (let i = 0; i < 3; i++) await postFrom(from, '/v1/auth/token', { api_key: wrongKey(10 + i) });
  assert.equal((await postFrom(from, '/v1/auth/token', { api_key: wrongKey(20) })).status, 429);
  gh.clockOffset.ms += 61_000;
  assert.equal((await postFrom(from, '/v1/auth/token', { api_key: wrongKey(21) })).status, 401);
});
