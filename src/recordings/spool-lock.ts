// One process per spool directory. Recovery closes off every `.part` file it finds as left by a crash,
// which is only true if no other live process writes there; this lock makes that so. The owner file
// `.owner` holds who took it and is touched every staleMs/3. Another process takes it over when the
// owner is provably dead (same kernel boot and pid namespace, pid gone) or its heartbeat stops for
// staleMs; while the heartbeat moves, it refuses with SpoolLockedError naming the holder.
import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { link, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

export class SpoolLockedError extends Error {
  constructor(dir: string, owner: string) {
    super(
      `the recording spool ${dir} is in use by another live Gatehouse process (${owner}); ` +
        'each proxy needs its own data dir',
    );
    this.name = 'SpoolLockedError';
  }
}

interface Owner {
  instance: string;
  pid: number;
  host: string;
  boot: string;
  pidns: string;
  since: string;
}

export interface SpoolLock {
  release(): Promise<void>;
}

const heldHere = new Set<string>();

const readOr = (read: () => string): string => {
  try {
    return read().trim();
  } catch {
    return '';
  }
};
const bootId = readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
const pidNamespace = readOr(() => readlinkSync('/proc/self/ns/pid'));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the owner is certainly gone: same machine boot and pid namespace, and its pid is not running. */
function provablyDead(owner: Owner | undefined): boolean {
  if (!owner || !bootId || !pidNamespace) return false;
  if (owner.boot !== bootId || owner.pidns !== pidNamespace) return false;
  return owner.pid === process.pid || !alive(owner.pid); // same pid, other instance: our own previous life
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function lockSpoolDir(dirPath: string, opts: { staleMs?: number } = {}): Promise<SpoolLock> {
  const dir = resolve(dirPath);
  const staleMs = opts.staleMs ?? 30_000;
  const file = join(dir, '.owner');
  if (heldHere.has(dir)) throw new SpoolLockedError(dir, `this process, pid ${process.pid}`);
  const me: Owner = {
    instance: randomBytes(8).toString('hex'),
    pid: process.pid,
    host: hostname(),
    boot: bootId,
    pidns: pidNamespace,
    since: new Date().toISOString(),
  };
  const mine = JSON.stringify(me);

  for (;;) {
    const tmp = join(dir, `.owner.${me.instance}.tmp`);
    await writeFile(tmp, mine, { mode: 0o600 });
    try {
      await link(tmp, file); // atomic create-if-absent, with the content already in place
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // released meanwhile
    let owner: Owner | undefined;
    try {
      owner = JSON.parse(text) as Owner;
    } catch {
      owner = undefined;
    }
    if (!provablyDead(owner)) await waitUntilStale(file, staleMs, dir, owner);
    // Remove the stale file only if it is still the one we judged.
    if ((await readFile(file, 'utf8').catch(() => undefined)) === text) await unlink(file).catch(() => undefined);
  }

  heldHere.add(dir);
  const beat = setInterval(() => {
    const now = new Date();
    utimes(file, now, now).catch(() => writeFile(file, mine, { mode: 0o600 }).catch(() => undefined));
  }, staleMs / 3);
  beat.unref();
  return {
    async release() {
      clearInterval(beat);
      heldHere.delete(dir);
      if ((await readFile(file, 'utf8').catch(() => undefined)) === mine) await unlink(file).catch(() => undefined);
    },
  };
}

/** Returns once the owner file's heartbeat is older than staleMs; throws if it moves meanwhile. */
async function waitUntilStale(file: string, staleMs: number, dir: string, owner: Owner | undefined): Promise<void> {
  const first = await stat(file).catch(() => undefined);
  if (!first) return;
  for (;;) {
    const now = Date.now();
    const current = await stat(file).catch(() => undefined);
    if (!current) return;
    if (current.mtimeMs !== first.mtimeMs) {
      const who = owner ? `pid ${owner.pid} on ${owner.host} since ${owner.since}` : 'unknown owner';
      throw new SpoolLockedError(dir, who);
    }
    if (now - current.mtimeMs > staleMs) return;
    await sleep(Math.max(10, Math.min(staleMs / 10, staleMs - (now - current.mtimeMs) + 5)));
  }
}
