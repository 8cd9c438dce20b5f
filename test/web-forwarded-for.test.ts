// X-Forwarded-For on the web listener (the one haproxy fronts): believed only when the connection comes
// from a configured trusted proxy (`trusted_proxies`, Fastify's trustProxy), and then only the hop that
// proxy added (the rightmost address not itself trusted); from any other peer the header is the
// caller's say-so and the audit trail keeps the connection's own address. The auth listener never
// believes it from a client (a proxy's credential is needed there: test/cluster-proxies.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_KEY, api, startTestServer, type TestServer } from './helpers/gatehouse.js';

let behindLb: TestServer;
let exposed: TestServer;

before(async () => {
  behindLb = await startTestServer({ trusted_proxies: ['127.0.0.0/8'] });
  // The balancer is elsewhere: this test's loopback connection is an ordinary client.
  exposed = await startTestServer({ trusted_proxies: ['10.20.0.0/16'] });
});
after(async () => {
  await Promise.allSettled([behindLb?.stop(), exposed?.stop()]);
});

/** Signs in through `base` with this X-Forwarded-For; the remote_addr its auth.token.issued event records. */
async function signInFrom(server: TestServer, base: string, forwardedFor: string): Promise<string | undefined> {
  const before = await issuedAddrs(server);
  const res = await fetch(`${base}/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ api_key: ADMIN_KEY }),
  });
  assert.equal(res.status, 200, await res.text());
  const after = await issuedAddrs(server);
  assert.equal(after.length, before.length + 1, 'one sign-in, one event');
  return after[0];
}

async function issuedAddrs(server: TestServer): Promise<Array<string | undefined>> {
  const page = await api(server.url, 'GET', '/v1/audit/events?type=auth.token.issued&per_page=100', {
    token: server.adminToken,
  });
  assert.equal(page.status, 200, page.text);
  return (page.json.events as Array<{ remote_addr?: string }>).map((e) => e.remote_addr);
}

describe('X-Forwarded-For on the web listener', () => {
  test('from a trusted proxy, the audit event records the client address it forwarded (positive control)', async () => {
    assert.equal(await signInFrom(behindLb, behindLb.webUrl, '198.51.100.7'), '198.51.100.7');
    // A client's own header arrives first and the balancer appends the peer it saw: that hop counts.
    assert.equal(await signInFrom(behindLb, behindLb.webUrl, '6.6.6.6, 198.51.100.8'), '198.51.100.8');
  });

  test('from a peer that is not a trusted proxy, a forged X-Forwarded-For is ignored', async () => {
    assert.equal(await signInFrom(exposed, exposed.webUrl, '198.51.100.9'), '127.0.0.1');
  });

  test('the auth listener ignores it from a client, even one on a trusted address', async () => {
    assert.equal(await signInFrom(behindLb, behindLb.url, '203.0.113.9'), '127.0.0.1');
  });
});
