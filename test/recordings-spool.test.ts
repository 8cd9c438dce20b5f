// The recording spool on a real directory: order and non-blocking writes, the per-session and
// whole-spool bounds under both policies, a disk that does not keep up, crash leftovers closed off so
// they parse, and one process per spool directory.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  INTERRUPTED_MARKER,
  parseAsciicast,
  SESSION_ENDED_MARKER,
  TRUNCATED_MARKER,
} from '../src/recordings/asciicast.js';
import { createSpool, SpoolFullError, type SpoolOptions } from '../src/recordings/spool.js';
import { SpoolLockedError } from '../src/recordings/spool-lock.js';

const root = mkdtempSync(join(tmpdir(), 'gatehouse-spool-'));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
async function openSpool(opts: Partial<SpoolOptions> = {}) {
  const dir = opts.dir ?? join(root, `spool-${++n}`);
  const spool = createSpool({ dir, sessionMaxBytes: 1 << 30, spoolMaxBytes: 1 << 30, ...opts });
  await spool.open();
  return spool;
}
const sid = (i: number) => `sess_${String(i).padStart(4, '0')}`;
const session = { width: 80, height: 24 };
const outputOf = (cast: string) =>
  parseAsciicast(cast)
    .events.filter((e) => e[1] === 'o')
    .map((e) => e[2])
    .join('');
const lastEvent = (cast: string) => parseAsciicast(cast).events.at(-1);
const sizeOfFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => !f.startsWith('.'))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);

test('calls return at once and keep their order; closing leaves a .cast that parses', async () => {
  const spool = await openSpool();
  const rec = spool.begin(sid(1), { ...session, title: 't' });
  let sent = '';
  const started = performance.now();
  for (let i = 0; i < 5000; i++) {
    const chunk = `line ${i} ${'x'.repeat(i % 97)}\r\n`;
    sent += chunk;
    assert.equal(rec.output(chunk), 'recorded');
    if (i % 1000 === 0) assert.equal(rec.resize(80 + i / 1000, 24), 'recorded');
  }
  assert.ok(performance.now() - started < 2000, 'no call waits for the disk');
  assert.ok(spool.isActive(sid(1)));
  const closed = await rec.close();
  assert.equal(await rec.close(), closed, 'close is idempotent');
  assert.deepEqual(readdirSync(spool.dir).sort(), ['.owner', `${sid(1)}.cast`]);
  const cast = readFileSync(closed.path, 'utf8');
  assert.equal(outputOf(cast), sent);
  assert.equal(closed.bytes, Buffer.byteLength(cast));
  assert.equal(closed.truncated, false);
  assert.equal(spool.usedBytes, closed.bytes, 'the accounting follows the files');
  assert.ok(!spool.isActive(sid(1)));
  await spool.close();
});

test('session_max_bytes, best_effort: recording stops with a final marker, the session goes on', async () => {
  const limits: string[] = [];
  const spool = await openSpool({ sessionMaxBytes: 64 * 1024 });
  const rec = spool.begin(sid(1), { ...session, onLimit: (reason, result) => limits.push(`${reason}:${result}`) });
  let accepted = '';
  let result = 'recorded';
  for (let i = 0; result === 'recorded'; i++) {
    const chunk = `${i}:${'y'.repeat(1000)}\r\n`;
    result = rec.output(chunk);
    if (result === 'recorded') accepted += chunk;
  }
  assert.equal(result, 'truncated');
  assert.equal(rec.truncated, true);
  assert.equal(rec.truncatedReason, 'session_max_bytes');
  assert.equal(rec.output('more'), 'truncated', 'later calls answer the same, and do not throw');
  assert.equal(rec.resize(100, 40), 'truncated');
  assert.deepEqual(limits, ['session_max_bytes:truncated']);
  const closed = await rec.close();
  assert.ok(closed.bytes <= 64 * 1024, `${closed.bytes} bytes within the cap`);
  assert.equal(closed.truncated, true);
  const cast = readFileSync(closed.path, 'utf8');
  assert.equal(outputOf(cast), accepted);
  assert.equal(lastEvent(cast)?.[2], `${TRUNCATED_MARKER} (session_max_bytes)`);
  assert.equal(parseAsciicast(cast).truncated, true);
  await spool.close();
});

test('session_max_bytes, strict: the caller is told to end the session; the refused chunk is not kept', async () => {
  const spool = await openSpool({ sessionMaxBytes: 64 * 1024 });
  const rec = spool.begin(sid(1), { ...session, policy: 'strict' });
  let i = 0;
  while (rec.output(`chunk ${i} ${'z'.repeat(2000)}\r\n`) === 'recorded') i++;
  assert.equal(rec.output('after'), 'end_session');
  const cast = readFileSync((await rec.close()).path, 'utf8');
  assert.equal(lastEvent(cast)?.[2], `${SESSION_ENDED_MARKER} (session_max_bytes)`);
  assert.ok(!outputOf(cast).includes(`chunk ${i} `), 'the chunk that hit the bound was not recorded');
  assert.ok(outputOf(cast).includes(`chunk ${i - 1} `));
  await spool.close();
});

test('spool_max_bytes, best_effort: sessions share the bound; uploads make room again', async () => {
  const spoolMaxBytes = 256 * 1024;
  const spool = await openSpool({ spoolMaxBytes });
  const a = spool.begin(sid(1), session);
  const b = spool.begin(sid(2), session);
  for (let i = 0; i < 400; i++) {
    a.output(`a${i} ${'.'.repeat(1000)}\r\n`);
    b.output(`b${i} ${'.'.repeat(1000)}\r\n`);
  }
  assert.equal(a.truncatedReason, 'spool_max_bytes');
  assert.equal(b.truncatedReason, 'spool_max_bytes');
  const late = spool.begin(sid(3), session); // best effort never refuses a session
  assert.equal(late.output('n'.repeat(1100)), 'truncated');
  for (const rec of [a, b, late]) {
    const cast = readFileSync((await rec.close()).path, 'utf8');
    assert.equal(lastEvent(cast)?.[2], `${TRUNCATED_MARKER} (spool_max_bytes)`);
  }
  // Only a late session's header and marker may go past the bound (documented).
  assert.ok(sizeOfFiles(spool.dir) <= spoolMaxBytes + 2048, `${sizeOfFiles(spool.dir)} bytes on disk`);
  assert.equal(spool.usedBytes, sizeOfFiles(spool.dir));

  await spool.discard(sid(1)); // what the uploader does after a verified upload
  await spool.discard(sid(3));
  const c = spool.begin(sid(4), session);
  assert.equal(c.output('room again\r\n'), 'recorded');
  await c.close();
  assert.equal(spool.usedBytes, sizeOfFiles(spool.dir));
  await spool.close();
});

test('spool_max_bytes, strict: a full spool refuses new sessions and ends running ones', async () => {
  const spool = await openSpool({ spoolMaxBytes: 128 * 1024 });
  const a = spool.begin(sid(1), { ...session, policy: 'strict' });
  const filler = spool.begin(sid(2), session);
  while (filler.output('f'.repeat(4000)) === 'recorded') {}
  assert.equal(a.output('o'.repeat(4000)), 'end_session');
  assert.throws(() => spool.begin(sid(3), { ...session, policy: 'strict' }), SpoolFullError);
  assert.ok(!readdirSync(spool.dir).some((f) => f.startsWith(sid(3))), 'a refused session leaves no file');
  await a.close();
  await filler.close();
  await spool.discard(sid(2));
  const b = spool.begin(sid(4), { ...session, policy: 'strict' }); // positive control: room again
  assert.equal(b.output('fits'), 'recorded');
  await b.close();
  await spool.close();
});

test('a disk that does not keep up: the in-memory backlog is bounded too', async () => {
  for (const policy of ['best_effort', 'strict'] as const) {
    const spool = await openSpool({ maxBacklogBytes: 64 * 1024 });
    const rec = spool.begin(sid(1), { ...session, policy });
    let result = 'recorded';
    // 4 MiB in one tick: the stream cannot have written it yet.
    for (let i = 0; i < 1024 && result === 'recorded'; i++) result = rec.output('b'.repeat(4096));
    assert.equal(result, policy === 'strict' ? 'end_session' : 'truncated');
    assert.equal(rec.truncatedReason, 'backlog');
    const cast = readFileSync((await rec.close()).path, 'utf8');
    assert.match(String(lastEvent(cast)?.[2]), /\(backlog\)$/);
    assert.ok(Buffer.byteLength(cast) < 80 * 1024);
    await spool.close();
  }
});

test('a spool file that cannot be created: no recording, and the policy decides', async () => {
  const spool = await openSpool();
  writeFileSync(join(spool.dir, `${sid(1)}.cast.part`), 'not ours');
  const rec = spool.begin(sid(1), session);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(rec.output('x'), 'truncated');
  assert.equal(rec.truncatedReason, 'write_error');
  assert.equal((await rec.close()).bytes, 0);
  assert.equal(readFileSync(join(spool.dir, `${sid(1)}.cast.part`), 'utf8'), 'not ours', 'left untouched');
  const strict = spool.begin(sid(2), { ...session, policy: 'strict' });
  assert.equal(strict.output('x'), 'recorded'); // positive control: a normal file works
  await strict.close();
  await spool.close();
});

test('open() closes off crash leftovers so they parse, and drops stale gzip copies', async () => {
  const dir = join(root, 'leftovers');
  mkdirSync(dir);
  const header = '{"version":2,"width":90,"height":30,"timestamp":1700000000}\n';
  writeFileSync(
    join(dir, 'sess_a.cast.part'),
    `${header}[0.1,"o","one\\r\\n"]\n[0.2,"r","100x40"]\n[0.5,"o","two"]\n[0.7,"o","thr`,
  );
  writeFileSync(join(dir, 'sess_b.cast.part'), '{"version":2,"wid');
  writeFileSync(join(dir, 'sess_c.cast.part'), `${header}[0.1,"o","kept"]\ngarbage\n[0.3,"o","after garbage"]\n`);
  writeFileSync(
    join(dir, 'sess_d.cast'),
    `${header}[1.5,"o","done"]\n[1.5,"m","${TRUNCATED_MARKER} (session_max_bytes)"]\n`,
  );
  writeFileSync(join(dir, 'sess_d.cast.gz'), 'stale partial gzip');
  writeFileSync(join(dir, 'sess_e.cast.part'), '');

  const spool = await openSpool({ dir });
  assert.deepEqual(readdirSync(dir).sort(), [
    '.owner',
    'sess_a.cast',
    'sess_b.cast',
    'sess_c.cast',
    'sess_d.cast',
    'sess_e.cast',
  ]);
  const a = parseAsciicast(readFileSync(join(dir, 'sess_a.cast'), 'utf8'));
  assert.equal(a.header.width, 90);
  assert.deepEqual(
    a.events.map((e) => e[2]),
    ['one\r\n', '100x40', 'two', `${INTERRUPTED_MARKER} (the proxy stopped before the session ended)`],
  );
  assert.equal(a.events.at(-1)?.[0], 0.5, 'the marker is timed at the last kept event');
  assert.equal(a.interrupted, true);
  for (const id of ['sess_b', 'sess_e']) {
    const bare = parseAsciicast(readFileSync(join(dir, `${id}.cast`), 'utf8'));
    assert.deepEqual(bare.header, { version: 2, width: 80, height: 24 });
    assert.equal(bare.interrupted, true);
  }
  assert.equal(outputOf(readFileSync(join(dir, 'sess_c.cast'), 'utf8')), 'kept');
  const closed = await spool.closed();
  assert.deepEqual(
    closed.map((c) => [c.sessionId, c.interrupted, c.truncated]),
    [
      ['sess_a', true, false],
      ['sess_b', true, false],
      ['sess_c', true, false],
      ['sess_d', false, true],
      ['sess_e', true, false],
    ],
  );
  assert.equal(spool.usedBytes, sizeOfFiles(dir));
  await spool.close();
});

const lockChild = (dir: string) => `
  import { createSpool } from ${JSON.stringify(new URL('../src/recordings/spool.ts', import.meta.url).href)};
  const spool = createSpool({ dir: ${JSON.stringify(dir)}, sessionMaxBytes: 1e9, spoolMaxBytes: 1e9, lockStaleMs: 600 });
  await spool.open();
  console.log('ready');
  setInterval(() => {}, 1000);
`;

async function startChild(dir: string): Promise<ChildProcess> {
  const script = join(root, `child-${++n}.mts`);
  writeFileSync(script, lockChild(dir));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
  });
  return child;
}

test('one process per spool directory: a live owner is refused, a dead one is taken over at once', async () => {
  const dir = join(root, 'locked');
  const first = await openSpool({ dir });
  await assert.rejects(openSpool({ dir }), SpoolLockedError, 'the same process twice');
  await first.close();

  const child = await startChild(dir);
  const started = Date.now();
  await assert.rejects(openSpool({ dir, lockStaleMs: 600 }), (e: unknown) => {
    return e instanceof SpoolLockedError && e.message.includes(`pid ${child.pid}`);
  });
  assert.ok(Date.now() - started < 2000);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const t0 = Date.now();
  const taken = await openSpool({ dir, lockStaleMs: 60_000 });
  assert.ok(Date.now() - t0 < 1000, 'a dead pid on this machine is not waited for');
  await taken.close();
});

test('an owner on another machine is waited out while its heartbeat moves, taken over once it stops', async () => {
  const dir = join(root, 'remote-owner');
  mkdirSync(dir);
  const owner = join(dir, '.owner');
  const remote = { instance: 'x', pid: 1, host: 'elsewhere', boot: 'other-boot', pidns: 'pid:[1]', since: 'then' };
  writeFileSync(owner, JSON.stringify(remote));
  const beat = setInterval(() => utimesSync(owner, new Date(), new Date()), 50);
  await assert.rejects(
    openSpool({ dir, lockStaleMs: 400 }),
    /in use by another live Gatehouse process \(pid 1 on elsewhere/,
  );
  clearInterval(beat);
  const t0 = Date.now();
  const spool = await openSpool({ dir, lockStaleMs: 400 });
  assert.ok(Date.now() - t0 >= 300, 'waited for the heartbeat to go stale');
  assert.equal(JSON.parse(readFileSync(owner, 'utf8')).pid, process.pid);
  await spool.close();
  assert.deepEqual(readdirSync(dir), [], 'released on close');
});
