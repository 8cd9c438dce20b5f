// Group commit for the embedded state store without blocking the event loop. SQLite commits with
// synchronous=NORMAL (in WAL mode: the frames are written, not synced) and this module syncs the WAL
// file on libuv's thread pool. A batch is acknowledged (its writers resolved, its watch events
// published) only once a sync that began after its commit has completed, so an acknowledged write is
// exactly as durable as under synchronous=FULL. Batches committed while a sync runs wait for the next
// one, which covers them all. Before this, COMMIT's fsync ran on the main thread and every request
// waited for it: 40% of a login's wall time.
//
// A failed sync leaves durability unknown (PostgreSQL panics there, and Linux may have dropped the
// dirty pages): the writes it covered are refused and so is every later one, until a restart.
import { closeSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export type SyncFile = (fd: number, callback: (error: Error | null) => void) => void;

export interface WalSyncer {
  /** Calls complete once a sync covering everything committed so far is done (or failed). */
  afterCommit(complete: (error?: Error) => void): void;
  /** Set once a sync failed: the store must refuse writes. */
  readonly failed: Error | undefined;
  /** Resolves when no sync is running or waiting. */
  idle(): Promise<void>;
  close(): void;
}

export function createWalSyncer(walPath: string, syncFile: SyncFile = fdatasync): WalSyncer {
  let fd: number | undefined;
  let syncing = false;
  let waiting: Array<(error?: Error) => void> = [];
  let idleWaiters: Array<() => void> = [];
  let failed: Error | undefined;

  function open(): number {
    if (fd !== undefined) return fd;
    // The WAL exists once SQLite committed; syncing its directory once makes its entry durable,
    // as SQLite does for a journal it created.
    fd = openSync(walPath, 'r+');
    const dir = openSync(dirname(walPath), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    return fd;
  }

  function finish(covered: Array<(error?: Error) => void>, error: Error | null): void {
    syncing = false;
    if (error) failed ??= new Error(`syncing ${walPath} failed: ${error.message}`, { cause: error });
    for (const complete of covered) complete(failed);
    if (waiting.length > 0) start();
    else {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  function start(): void {
    syncing = true;
    const covered = waiting;
    waiting = [];
    if (failed) {
      finish(covered, null);
      return;
    }
    let handle: number;
    try {
      handle = open();
    } catch (error) {
      finish(covered, error as Error);
      return;
    }
    syncFile(handle, (error) => finish(covered, error));
  }

  return {
    afterCommit(complete) {
      waiting.push(complete);
      if (!syncing) start();
    },
    get failed() {
      return failed;
    },
    idle() {
      if (!syncing && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
