// The door kit on plain TCP listeners over loopback (127.0.0.2, 127.0.0.3… are distinct sources on
// Linux): caps per source and per listener, one descriptor budget shared by two doors, the
// handshake deadline and what stops it, a drain that ends in bounded time; and the pure parts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  createDescriptorBudget,
  type DescriptorBudget,
  type DoorLimits,
  descriptorLimit,
  doorBudgetSize,
  guardListener,
  sourceKey,
} from './listener-limits.js';

const servers: Server[] = [];
const clients: Socket[] = [];
after(() => {
  for (const c of clients) c.destroy();
  for (const s of servers) s.close();
});

/** A door over an echo-less TCP listener; `accepted` counts what got past it. */
async function door(limits: DoorLimits, budget?: DescriptorBudget) {
  let accepted = 0;
  const server = createServer(() => {
    accepted++;
  });
  const d = guardListener(server, { name: 'test', limits, ...(budget ? { budget } : {}) });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { door: d, server, port: (server.address() as { port: number }).port, accepted: () => accepted };
}

/** Opens a connection from `from`; resolves with a promise of the milliseconds until it was closed. */
function open(port: number, from = '127.0.0.1'): Promise<{ socket: Socket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    clients.push(socket);
    socket.on('error', () => {});
    const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - started)));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

const closedWithin = (c: { closed: Promise<number> }, ms: number) =>
  Promise.race([c.closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('guardListener', () => {
  test('the per-source cap refuses the excess from that source only; a freed slot is reused', async () => {
    const d = await door({ maxConnections: 100, maxConnectionsPerSource: 3 });
    const held = await Promise.all([1, 2, 3].map(() => open(d.port, '127.0.0.2')));
    const over = await open(d.port, '127.0.0.2');
    assert.equal(await closedWithin(over, 2000), true, 'the fourth from 127.0.0.2 is closed at once');
    const other = await open(d.port, '127.0.0.3');
    assert.equal(await closedWithin(other, 300), false, 'another source still gets in');
    held[0]?.socket.destroy();
    await held[0]?.closed;
    await new Promise((r) => setTimeout(r, 50));
    const again = await open(d.port, '127.0.0.2');
    assert.equal(await closedWithin(again, 300), false, 'the freed slot is usable');
    assert.equal(d.accepted(), 5);
  });

  test('the listener cap refuses whatever the source', async () => {
    const d = await door({ maxConnections: 2, maxConnectionsPerSource: 100 });
    await open(d.port, '127.0.0.4');
    await open(d.port, '127.0.0.5');
    assert.equal(await closedWithin(await open(d.port, '127.0.0.6'), 2000), true);
    assert.equal(d.door.open, 2);
  });

  test('two doors share one descriptor budget, a connection taking its weight', async () => {
    const budget = createDescriptorBudget(3);
    const a = await door({ maxConnections: 100, maxConnectionsPerSource: 100 }, budget);
    const b = await door({ maxConnections: 100, maxConnectionsPerSource: 100 }, budget);
    const first = await open(a.port);
    await open(a.port);
    await open(b.port);
    assert.equal(budget.inUse, 3);
    assert.equal(await closedWithin(await open(b.port), 2000), true, 'the budget is spent across both doors');
    first.socket.destroy();
    await first.closed;
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(budget.inUse, 2, 'a closed connection gives its descriptors back');
    assert.equal(await closedWithin(await open(b.port), 300), false);
  });

  test('the handshake deadline closes a silent connection; passed() lifts it', async () => {
    const d = await door({ maxConnections: 100, maxConnectionsPerSource: 100, handshakeTimeoutMs: 300 });
    const silent = await open(d.port, '127.0.0.7');
    const ms = await silent.closed;
    assert.ok(ms >= 250 && ms < 3000, `closed after ${ms} ms`);

    let serverSide: Socket | undefined;
    d.server.prependListener('connection', (s: Socket) => {
      serverSide = s;
    });
    const through = await open(d.port, '127.0.0.7');
    await new Promise((r) => setTimeout(r, 50));
    d.door.passed(serverSide as Socket);
    assert.equal(await closedWithin(through, 800), false, 'a connection through its handshake stays');
  });

  test('drain() resolves in bounded time, destroying what is still open', async () => {
    const d = await door({ maxConnections: 100, maxConnectionsPerSource: 100 });
    const held = await Promise.all([1, 2, 3].map(() => open(d.port)));
    const started = Date.now();
    await d.door.drain(300);
    const took = Date.now() - started;
    assert.ok(took >= 250 && took < 2000, `drained in ${took} ms`);
    for (const c of held) assert.equal(await closedWithin(c, 1000), true);
    assert.equal(d.door.open, 0);
  });
});

describe('the pure parts', () => {
  test('sources: IPv4 as is (also IPv4-mapped), IPv6 by /64', () => {
    assert.equal(sourceKey('127.0.0.2'), '127.0.0.2');
    assert.equal(sourceKey('::ffff:10.1.2.3'), '10.1.2.3');
    assert.equal(sourceKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(sourceKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
    assert.equal(sourceKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(sourceKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(sourceKey('::1'), '0:0:0:0::/64');
    assert.notEqual(sourceKey('2001:db8:1:3::1'), sourceKey('2001:db8:1:2::1'));
  });

  test("the doors' budget: the limit less the reserve, at least half; no limit known: none", () => {
    assert.equal(doorBudgetSize(20_000, 2048), 17_952);
    assert.equal(doorBudgetSize(1024, 2048), 512);
    assert.equal(doorBudgetSize(undefined, 2048), Number.POSITIVE_INFINITY);
  });

  test('the open-file limit is the soft one from /proc/self/limits', () => {
    const dir = mkdtempSync(join(tmpdir(), 'limits-'));
    try {
      const file = join(dir, 'limits');
      writeFileSync(
        file,
        'Max cpu time              unlimited            unlimited            seconds\nMax open files            4096                 20000                files\n',
      );
      assert.equal(descriptorLimit(file), 4096);
      writeFileSync(file, 'Max open files            unlimited            unlimited            files\n');
      assert.equal(descriptorLimit(file), undefined);
      assert.equal(descriptorLimit(join(dir, 'missing')), undefined);
      assert.ok((descriptorLimit() ?? 1) > 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
