// The embedded state store on a thread of its own. better-sqlite3 is synchronous, and a commit's
// B-tree and WAL writes ran on the main thread: a quarter of its time at 4k logins/s (perf), time
// that every request, SSH channel and database session of the process waited behind. Here the
// SQLite backend (sqlite.ts, unchanged: group commit, WAL synced before a write is acknowledged)
// runs in a worker (sqlite-thread.ts) and this side forwards calls to it, many to one message, as
// the audit store's writer does (audit/sqlite-writer.ts). The file is opened here first, once, so a
// store that cannot be opened (locked, newer than this version) fails at start exactly as before.
import { Worker } from 'node:worker_threads';
import { GatehouseError } from '../lib/errors.js';
import { checkSqliteFile } from './sqlite.js';
import {
  type Backend,
  BackendError,
  type BackendFailure,
  type Condition,
  type Item,
  type Operation,
  type WatchEvent,
  type WriteOptions,
} from './types.js';
import { stateUnavailable } from './unavailable.js';

export interface SqliteThreadData {
  path: string;
  synchronous: 'FULL' | 'NORMAL';
  sweepIntervalMs?: number;
}

export type Call = { id: number } & (
  | { method: 'get'; key: string }
  | { method: 'getRange'; prefix: string; opts?: { limit?: number; startKey?: string } }
  | { method: 'create' | 'put' | 'update'; key: string; value: string; opts?: WriteOptions }
  | { method: 'compareAndSwap'; key: string; expectedRevision: number; value: string; opts?: WriteOptions }
  | { method: 'delete'; key: string }
  | { method: 'deleteRange'; prefix: string }
  | { method: 'atomicWrite'; conditions: Condition[]; operations: Operation[]; notifyCommitted: boolean }
  | { method: 'watch'; prefixes: string[]; watchId: number }
  | { method: 'unwatch'; watchId: number }
  | { method: 'ping' }
  | { method: 'close' }
);
type CallBody = Call extends infer C ? (C extends { id: number } ? Omit<C, 'id'> : never) : never;

export type WireError =
  | { kind: 'backend'; reason: BackendFailure; key: string }
  | {
      kind: 'gatehouse';
      code: GatehouseError['code'];
      message: string;
      headers?: Record<string, string>;
      cause?: string;
    }
  | { kind: 'error'; message: string; code?: string };

export type Outgoing =
  | { type: 'result'; id: number; value?: unknown; error?: WireError }
  | { type: 'committed'; id: number }
  | { type: 'events'; watchId: number; events: WatchEvent[]; revision: number };

function unwire(e: WireError): Error {
  if (e.kind === 'backend') return new BackendError(e.reason, e.key);
  if (e.kind === 'gatehouse') {
    return new GatehouseError(e.code, e.message, {
      ...(e.headers ? { headers: e.headers } : {}),
      ...(e.cause ? { cause: new Error(e.cause) } : {}),
    });
  }
  return Object.assign(new Error(e.message), e.code ? { code: e.code } : {});
}

/** The worker: the compiled file next to this one, or, from the sources, through tsx's loader. */
function startWorker(data: SqliteThreadData): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./sqlite-thread.js', import.meta.url), { workerData: data });
  const target = new URL('./sqlite-thread.ts', import.meta.url).href;
  const boot = `(async () => {
    const { register } = await import('tsx/esm/api');
    register();
    await import(${JSON.stringify(target)});
  })().catch((error) => { setImmediate(() => { throw error; }); });`;
  return new Worker(boot, { eval: true, workerData: data });
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  committed?: () => void;
}

export function openThreadedSqliteBackend(data: SqliteThreadData): Backend {
  // Opened (and migrated) here first: its errors are thrown now, as the in-thread store's were.
  checkSqliteFile(data.path);
  const worker = startWorker(data);
  worker.unref();
  const pending = new Map<number, Pending>();
  const listeners = new Map<number, (events: WatchEvent[], revision: number) => void>();
  let nextId = 1;
  let failure: Error | undefined;
  let closed = false;
  let outbox: Call[] = [];

  worker.on('message', (batch: Outgoing[]) => {
    for (const m of batch) {
      if (m.type === 'events') listeners.get(m.watchId)?.(m.events, m.revision);
      else if (m.type === 'committed') pending.get(m.id)?.committed?.();
      else settle(m.id, m);
    }
  });
  const fail = (error: unknown): void => {
    failure ??= stateUnavailable('embedded SQLite', error);
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => {
    if (!closed) fail(new Error(`the state store's thread exited (code ${code})`));
  });

  function settle(id: number, m: { value?: unknown; error?: WireError }): void {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    // The thread keeps the process alive only while someone waits for it.
    if (pending.size === 0) worker.unref();
    if (m.error) p.reject(unwire(m.error));
    else p.resolve(m.value);
  }

  function call<T>(body: CallBody, committed?: () => void): Promise<T> {
    if (failure) return Promise.reject(failure);
    if (closed) return Promise.reject(new Error('backend is closed'));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, ...(committed ? { committed } : {}) });
      if (pending.size === 1) worker.ref();
      // Calls made in one turn of the loop go together, and the thread commits them together.
      if (outbox.length === 0) setImmediate(post);
      outbox.push({ ...body, id } as Call);
    });
  }
  function post(): void {
    const calls = outbox;
    outbox = [];
    worker.postMessage(calls);
  }

  let watchIds = 0;
  return {
    get: (key) => call<Item | undefined>({ method: 'get', key }),
    getRange: (prefix, opts) => call<Item[]>({ method: 'getRange', prefix, ...(opts ? { opts } : {}) }),
    create: (key, value, opts) => call<Item>({ method: 'create', key, value, ...(opts ? { opts } : {}) }),
    put: (key, value, opts) => call<Item>({ method: 'put', key, value, ...(opts ? { opts } : {}) }),
    update: (key, value, opts) => call<Item>({ method: 'update', key, value, ...(opts ? { opts } : {}) }),
    compareAndSwap: (key, expectedRevision, value, opts) =>
      call<Item>({ method: 'compareAndSwap', key, expectedRevision, value, ...(opts ? { opts } : {}) }),
    delete: (key) => call<void>({ method: 'delete', key }),
    deleteRange: (prefix) => call<number>({ method: 'deleteRange', prefix }),
    atomicWrite: (conditions, operations, opts = {}) =>
      call<number>(
        { method: 'atomicWrite', conditions, operations, notifyCommitted: opts.onCommitted !== undefined },
        opts.onCommitted,
      ),
    async watch(prefixes, listener) {
      const watchId = ++watchIds;
      // Events follow the snapshot's answer in the same ordered stream, so none is missed or early.
      listeners.set(watchId, listener);
      try {
        const { initial, revision } = await call<{ initial: Item[]; revision: number }>({
          method: 'watch',
          prefixes,
          watchId,
        });
        return {
          initial,
          revision,
          stop: () => {
            listeners.delete(watchId);
            if (!closed && !failure) void call({ method: 'unwatch', watchId }).catch(() => undefined);
          },
        };
      } catch (error) {
        listeners.delete(watchId);
        throw error;
      }
    },
    ping: () => call<void>({ method: 'ping' }),
    async close() {
      if (closed) return;
      // Queued writes commit and sync in the thread before it closes: nothing acknowledged is lost.
      if (!failure) await call({ method: 'close' }).catch(() => undefined);
      closed = true;
      listeners.clear();
      await worker.terminate();
    },
  };
}
