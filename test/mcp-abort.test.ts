// The MCP gateway's way upstream (src/proxy/mcp/mcp-upstream.ts) under long-running calls whose
// clients go away: each disconnect aborts the upstream call (the official SDK v2 server sees its
// request's signal fire), and the session's AbortSignal — shared by every call of a long-lived
// session — keeps no listener once the calls are over, however many there were.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createMcpUpstream } from '../src/proxy/mcp/mcp-upstream.js';
import type { ResourceRecord } from '../src/resources/resource-service.js';
import { startTestMcpServer, type TestMcpServer } from './helpers/mcp-upstream.js';

let upstream: TestMcpServer;
let gateway: Server;
let port: number;
const session = new AbortController();
const forwarder = createMcpUpstream();
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(w.name);

before(async () => {
  process.on('warning', onWarning);
  upstream = await startTestMcpServer();
  const app = { id: 'app_1', name: 'slow-mcp', uri: upstream.url } as ResourceRecord;
  // The door's forwarding step alone, every request in one session (one AbortSignal).
  gateway = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = forwarder.headersFor(req.headers, {}, 'assertion');
    await forwarder.send(app, req, res, headers, Buffer.concat(chunks), session.signal);
  });
  await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
  port = (gateway.address() as AddressInfo).port;
});

after(async () => {
  process.off('warning', onWarning);
  gateway?.closeAllConnections();
  await new Promise((r) => gateway?.close(r));
  await forwarder.close();
  await upstream?.close();
});

/** A tools/call of `slow` whose client disconnects once the server has started it. */
async function abandonedCall(id: number): Promise<void> {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: {} } });
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
  });
  req.on('error', () => {}); // the disconnect is ours
  req.end(body);
  await until(`call ${id} reached the server`, () => upstream.calls.get('slow') === id);
  req.destroy();
}

const listeners = () => getEventListeners(session.signal, 'abort').length;

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), what);
}

test('a disconnected long call aborts the upstream call; after many, the session keeps no listener', async () => {
  const CALLS = 40;
  for (let i = 1; i <= CALLS; i++) {
    await abandonedCall(i);
    await until(`call ${i} was aborted upstream`, () => upstream.aborted() === i);
  }
  assert.equal(upstream.calls.get('slow'), CALLS);
  await until('no abort listener is left on the session signal', () => listeners() === 0);
  assert.deepEqual(
    warnings.filter((w) => w === 'MaxListenersExceededWarning'),
    [],
  );
  // Positive control: while a call is in flight, its listener is there (the count can see one).
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 99,
    method: 'tools/call',
    params: { name: 'slow', arguments: {} },
  });
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  });
  req.on('error', () => {});
  req.end(body);
  await until('the last call reached the server', () => upstream.calls.get('slow') === CALLS + 1);
  assert.equal(listeners(), 1);
  req.destroy();
  await until('the in-flight call’s listener is removed when its client goes', () => listeners() === 0);
});
