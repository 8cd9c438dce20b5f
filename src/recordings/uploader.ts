// The upload completer (mode proxy-async): once a session's recording is closed in the spool, gzip it,
// upload it, verify it (head: size, and the sha256 kept as object metadata), record
// `recording.uploaded`, and only then delete the spool copy. A failed step is retried after a fully
// jittered exponential backoff (uniform in [0, min(max, min·2^(n-1))]), for as long as it takes:
// nothing is ever deleted before a verified upload, and success is never recorded before it happened.
// `recording.upload_failed` is recorded on failed attempts 1, 2, 4, 8, … (a long outage gives a handful
// of events per recording, not one per retry); status() shows every attempt.
//
// Per instance, not under a backend lease: the spool is this process's local disk, which no other
// instance can read, so a cluster-wide singleton would leave every other proxy's spool unuploaded.
// What a lease would guard against, two processes on one spool directory, is ruled out locally by
// the spool's owner lock (spool-lock.ts), which also works while the backend is unreachable, exactly
// when uploads must keep going. Uploads are idempotent (same key, same bytes) all the same.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { EventInput } from '../audit/audit-log.js';
import { type Clock, isoTime, systemClock } from '../lib/clock.js';
import type { ObjectInfo, ObjectStore } from './object-store.js';
import type { Artifact, ClosedRecording, Spool } from './spool.js';

export type UploadState = 'recording' | 'pending' | 'uploaded' | 'upload_failed';

export interface UploadStatus {
  state: UploadState;
  attempts: number;
  key: string;
  truncated?: boolean;
  interrupted?: boolean;
  size?: number;
  sha256?: string;
  last_error?: string;
  next_attempt_at?: string;
  uploaded_at?: string;
}

export interface UploaderOptions {
  spool: Pick<Spool, 'closed' | 'compress' | 'discard' | 'onClosed'>;
  store: ObjectStore;
  /** Writes an audit event (AuditLog.record); a failure to record `uploaded` is retried like an upload. */
  record: (event: EventInput) => Promise<void>;
  minDelayMs: number;
  maxDelayMs: number;
  /** Uploads in flight at once (default 2). */
  concurrency?: number;
  /** How many finished sessions status() remembers (default 10,000); older ones: lookup(). */
  rememberUploaded?: number;
  random?: () => number;
  clock?: Clock;
  onError?: (error: unknown) => void;
}

/** The object key of a session's recording. */
export const recordingKey = (sessionId: string): string => `${sessionId}.cast.gz`;

/** Full jitter: uniform in [0, min(max, min·2^(attempt-1))) (attempt counts from 1). */
export function retryDelay(attempt: number, minMs: number, maxMs: number, random: () => number): number {
  const bound = Math.min(maxMs, minMs * 2 ** Math.min(Math.max(attempt, 1) - 1, 40));
  return Math.floor(random() * bound);
}

class RecordingGoneError extends Error {
  constructor(sessionId: string) {
    super(`the spool no longer holds the recording of ${sessionId}; nothing to upload`);
    this.name = 'RecordingGoneError';
  }
}

const ACTOR = { kind: 'system' as const, name: 'recording-uploader' };

interface Entry {
  status: UploadStatus;
  artifact?: Artifact;
  recordedUploaded: boolean;
  timer?: NodeJS.Timeout;
  nextAt?: number;
  running: boolean;
  /** A retry came due while an attempt was still running (e.g. recording its failure): run it after. */
  due: boolean;
}

const verified = (info: ObjectInfo | undefined, a: Artifact): boolean =>
  info !== undefined && info.size === a.size && info.metadata.sha256 === a.sha256;

const describe = (error: unknown): string => {
  const e = error as Error;
  const text = `${e?.name ?? 'Error'}: ${e?.message ?? String(error)}`;
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
};

export type Uploader = ReturnType<typeof createUploader>;

export function createUploader(opts: UploaderOptions) {
  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? Math.random;
  const onError = opts.onError ?? (() => undefined);
  const concurrency = opts.concurrency ?? 2;
  const remember = opts.rememberUploaded ?? 10_000;
  const entries = new Map<string, Entry>();
  const done = new Map<string, UploadStatus>(); // uploaded, oldest first
  const ready: string[] = [];
  const waiters = new Set<() => void>();
  let running = false;
  let abort = new AbortController();
  let workers: Promise<void>[] = [];
  let unsubscribe: (() => void) | undefined;
  const settledListeners = new Set<() => void>();

  function notify(): void {
    for (const waiter of waiters) waiter();
    waiters.clear();
  }
  function settled(): void {
    if (entries.size === 0) for (const listener of settledListeners) listener();
  }

  function enqueue(sessionId: string, closed?: Pick<ClosedRecording, 'truncated' | 'interrupted'>): void {
    if (entries.has(sessionId)) return;
    const status: UploadStatus = { state: 'pending', attempts: 0, key: recordingKey(sessionId) };
    if (closed) {
      status.truncated = closed.truncated;
      status.interrupted = closed.interrupted;
    }
    entries.set(sessionId, { status, recordedUploaded: false, running: false, due: false });
    done.delete(sessionId);
    ready.push(sessionId);
    notify();
  }

  const backoff = (attempt: number): number => retryDelay(attempt, opts.minDelayMs, opts.maxDelayMs, random);

  function schedule(sessionId: string, entry: Entry, delayMs: number): void {
    clearTimeout(entry.timer);
    entry.nextAt = clock() + delayMs;
    entry.status.next_attempt_at = isoTime(entry.nextAt);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      delete entry.nextAt;
      delete entry.status.next_attempt_at;
      ready.push(sessionId);
      notify();
    }, delayMs);
    entry.timer.unref();
  }

  async function attempt(sessionId: string, entry: Entry): Promise<void> {
    const { signal } = abort;
    const key = recordingKey(sessionId);
    if (!entry.artifact || !(await stat(entry.artifact.path).catch(() => undefined))) {
      entry.artifact = await opts.spool.compress(sessionId).catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'ENOENT' ? new RecordingGoneError(sessionId) : error;
      });
    }
    const a = entry.artifact;
    Object.assign(entry.status, { size: a.size, sha256: a.sha256, truncated: a.truncated, interrupted: a.interrupted });
    // An earlier attempt may have stored it already (then only the event or the delete failed).
    let info = await opts.store.head(key, signal);
    if (!verified(info, a)) {
      await opts.store.put(key, () => createReadStream(a.path), {
        size: a.size,
        md5: a.md5,
        contentType: 'application/gzip',
        metadata: {
          sha256: a.sha256,
          'session-id': sessionId,
          'raw-size': String(a.rawSize),
          truncated: String(a.truncated),
        },
        signal,
      });
      info = await opts.store.head(key, signal);
      if (!verified(info, a)) {
        throw new Error(
          `verification failed: expected ${a.size} bytes with sha256 ${a.sha256}, the store has ` +
            (info ? `${info.size} bytes with sha256 ${info.metadata.sha256 ?? 'none'}` : 'nothing'),
        );
      }
    }
    if (!entry.recordedUploaded) {
      await opts.record({
        type: 'recording.uploaded',
        actor: ACTOR,
        target: { kind: 'session', id: sessionId },
        session_id: sessionId,
        data: {
          key,
          store: opts.store.description,
          size: a.size,
          raw_size: a.rawSize,
          sha256: a.sha256,
          truncated: a.truncated,
          interrupted: a.interrupted,
          attempts: entry.status.attempts + 1,
        },
      });
      entry.recordedUploaded = true;
    }
    await opts.spool.discard(sessionId);
  }

  async function failed(sessionId: string, entry: Entry, error: unknown): Promise<void> {
    const status = entry.status;
    status.attempts++;
    status.state = 'upload_failed';
    status.last_error = describe(error);
    const delay = backoff(status.attempts);
    schedule(sessionId, entry, delay);
    const n = status.attempts;
    if ((n & (n - 1)) === 0) {
      await opts
        .record({
          type: 'recording.upload_failed',
          actor: ACTOR,
          target: { kind: 'session', id: sessionId },
          session_id: sessionId,
          success: false,
          data: {
            key: status.key,
            store: opts.store.description,
            attempt: n,
            error: status.last_error,
            next_attempt_in_ms: delay,
            spool_kept: true,
          },
        })
        .catch(onError);
    }
  }

  function succeeded(sessionId: string, entry: Entry): void {
    entries.delete(sessionId);
    const status = { ...entry.status, state: 'uploaded' as const, uploaded_at: isoTime(clock()) };
    delete status.last_error;
    delete status.next_attempt_at;
    done.set(sessionId, status);
    if (done.size > remember) done.delete(done.keys().next().value as string);
    // The store answers again: bring forward recordings waiting out a long backoff.
    for (const [id, other] of entries) {
      if (other.timer && other.nextAt !== undefined && other.nextAt - clock() > 1000) {
        schedule(id, other, Math.floor(random() * 1000));
      }
    }
  }

  async function worker(): Promise<void> {
    while (running) {
      const sessionId = ready.shift();
      if (sessionId === undefined) {
        await new Promise<void>((resolve) => waiters.add(resolve));
        continue;
      }
      const entry = entries.get(sessionId);
      if (!entry) continue;
      // failed() schedules the retry before it records `upload_failed`, and the audit log can take
      // longer than a short backoff: the retry then comes due while this entry is still running.
      // Dropping it would leave the recording with no timer and no turn, never uploaded.
      if (entry.running) {
        entry.due = true;
        continue;
      }
      entry.running = true;
      entry.due = false;
      try {
        await attempt(sessionId, entry);
        succeeded(sessionId, entry);
        settled();
      } catch (error) {
        if (error instanceof RecordingGoneError) {
          // Removed from the spool by someone else: nothing left to upload, and retrying cannot help.
          entries.delete(sessionId);
          onError(error);
          settled();
        } else if (running) await failed(sessionId, entry, error);
        // While stopping, an aborted attempt is not a failure: the spool copy stays for the next start.
      } finally {
        entry.running = false;
        if (entry.due && entry.timer === undefined && entries.get(sessionId) === entry) {
          entry.due = false;
          ready.push(sessionId);
          notify();
        }
      }
    }
  }

  function status(sessionId: string): UploadStatus | undefined {
    const entry = entries.get(sessionId);
    if (entry) return { ...entry.status };
    const finished = done.get(sessionId);
    return finished ? { ...finished } : undefined;
  }

  return {
    /** Uploads whatever the spool holds (leftovers of a crash included), then each recording as it closes. */
    async start(): Promise<void> {
      if (running) return;
      running = true;
      abort = new AbortController();
      unsubscribe = opts.spool.onClosed((closed) => enqueue(closed.sessionId, closed));
      for (const closed of await opts.spool.closed()) enqueue(closed.sessionId, closed);
      workers = Array.from({ length: concurrency }, () => worker());
    },
    /** Stops uploading (an upload in flight is aborted and retried on the next start). */
    async stop(): Promise<void> {
      if (!running) return;
      running = false;
      unsubscribe?.();
      abort.abort();
      for (const entry of entries.values()) {
        clearTimeout(entry.timer);
        entry.timer = undefined;
      }
      notify();
      await Promise.all(workers);
      workers = [];
      // Whatever is left is tried first thing on the next start.
      ready.length = 0;
      ready.push(...entries.keys());
    },
    enqueue,
    /** What this instance knows of a session's recording; undefined: ask lookup(). */
    status,
    /** status(), else whether the store holds the recording (e.g. uploaded by another instance). */
    async lookup(sessionId: string): Promise<UploadStatus | undefined> {
      const known = status(sessionId);
      if (known) return known;
      const info = await opts.store.head(recordingKey(sessionId));
      if (!info) return undefined;
      const stored: UploadStatus = { state: 'uploaded', attempts: 0, key: info.key, size: info.size };
      if (info.metadata.sha256) stored.sha256 = info.metadata.sha256;
      if (info.metadata.truncated) stored.truncated = info.metadata.truncated === 'true';
      return stored;
    },
    /** Recordings not yet uploaded (pending or failed and waiting for a retry). */
    get backlog(): number {
      return entries.size;
    },
    /** Resolves once nothing is pending (for tests and graceful shutdowns). */
    idle(): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          if (entries.size === 0) {
            settledListeners.delete(check);
            resolve();
          }
        };
        settledListeners.add(check);
        check();
      });
    },
  };
}
