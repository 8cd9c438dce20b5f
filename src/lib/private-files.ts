// Files and directories that hold state, audit trails or recordings are the owner's alone (0600 and
// 0700), whatever the mode of the data dir around them: a data dir made 0755 by an operator, a
// backup restore or a volume mount must not make tokens' hashes, sealed keys or session output
// readable by every local user. Files an older release created looser are tightened on open.
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';

const FILE = 0o600;
const DIR = 0o700;

/**
 * Creates a SQLite database file 0600 if it is missing and tightens it and its companions if they
 * exist. SQLite gives the -wal, -shm and -journal files it creates the mode of the database file,
 * so creating the database 0600 first is what keeps those private too.
 */
export function privateSqliteFile(path: string): void {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return;
  closeSync(openSync(path, 'a', FILE));
  chmodSync(path, FILE);
  for (const suffix of ['-wal', '-shm', '-journal']) {
    if (existsSync(path + suffix)) chmodSync(path + suffix, FILE);
  }
}

/** mkdir -p with 0700 for what it creates, and the directory itself tightened if it already existed. */
export async function privateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: DIR });
  await chmod(path, DIR);
}
