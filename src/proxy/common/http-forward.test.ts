import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { Agent } from 'undici';
import { type ForwardOutcome, forwardHttp } from './http-forward.js';

const agent = new Agent({ keepAliveTimeout: 1000 });
const servers: Server[] = [];
after(async () => {
  for (const s of servers) s.close();
  await agent.close();
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A door forwarding every request to `upstream`; each request's outcome is pushed to `outcomes`. */
async function door(upstream: string, responseHeaders = (h: Record<string, unknown>) => h) {
  const outcomes: Promise<ForwardOutcome>[] = [];
  const url = await listen((req, res) => {
    outcomes.push(
      forwardHttp(
        agent,
        { origin: upstream, path: req.url ?? '/', method: 'GET', headers: {} },
        res,
        responseHeaders as never,
      ).then((o) => {
        if (o.status === 0 && !res.headersSent) res.writeHead(502).end('unreachable');
        return o;
      }),
    );
  });
  return { url, outcomes };
}

const fetchAll = (url: string) =>
  new Promise<{ status: number; body: string; aborted: boolean; headers: IncomingMessage['headers'] }>((resolve) => {
    get(url, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, aborted: false, headers: res.headers }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body, aborted: true, headers: res.headers }));
    });
  });

test('the whole answer, its status and filtered headers reach the client; the outcome counts the bytes', async () => {
  const upstream = await listen((_req, res) => res.writeHead(201, { 'x-app': 'yes', 'x-drop': 'no' }).end('hello'));
  const d = await door(upstream, ({ 'x-drop': _, ...rest }) => rest);
  const got = await fetchAll(`${d.url}/`);
  assert.equal(got.status, 201);
  assert.equal(got.body, 'hello');
  assert.equal(got.headers['x-app'], 'yes');
  assert.equal(got.headers['x-drop'], undefined, 'the door’s filter decides what the client sees');
  assert.deepEqual(await d.outcomes[0], { status: 201, bytesOut: 5 });
});

test('an upstream failing mid-answer cuts the client off (no silent short answer)', async () => {
  const upstream = await listen((_req, res) => {
    res.writeHead(200); // chunked: a cut answer can be told from a whole one
    res.write('partial');
    setTimeout(() => res.socket?.destroy(), 50);
  });
  const d = await door(upstream);
  const got = await fetchAll(`${d.url}/`);
  assert.equal(got.aborted, true);
  assert.equal(got.body, 'partial');
  const outcome = await d.outcomes[0];
  assert.equal(outcome?.status, 200);
  assert.ok(outcome?.error, 'the outcome says the answer was cut');
});

test('a client going away mid-answer ends the upstream request too', async () => {
  let upstreamClosed: Promise<unknown> = Promise.resolve();
  const upstream = await listen((_req, res) => {
    res.writeHead(200);
    res.write('first');
    upstreamClosed = once(res, 'close');
  });
  const d = await door(upstream);
  await new Promise<void>((resolve) => {
    const req = get(`${d.url}/`, (res) =>
      res.once('data', () => {
        req.destroy();
        resolve();
      }),
    );
  });
  const outcome = await d.outcomes[0];
  assert.equal(outcome?.gone, true);
  await upstreamClosed; // resolves only once the upstream's answer was torn down
});

test('an unreachable upstream: status 0 with the error, nothing sent, so the door can answer 502', async () => {
  const closed = await listen(() => {});
  servers.at(-1)?.close();
  const d = await door(closed);
  const got = await fetchAll(`${d.url}/`);
  assert.equal(got.status, 502);
  const outcome = await d.outcomes[0];
  assert.equal(outcome?.status, 0);
  assert.match(String(outcome?.error?.message ?? outcome?.error), /ECONNREFUSED|connect/);
});

test('a header the filter refuses becomes a 502, not a crash', async () => {
  const upstream = await listen((_req, res) => res.end('x'));
  const d = await door(upstream, () => {
    throw new TypeError('Invalid character in header content');
  });
  const got = await fetchAll(`${d.url}/`);
  assert.equal(got.status, 502);
  assert.equal((await d.outcomes[0])?.status, 0);
});

test('a quiet stream of unknown length shows its headers at once (SSE)', async () => {
  const upstream = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders(); // and then nothing for a while
    setTimeout(() => res.end('data: late\n\n'), 3000);
  });
  const d = await door(upstream);
  const started = Date.now();
  const headersAt = await new Promise<number>((resolve) => {
    const req = get(`${d.url}/`, () => {
      resolve(Date.now() - started);
      req.destroy();
    });
  });
  assert.ok(headersAt < 1500, `headers after ${headersAt} ms, before the first event`);
});

test('a slow client holds the upstream back (backpressure): the answer is never buffered whole', async () => {
  const CHUNK = Buffer.alloc(64 * 1024, 'x');
  let written = 0;
  let stopped = false;
  const upstream = await listen((_req, res) => {
    res.writeHead(200);
    const pump = () => {
      while (!stopped && written < 256 * 1024 * 1024) {
        written += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  const d = await door(upstream);
  await new Promise<void>((resolve) => {
    const req = get(`${d.url}/`, (res) => {
      res.pause(); // reads nothing more
      setTimeout(() => {
        stopped = true;
        req.destroy();
        resolve();
      }, 1000);
    });
  });
  assert.ok(written < 64 * 1024 * 1024, `the upstream wrote ${written >> 20} MiB while the client read nothing`);
  assert.ok(written > 0);
});
