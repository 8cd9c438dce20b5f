import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { HEADERS_WAIT_MS, relay } from './relay.js';

/** A server whose one request is answered by `handler`; the client's view of the answer. */
async function scene(handler: (res: ServerResponse) => Promise<void>) {
  const server = createServer((_req, res) => void handler(res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const res = await new Promise<IncomingMessage>((resolve) => get(`http://127.0.0.1:${port}/`, resolve));
  return { server, res };
}

const readAll = (res: IncomingMessage) =>
  new Promise<{ body: string; aborted: boolean }>((resolve) => {
    let body = '';
    res.on('data', (c) => (body += c));
    res.on('end', () => resolve({ body, aborted: false }));
    res.on('error', () => resolve({ body, aborted: true }));
  });

test('the whole answer reaches the client and the relay resolves', async () => {
  const upstream = new PassThrough();
  let settled: Promise<void> | undefined;
  const { server, res } = await scene(async (out) => {
    out.writeHead(200).flushHeaders();
    settled = relay(upstream, out);
  });
  upstream.write('hello ');
  upstream.end('world');
  assert.deepEqual(await readAll(res), { body: 'hello world', aborted: false });
  await settled;
  server.close();
});

test('an upstream failing mid-answer cuts the client off (no silent short answer) and rejects', async () => {
  const upstream = new PassThrough();
  let settled: Promise<void> | undefined;
  const { server, res } = await scene(async (out) => {
    out.writeHead(200).flushHeaders(); // chunked: the client can tell a cut answer from a whole one
    settled = relay(upstream, out);
  });
  upstream.write('partial');
  const read = readAll(res);
  upstream.destroy(new Error('upstream reset'));
  await assert.rejects(settled as Promise<void>, /upstream reset/);
  assert.equal((await read).aborted, true);
  server.close();
});

test('an upstream closed early without an error still ends the relay (it would hang with a bare pipe)', async () => {
  const upstream = new PassThrough();
  let settled: Promise<void> | undefined;
  const { server, res } = await scene(async (out) => {
    out.writeHead(200).flushHeaders();
    settled = relay(upstream, out);
  });
  upstream.write('partial');
  const read = readAll(res);
  upstream.destroy();
  await assert.rejects(settled as Promise<void>, /upstream closed before the whole answer/);
  assert.equal((await read).aborted, true);
  server.close();
});

test('a client going away mid-answer destroys the upstream body and rejects', async () => {
  const upstream = new PassThrough();
  let settled: Promise<void> | undefined;
  const { server, res } = await scene(async (out) => {
    out.writeHead(200).flushHeaders();
    settled = relay(upstream, out);
  });
  upstream.write('first');
  await once(res, 'data');
  res.destroy();
  await assert.rejects(settled as Promise<void>, /client went away/);
  assert.equal(upstream.destroyed, true);
  server.close();
});

test('an answer of unknown length that stays quiet still shows its headers to the client within HEADERS_WAIT_MS', async () => {
  const upstream = new PassThrough();
  let settled: Promise<void> | undefined;
  const t0 = Date.now();
  // scene() resolves when the client has the status line and headers: no body has been written yet.
  const { server, res } = await scene(async (out) => {
    out.writeHead(200, { 'content-type': 'text/event-stream' });
    settled = relay(upstream, out, { unknownLength: true });
  });
  const waited = Date.now() - t0;
  assert.equal(res.headers['content-type'], 'text/event-stream');
  assert.ok(waited >= HEADERS_WAIT_MS - 5 && waited < 2000, `headers after ${waited} ms`);
  const read = readAll(res);
  upstream.end('data: late\n\n');
  assert.equal((await read).body, 'data: late\n\n');
  await settled;
  server.close();
});
