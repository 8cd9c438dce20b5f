// What a slow or greedy client can hold open, driven with raw sockets: a body that never finishes
// gets 408, a silent connection is closed, and connections are capped per listener and per source.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { api, startTestServer, type TestServer } from './helpers/gatehouse.js';

let gh: TestServer;
before(async () => {
  gh = await startTestServer({
    'http.request_timeout': '2s',
    'http.idle_timeout': '1s',
    'http.max_connections': 6,
    'http.max_connections_per_source': 3,
  });
});
after(() => gh.stop());

const portOf = (url: string) => Number(new URL(url).port);

/** A raw connection: what it received, and when it closed. */
function open(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(portOf(url), '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => {
      data += d;
    });
    socket.on('error', () => {});
    const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - started)));
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

// The same bounds hold on the auth listener (3025) and on the web listener (3080), which serves the
// console, /v1 and the apps: each listener has its own cap.
for (const [on, url, probe] of [
  ['', () => gh.url, '/healthz'],
  ['on the web listener (3080): ', () => gh.webUrl, '/webapi/ping'],
] as const) {
  test(`${on}a body that never finishes is answered 408 problem+json and the connection closes`, async () => {
    const c = await open(url());
    c.socket.write(
      'POST /v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"api',
    );
    // Keep trickling a byte now and then so that only the whole-request bound can end it.
    const trickle = setInterval(() => c.socket.writable && c.socket.write(' '), 300);
    const ms = await c.closed;
    clearInterval(trickle);
    assert.equal(statusOf(c.received()), 408, c.received());
    assert.match(c.received(), /content-type: application\/problem\+json/i);
    assert.match(c.received(), /x-request-id: req_/i);
    // The whole-request bound (2 s, checked each second) ended it, not the idle one.
    assert.match(bodyOf(c.received()).detail, /not received in time/);
    assert.ok(ms >= 1900 && ms < 10_000, `closed after ${ms} ms`);
  });

  test(`${on}a body that stalls is answered 408 once the connection is idle`, async () => {
    const c = await open(url());
    c.socket.write(
      'POST /v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{',
    );
    const ms = await c.closed;
    assert.equal(statusOf(c.received()), 408, c.received());
    assert.equal(bodyOf(c.received()).code, 'invalid_request');
    assert.match(bodyOf(c.received()).detail, /idle/);
    assert.ok(ms < 4000, `closed after ${ms} ms`);
  });

  test(`${on}a connection that never sends a request is closed`, async () => {
    const c = await open(url());
    const ms = await c.closed;
    assert.ok(ms < 4000, `closed after ${ms} ms`);
  });

  test(`${on}connections are capped per source: the one over the cap gets 503, a freed slot is reusable`, async () => {
    const held = await Promise.all([open(url()), open(url()), open(url())]);
    const over = await open(url());
    await over.closed;
    assert.equal(statusOf(over.received()), 503, over.received());
    assert.match(over.received(), /retry-after: 1/i);
    assert.match(bodyOf(over.received()).detail, /your address/);
    // The held ones still work.
    held[0]?.socket.write(`GET ${probe} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    await held[0]?.closed;
    assert.equal(statusOf(held[0]?.received() ?? ''), 200);
    // That one closed: a new request from this address gets through.
    const r = await api(url(), 'GET', probe);
    assert.equal(r.status, 200);
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
  });

  test(`${on}connections are capped per listener, whatever the sources`, async () => {
    // Two loopback addresses stand for two sources (Linux routes all of 127/8 to lo).
    const openFrom = (localAddress: string) =>
      new Promise<{ socket: Socket; received: () => string; closed: Promise<number> }>((resolve, reject) => {
        const socket = connect({ port: portOf(url()), host: '127.0.0.1', localAddress });
        let data = '';
        socket.on('data', (d) => {
          data += d;
        });
        socket.on('error', () => {});
        const closed = new Promise<number>((r) => socket.on('close', () => r(0)));
        socket.once('connect', () => resolve({ socket, received: () => data, closed }));
        socket.once('error', reject);
      });
    const held = [
      ...(await Promise.all([1, 2, 3].map(() => openFrom('127.0.0.2')))),
      ...(await Promise.all([1, 2, 3].map(() => openFrom('127.0.0.3')))),
    ];
    const over = await openFrom('127.0.0.4');
    await over.closed;
    assert.equal(statusOf(over.received()), 503, over.received());
    assert.match(bodyOf(over.received()).detail, /this listener/);
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    // Slots are given back on close.
    assert.equal((await api(url(), 'GET', probe)).status, 200);
  });
}
