// The embedded state store's own thread (see sqlite-threaded.ts): the SQLite backend runs here and
// answers the main thread's calls. What it sends back goes out once per turn of this thread's loop,
// in the order it happened (a commit, then the watch events its sync publishes, then the answers),
// so the main thread applies a write's events to its cache before the writer hears it is done.
import { parentPort, workerData } from 'node:worker_threads';
import { GatehouseError } from '../lib/errors.js';
import { openSqliteBackend } from './sqlite.js';
import type { Call, Outgoing, SqliteThreadData, WireError } from './sqlite-threaded.js';
import { type Backend, BackendError, type Watcher } from './types.js';

const port = parentPort;
if (!port) throw new Error('sqlite-thread.ts runs as a worker thread');
const data = workerData as SqliteThreadData;

function wire(error: unknown): WireError {
  if (error instanceof BackendError) return { kind: 'backend', reason: error.reason, key: error.key };
  if (error instanceof GatehouseError) {
    const cause = error.cause instanceof Error ? error.cause.message : undefined;
    return {
      kind: 'gatehouse',
      code: error.code,
      message: error.detail,
      ...(error.headers ? { headers: error.headers } : {}),
      ...(cause ? { cause } : {}),
    };
  }
  const e = error as { message?: unknown; code?: unknown };
  return {
    kind: 'error',
    message: typeof e?.message === 'string' ? e.message : String(error),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
  };
}

let out: Outgoing[] = [];
let scheduled = false;
function send(message: Outgoing): void {
  out.push(message);
  if (scheduled) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    const batch = out;
    out = [];
    port?.postMessage(batch);
  });
}

let backend: Backend | undefined;
let openError: WireError | undefined;
try {
  backend = openSqliteBackend({
    path: data.path,
    synchronous: data.synchronous,
    ...(data.sweepIntervalMs !== undefined ? { sweepIntervalMs: data.sweepIntervalMs } : {}),
  });
} catch (error) {
  openError = wire(error);
}
const watchers = new Map<number, Watcher>();

async function run(call: Call, b: Backend): Promise<unknown> {
  switch (call.method) {
    case 'get':
      return b.get(call.key);
    case 'getRange':
      return b.getRange(call.prefix, call.opts);
    case 'create':
      return b.create(call.key, call.value, call.opts);
    case 'put':
      return b.put(call.key, call.value, call.opts);
    case 'update':
      return b.update(call.key, call.value, call.opts);
    case 'compareAndSwap':
      return b.compareAndSwap(call.key, call.expectedRevision, call.value, call.opts);
    case 'delete':
      return b.delete(call.key);
    case 'deleteRange':
      return b.deleteRange(call.prefix);
    case 'atomicWrite':
      return b.atomicWrite(
        call.conditions,
        call.operations,
        call.notifyCommitted ? { onCommitted: () => send({ type: 'committed', id: call.id }) } : {},
      );
    case 'watch': {
      const watcher = await b.watch(call.prefixes, (events, revision) =>
        send({ type: 'events', watchId: call.watchId, events, revision }),
      );
      watchers.set(call.watchId, watcher);
      return { initial: watcher.initial, revision: watcher.revision };
    }
    case 'unwatch':
      watchers.get(call.watchId)?.stop();
      watchers.delete(call.watchId);
      return undefined;
    case 'ping':
      return b.ping();
    case 'close':
      for (const w of watchers.values()) w.stop();
      watchers.clear();
      return b.close();
  }
}

port.on('message', (calls: Call[]) => {
  for (const call of calls) {
    if (!backend) {
      // Opening failed: every call hears why (the first, at start-up, is the store's ping).
      send({ type: 'result', id: call.id, error: openError as WireError });
      continue;
    }
    run(call, backend).then(
      (value) => send({ type: 'result', id: call.id, value }),
      (error: unknown) => send({ type: 'result', id: call.id, error: wire(error) }),
    );
  }
});
