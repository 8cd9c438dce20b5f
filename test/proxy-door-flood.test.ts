// 9,600 unauthenticated idle sockets against the SSH, PostgreSQL and Kubernetes listeners of
// a real Gatehouse process whose open-file limit is 4096 (prlimit), from several loopback addresses:
// the per-source and per-listener caps and the shared descriptor budget close the excess at once,
// the handshake deadline closes the rest (also a client that trickles bytes to look alive), and
// all along the auth API answers /healthz, /readyz and logins, while stock ssh, psql and kubectl
// from another address get through. Before the fix the process ran out of descriptors instead.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type Addr,
  BOOTSTRAP_KEY,
  type GatehouseProcess,
  provisionTargets,
  startGatehouseProcess,
  type Targets,
} from './helpers/proxy-targets.js';
import { requirePostgres } from './helpers/psql.js';
import { requireSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

const NOFILE = 4096;
const RESERVE = 1024;
/** Proxied connections the budget admits in all: (4096 − 1024) descriptors, two per connection. */
const BUDGET_CONNECTIONS = (NOFILE - RESERVE) / 2;
const PER_SOURCE = 200;
const PER_LISTENER = 1000;
/** Sources of the big flood: 16 × 200 × 3 doors = 9,600 sockets, well past the 4,096 descriptors. */
const SOURCES = 16;
/** Long enough for 9,600 connections to be opened and counted on a loaded 2-core machine (≈ 13 s at load 16). */
const DEADLINE_MS = 30_000;
/**
 * A refused socket is closed as soon as the server accepts it; on a loaded machine that can take
 * seconds after the kernel completed the connection, which is still far from the deadline: anything
 * closed in less than half the deadline was refused.
 */
const AT_ONCE_MS = DEADLINE_MS / 2;

interface Held {
  socket: Socket;
  openedAt: number;
  closedAt?: number;
}

/** Opens `count` connections from `from` to addr, 100 in flight at a time; all of them, closed or not. */
async function flood(addr: Addr, from: string, count: number): Promise<Held[]> {
  const all: Held[] = [];
  const one = () =>
    new Promise<void>((resolve) => {
      const socket = connect({ host: addr.host, port: addr.port, localAddress: from });
      const held: Held = { socket, openedAt: Date.now() };
      all.push(held);
      socket.on('error', () => {});
      socket.resume(); // read and drop what comes (the SSH banner), so the server's close is seen
      socket.once('close', () => {
        held.closedAt = Date.now();
        resolve();
      });
      socket.once('connect', () => {
        held.openedAt = Date.now();
        resolve();
      });
    });
  for (let i = 0; i < count; i += 100) await Promise.all(Array.from({ length: Math.min(100, count - i) }, one));
  return all;
}

const lifetime = (h: Held) => (h.closedAt as number) - h.openedAt;
const refused = (xs: Held[]) => xs.filter((h) => h.closedAt !== undefined && lifetime(h) < AT_ONCE_MS);
const stillOpen = (xs: Held[]) => xs.filter((h) => h.closedAt === undefined);
/** Waits until no more of xs close for 1.5 s: the server has taken (or refused) every one of them. */
async function settle(xs: Held[]): Promise<void> {
  for (let last = -1; ; ) {
    const open = stillOpen(xs).length;
    if (open === last) return;
    last = open;
    await new Promise((r) => setTimeout(r, 1500));
  }
}

/** A client that keeps sending a byte every 300 ms of a handshake it never finishes. */
function trickle(addr: Addr, from: string, prefix: Buffer): Held {
  const socket = connect({ host: addr.host, port: addr.port, localAddress: from });
  const held: Held = { socket, openedAt: Date.now() };
  socket.on('error', () => {});
  socket.resume();
  let sent = 0;
  const timer = setInterval(() => {
    const next = sent < prefix.length ? prefix.subarray(sent, sent + 1) : Buffer.from('x');
    sent++;
    if (socket.writable) socket.write(next);
  }, 300);
  socket.once('close', () => {
    held.closedAt = Date.now();
    clearInterval(timer);
  });
  return held;
}

/**
 * One request on a connection of its own, as a new client makes it (fetch would reuse a pooled
 * keep-alive connection opened before the flood); status 0 when it fails or takes over 5 s.
 */
function onNewConnection(base: string, method: string, path: string, body?: unknown) {
  return new Promise<{ status: number; text: string }>((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(new URL(path, base), {
      method,
      agent: false,
      timeout: 5000,
      headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {},
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', (e) => resolve({ status: 0, text: `${method} ${path}: ${e.message}` }));
    req.end(payload);
  });
}

if (requireSshd('proxy door flood') && requirePostgres('proxy door flood')) {
  describe('idle sockets against the proxy listeners', () => {
    let gh: GatehouseProcess;
    let targets: Targets;
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-flood-'));
    const everything: Held[] = [];

    before(async () => {
      gh = await startGatehouseProcess(
        {
          GATEHOUSE_DATA_DIR: dataDir,
          GATEHOUSE_PROXY_HANDSHAKE_TIMEOUT: `${DEADLINE_MS / 1000}s`,
          GATEHOUSE_PROXY_MAX_CONNECTIONS: String(PER_LISTENER),
          GATEHOUSE_PROXY_MAX_CONNECTIONS_PER_SOURCE: String(PER_SOURCE),
          GATEHOUSE_PROXY_FD_RESERVE: String(RESERVE),
        },
        { nofile: NOFILE },
      );
      targets = await provisionTargets({ url: gh.authUrl });
    });

    after(async () => {
      for (const h of everything) h.socket.destroy();
      gh?.child.kill('SIGKILL');
      await gh?.exited;
      await targets?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const doors = () => [gh.ssh, gh.db, gh.kube] as const;

    test('one source over its cap is refused at once on every door; ssh, psql and kubectl from another address still work', async () => {
      const perDoor = await Promise.all(doors().map((addr) => flood(addr, '127.0.0.2', PER_SOURCE + 20)));
      everything.push(...perDoor.flat());
      await settle(perDoor.flat());
      for (const [i, held] of perDoor.entries()) {
        const name = ['ssh', 'db', 'kube'][i];
        assert.equal(refused(held).length, 20, `${name}: the 20 over the per-source cap are closed at once`);
        assert.equal(stillOpen(held).length, PER_SOURCE, `${name}: the ${PER_SOURCE} within it are held`);
      }
      // Positive control, while 127.0.0.2 holds its cap on every door: stock clients from 127.0.0.1.
      const [ssh, sql, kube] = await Promise.all([
        targets.ssh(gh.ssh.port, 'echo door-$((6*7))'),
        targets.psql(gh.db.port, 'select 40 + 2'),
        targets.kubectl(['get', 'pods', '-n', 'default', '-o', 'name']),
      ]);
      assert.equal(ssh.stdout, 'door-42\n', ssh.stderr);
      assert.equal(sql.stdout.trim(), '42', sql.stderr);
      assert.equal(kube.code, 0, kube.stderr);
      assert.match(kube.stdout, /pod\/web-1/);
      for (const held of perDoor)
        assert.equal(stillOpen(held).length, PER_SOURCE, 'the flood was still held during the controls');
      for (const h of perDoor.flat()) h.socket.destroy();
    });

    test('9,600 idle sockets from sixteen sources: the budget refuses the excess, the auth API keeps answering, the deadline closes the rest', async () => {
      // Let the previous test's sockets be counted out on the server side.
      await new Promise((r) => setTimeout(r, 500));
      const sources = Array.from({ length: SOURCES }, (_, i) => `127.0.0.${i + 3}`);
      const slow = [
        trickle(gh.ssh, '127.0.0.30', Buffer.from('SSH-2.0-slow-client-that-never-ends-its-banner')),
        trickle(gh.db, '127.0.0.30', Buffer.from([0, 0, 1, 0, 0, 3, 0, 0])),
        trickle(gh.kube, '127.0.0.30', Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00])),
      ];
      const started = Date.now();
      // The doors in parallel, each source's in turn: 300 connections in flight at most, within the
      // listen backlog (511), so that none is left in the kernel's queue looking open when counted.
      const perDoor = await Promise.all(
        doors().map(async (addr) => {
          const mine: Held[] = [];
          for (const source of sources) mine.push(...(await flood(addr, source, PER_SOURCE)));
          return mine;
        }),
      );
      const all = perDoor.flat();
      everything.push(...all, ...slow);
      const openedIn = Date.now() - started;
      await settle(all);
      const held = stillOpen(all).length;
      const refusedNow = refused(all).length;
      const slowest = Math.max(...refused(all).map(lifetime));
      const fds = readdirSync(`/proc/${gh.child.pid}/fd`).length;
      console.log(
        `# ${all.length} sockets opened in ${openedIn} ms: ${held} held, ${refusedNow} refused (closed within ${slowest} ms) ` +
          `(ssh ${stillOpen(perDoor[0] ?? []).length}, db ${stillOpen(perDoor[1] ?? []).length}, kube ${stillOpen(perDoor[2] ?? []).length} held); the process has ${fds} of its ${NOFILE} descriptors open`,
      );
      // While they are held: the auth API answers liveness, readiness and a login, promptly.
      const t0 = Date.now();
      const health = await onNewConnection(gh.authUrl, 'GET', '/healthz');
      const ready = await onNewConnection(gh.authUrl, 'GET', '/readyz');
      const login = await onNewConnection(gh.authUrl, 'POST', '/v1/auth/token', { api_key: BOOTSTRAP_KEY });
      const tookMs = Date.now() - t0;
      assert.equal(health.status, 200, health.text);
      assert.equal(ready.status, 200, ready.text);
      assert.equal(login.status, 200, login.text);
      assert.ok(tookMs < 5000, `the auth API took ${tookMs} ms`);
      console.log(`# /healthz, /readyz and a login answered in ${tookMs} ms with ${held + 3} idle sockets held`);

      assert.equal(all.length, 3 * SOURCES * PER_SOURCE);
      assert.ok(held <= BUDGET_CONNECTIONS, `${held} held, more than the budget's ${BUDGET_CONNECTIONS}`);
      assert.ok(held >= BUDGET_CONNECTIONS - 40, `${held} held: the budget should have been filled`);
      assert.equal(refusedNow + held, all.length, 'every socket was either held or refused at once');
      for (const door of perDoor) assert.ok(stillOpen(door).length <= PER_LISTENER, 'per-listener cap');
      assert.ok(fds <= NOFILE - RESERVE, `${fds} descriptors open: the reserve of ${RESERVE} was not kept`);

      // The handshake deadline closes every one of them, trickling or silent, at about its deadline.
      await until(
        'the deadline to close the held sockets',
        async () => (stillOpen(all).length + stillOpen(slow).length === 0 ? true : undefined),
        DEADLINE_MS + 20_000,
      ).catch((error: Error) => {
        const open = perDoor.map((d) => stillOpen(d).length).join('/');
        throw new Error(`${error.message}: ssh/db/kube ${open}, trickling ${stillOpen(slow).length} still open`);
      });
      const lifetimes = [...all, ...slow].filter((h) => lifetime(h) >= AT_ONCE_MS).map(lifetime);
      const [min, max] = [Math.min(...lifetimes), Math.max(...lifetimes)];
      console.log(`# held sockets closed by the deadline after ${min}–${max} ms (deadline ${DEADLINE_MS} ms)`);
      assert.ok(min >= DEADLINE_MS - 1000 && max <= DEADLINE_MS + 5000, `closed after ${min}–${max} ms`);
      for (const s of slow)
        assert.ok(lifetime(s) >= DEADLINE_MS - 1000, 'a trickling client is cut at the deadline too');

      // And the doors are open again to a legitimate user.
      const ssh = await targets.ssh(gh.ssh.port, 'echo after-$((6*7))');
      assert.equal(ssh.stdout, 'after-42\n', ssh.stderr);
    });
  });
}
