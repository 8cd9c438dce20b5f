// The recording spool: while a session runs, its asciicast goes to `<spool>/<session id>.cast.part`
// through a buffered write stream; closing renames it to `.cast`, ready for the uploader.
//
// Never block the session on disk, never reorder: every call appends one line to the session's stream
// synchronously and returns at once; the stream writes in call order. Bounded on three counts:
//   - session_max_bytes: bytes one session may record (header and final marker included);
//   - spool_max_bytes:   bytes the whole spool may hold (live sessions and recordings awaiting upload);
//   - maxBacklogBytes:   bytes queued in memory for a disk that is not keeping up.
// At a bound, policy `best_effort` (the default) keeps the session and stops recording it: a final
// `[t, "m", "gatehouse: recording truncated (<reason>)"]` line closes the data, `truncated` is set,
// and every later call answers 'truncated'. Policy `strict` (role option record_session: strict)
// writes `"gatehouse: session ended at the recording limit (<reason>)"` and answers 'end_session':
// the caller must end the session without forwarding that chunk, so nothing unrecorded is shown.
// A strict session does not even start (SpoolFullError) unless STRICT_START_ROOM (64 KiB) is free.
// A write error (disk full, I/O error) counts as a bound too. Header and marker are always written,
// so every session has a playable recording that says it was cut; they may exceed spool_max_bytes by
// at most HEADER_MAX + MARKER_RESERVE bytes per session.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { privateDir } from '../lib/private-files.js';
import {
  createAsciicastEncoder,
  type EncoderOptions,
  INTERRUPTED_MARKER,
  SESSION_ENDED_MARKER,
  TRUNCATED_MARKER,
} from './asciicast.js';
import { lockSpoolDir, type SpoolLock } from './spool-lock.js';
import { closeOffCast, endsTruncated } from './spool-recovery.js';

export type RecordingPolicy = 'best_effort' | 'strict';
export type TruncationReason = 'session_max_bytes' | 'spool_max_bytes' | 'backlog' | 'write_error';
/** 'recorded'; 'truncated' (keep the session, data not recorded); 'end_session' (strict: end it now). */
export type RecordResult = 'recorded' | 'truncated' | 'end_session';

/** Space held back in every session's budget for its final marker line. */
export const MARKER_RESERVE = 256;
const HEADER_MAX = 2048;
/** Free spool space a strict session needs to start at all. */
export const STRICT_START_ROOM = 64 * 1024;
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class SpoolFullError extends Error {
  constructor(reason: TruncationReason) {
    super(`the recording spool is full (${reason}); strict recording refuses the session`);
    this.name = 'SpoolFullError';
  }
}

export interface SpoolOptions {
  dir: string;
  sessionMaxBytes: number;
  spoolMaxBytes: number;
  /** Bytes a session may have queued for the disk before it counts as a bound (default 8 MiB). */
  maxBacklogBytes?: number;
  /** How long a dead owner's heartbeat must be still before another process takes the spool over. */
  lockStaleMs?: number;
  onError?: (error: unknown) => void;
}

export interface BeginOptions extends Omit<EncoderOptions, 'startedAt'> {
  startedAt?: number;
  policy?: RecordingPolicy;
  /** Called once when a bound is reached (also for write errors that no call would report). */
  onLimit?: (reason: TruncationReason, result: RecordResult) => void;
}

export interface ClosedRecording {
  sessionId: string;
  path: string;
  bytes: number;
  truncated: boolean;
  /** Closed off after a crash rather than by its session. */
  interrupted: boolean;
}

/** A compressed recording, ready to upload: size and digests of the gzip bytes. */
export interface Artifact {
  sessionId: string;
  path: string;
  size: number;
  sha256: string;
  md5: string;
  rawSize: number;
  truncated: boolean;
  interrupted: boolean;
}

/** Someone watching a live recording (live-tail.ts): every line appended from now on, then the end. */
export interface LineWatcher {
  line(line: string): void;
  end(): void;
}

/** Where a watcher joined: the lines before it are the first `bytes` bytes of the file. */
export interface WatchStart {
  partPath: string;
  castPath: string;
  bytes: number;
  stop(): void;
}

export type SessionRecording = ReturnType<Spool['begin']>;
export type Spool = ReturnType<typeof createSpool>;

export function createSpool(opts: SpoolOptions) {
  const maxBacklog = opts.maxBacklogBytes ?? 8 * 1024 * 1024;
  const onError = opts.onError ?? (() => undefined);
  const paths = {
    part: (id: string) => join(opts.dir, `${id}.cast.part`),
    cast: (id: string) => join(opts.dir, `${id}.cast`),
    gz: (id: string) => join(opts.dir, `${id}.cast.gz`),
  };
  let used = 0;
  let lock: SpoolLock | undefined;
  const active = new Map<
    string,
    { close(why?: string): Promise<ClosedRecording>; watch(w: LineWatcher): WatchStart }
  >();
  const closedListeners = new Set<(r: ClosedRecording) => void>();
  const known = new Map<string, { truncated: boolean; interrupted: boolean }>();

  async function syncDir(): Promise<void> {
    const handle = await open(opts.dir, 'r');
    await handle.sync().finally(() => handle.close());
  }

  function begin(sessionId: string, o: BeginOptions) {
    if (!lock) throw new Error('the spool is not open');
    if (!SESSION_ID.test(sessionId)) throw new Error(`invalid session id for a recording: ${sessionId}`);
    if (active.has(sessionId)) throw new Error(`a recording of ${sessionId} is already open`);
    const policy = o.policy ?? 'best_effort';
    const encoder = createAsciicastEncoder({ ...o, startedAt: o.startedAt ?? Date.now() });
    const header = encoder.header();
    const headerBytes = Buffer.byteLength(header);
    if (headerBytes > HEADER_MAX) throw new Error('the recording header is too large');
    // A strict session that could record next to nothing would only be ended at once: refuse it.
    const startRoom = Math.min(STRICT_START_ROOM, opts.sessionMaxBytes);
    if (policy === 'strict' && used + headerBytes + MARKER_RESERVE + startRoom > opts.spoolMaxBytes) {
      throw new SpoolFullError('spool_max_bytes');
    }
    const path = paths.part(sessionId);
    const stream: WriteStream = createWriteStream(path, { flags: 'wx', mode: 0o600, flush: true });
    let bytes = headerBytes; // written or queued, marker reserve not included
    let reason: TruncationReason | undefined;
    let stopped: RecordResult | undefined;
    let writeError: unknown;
    let closing: Promise<ClosedRecording> | undefined;
    let opened = false;
    // Live viewers get each line as it is queued for the file, in the same order.
    const watchers = new Set<LineWatcher>();
    const emit = (line: string) => {
      for (const w of watchers) w.line(line);
    };
    stream.once('open', () => {
      opened = true;
    });
    used += headerBytes + MARKER_RESERVE;
    stream.write(header);
    stream.on('error', (error) => {
      writeError ??= error;
      onError(error);
      limit('write_error');
    });

    function limit(why: TruncationReason): RecordResult {
      if (stopped) return stopped;
      reason = why;
      stopped = policy === 'strict' ? 'end_session' : 'truncated';
      if (!writeError) {
        const label = policy === 'strict' ? SESSION_ENDED_MARKER : TRUNCATED_MARKER;
        const marker = encoder.marker(`${label} (${why})`);
        bytes += Buffer.byteLength(marker);
        used += Buffer.byteLength(marker); // within the reserve, which close() gives back
        stream.write(marker);
        emit(marker);
      }
      o.onLimit?.(why, stopped);
      return stopped;
    }

    function append(line: string): RecordResult {
      if (stopped) return stopped;
      if (line === '') return 'recorded';
      const encoded = Buffer.from(line); // encoded once: measured here, written as is
      const len = encoded.length;
      if (bytes + len + MARKER_RESERVE > opts.sessionMaxBytes) return limit('session_max_bytes');
      if (used + len > opts.spoolMaxBytes) return limit('spool_max_bytes');
      if (stream.writableLength + len > maxBacklog) return limit('backlog');
      bytes += len;
      used += len;
      stream.write(encoded);
      if (watchers.size > 0) emit(line);
      return 'recorded';
    }

    async function close(why?: string): Promise<ClosedRecording> {
      if (!stopped) append(encoder.flush());
      if (why && !writeError) {
        const marker = encoder.marker(`${why}`);
        stream.write(marker);
        emit(marker);
      }
      for (const w of watchers) w.end();
      watchers.clear();
      await new Promise<void>((resolve) => {
        if (stream.closed) return resolve();
        stream.once('close', () => resolve());
        stream.end();
      });
      used -= MARKER_RESERVE;
      if (!opened) {
        // The file could not even be created (disk full, a name taken): there is no recording.
        used -= bytes;
        active.delete(sessionId);
        return { sessionId, path: '', bytes: 0, truncated: true, interrupted: false };
      }
      const interrupted = why !== undefined || writeError !== undefined;
      let truncated = stopped !== undefined;
      if (writeError) {
        // The tail may be torn: keep what parses and say so (best effort; else the next start does it).
        truncated = (await closeOffCast(path, 'write error').catch(() => ({ truncated }))).truncated || truncated;
      }
      await rename(path, paths.cast(sessionId));
      await syncDir().catch(onError);
      const size = (await stat(paths.cast(sessionId))).size;
      used += size - bytes; // the accounting now follows the file
      active.delete(sessionId);
      known.set(sessionId, { truncated, interrupted });
      const closed = { sessionId, path: paths.cast(sessionId), bytes: size, truncated, interrupted };
      for (const listener of closedListeners) listener(closed);
      return closed;
    }

    const recording = {
      sessionId,
      policy,
      /** Terminal output (bytes from the server to the user). */
      output: (data: Buffer | string): RecordResult => append(encoder.output(data)),
      /** Keystrokes; record only when the role option record_input is on (input carries passwords). */
      input: (data: Buffer | string): RecordResult => append(encoder.input(data)),
      resize: (cols: number, rows: number): RecordResult => append(encoder.resize(cols, rows)),
      /** Closes the recording (fsynced, renamed to .cast) and hands it to the uploader. Idempotent. */
      close: (): Promise<ClosedRecording> => {
        closing ??= close();
        return closing;
      },
      get truncated(): boolean {
        return stopped !== undefined;
      },
      get truncatedReason(): TruncationReason | undefined {
        return reason;
      },
      /** Bytes recorded so far (file size once written). */
      get bytes(): number {
        return bytes;
      },
    };
    active.set(sessionId, {
      close: (why) => {
        closing ??= close(why);
        return closing;
      },
      watch: (w) => {
        watchers.add(w);
        return { partPath: path, castPath: paths.cast(sessionId), bytes, stop: () => watchers.delete(w) };
      },
    });
    return recording;
  }

  return {
    dir: opts.dir,
    /**
     * Takes the spool directory (one process per spool), closes off `.part` files left by a crash
     * (they still parse, with an interruption marker), drops stale gzip files and counts usage.
     */
    async open(): Promise<{ recovered: string[] }> {
      await privateDir(opts.dir); // 0700, also when an older release left it looser
      lock = await lockSpoolDir(opts.dir, opts.lockStaleMs === undefined ? {} : { staleMs: opts.lockStaleMs });
      const recovered: string[] = [];
      let names = await readdir(opts.dir);
      for (const name of names.filter((n) => n.endsWith('.cast.part'))) {
        const id = name.slice(0, -'.cast.part'.length);
        const { truncated } = await closeOffCast(join(opts.dir, name), 'the proxy stopped before the session ended');
        await rename(join(opts.dir, name), paths.cast(id));
        known.set(id, { truncated, interrupted: true });
        recovered.push(id);
      }
      if (recovered.length) await syncDir();
      names = await readdir(opts.dir);
      used = 0;
      for (const name of names) {
        if (name.endsWith('.cast.gz') && names.includes(name.slice(0, -3))) {
          await unlink(join(opts.dir, name)).catch(onError); // derived; remade before upload
          continue;
        }
        if (name.endsWith('.cast.gz')) onError(new Error(`spool: ${name} has no .cast beside it; left alone`));
        if (name.startsWith('.')) continue;
        used += (await stat(join(opts.dir, name)).catch(() => ({ size: 0 }))).size;
      }
      return { recovered };
    },
    begin,
    /** Recordings closed and awaiting upload, oldest session first. */
    async closed(): Promise<ClosedRecording[]> {
      const names = (await readdir(opts.dir)).filter((n) => n.endsWith('.cast')).sort();
      const out: ClosedRecording[] = [];
      for (const name of names) {
        const sessionId = name.slice(0, -'.cast'.length);
        const path = join(opts.dir, name);
        const info = await stat(path).catch(() => undefined);
        if (!info) continue;
        const flags = known.get(sessionId) ?? { truncated: await endsTruncated(path), interrupted: false };
        out.push({ sessionId, path, bytes: info.size, ...flags });
      }
      return out;
    },
    /** Gzips a closed recording beside it (deterministic bytes), with its size and digests. */
    async compress(sessionId: string): Promise<Artifact> {
      const source = paths.cast(sessionId);
      const target = paths.gz(sessionId);
      const rawSize = (await stat(source)).size;
      const previous = await stat(target).catch(() => undefined);
      if (previous) used -= previous.size;
      const sha256 = createHash('sha256');
      const md5 = createHash('md5');
      let size = 0;
      const gzip = createGzip({ level: 6 });
      gzip.on('data', (chunk: Buffer) => {
        sha256.update(chunk);
        md5.update(chunk);
        size += chunk.length;
      });
      await pipeline(createReadStream(source), gzip, createWriteStream(target, { mode: 0o600 }));
      used += size;
      const flags = known.get(sessionId) ?? { truncated: await endsTruncated(source), interrupted: false };
      known.set(sessionId, flags);
      return {
        sessionId,
        path: target,
        size,
        sha256: sha256.digest('hex'),
        md5: md5.digest('base64'),
        rawSize,
        ...flags,
      };
    },
    /** Deletes a recording's spool files; only after a verified upload. The gzip copy goes first. */
    async discard(sessionId: string): Promise<void> {
      for (const path of [paths.gz(sessionId), paths.cast(sessionId)]) {
        const info = await stat(path).catch(() => undefined);
        if (!info) continue;
        await unlink(path);
        used -= info.size;
      }
      known.delete(sessionId);
      await syncDir().catch(onError);
    },
    onClosed(listener: (r: ClosedRecording) => void): () => void {
      closedListeners.add(listener);
      return () => closedListeners.delete(listener);
    },
    isActive: (sessionId: string): boolean => active.has(sessionId),
    /** Follows a live recording from now on (undefined when it is not being recorded here). */
    watch: (sessionId: string, w: LineWatcher): WatchStart | undefined => active.get(sessionId)?.watch(w),
    get usedBytes(): number {
      return used;
    },
    get activeCount(): number {
      return active.size;
    },
    /** Closes recordings still open, each marked as interrupted by the shutdown (then uploaded as usual). */
    async closeAll(): Promise<void> {
      await Promise.all(
        [...active.values()].map((r) =>
          r.close(`${INTERRUPTED_MARKER} (the proxy shut down before the session ended)`).catch(onError),
        ),
      );
    },
    /** closeAll(), then releases the directory. */
    async close(): Promise<void> {
      await this.closeAll();
      await lock?.release();
      lock = undefined;
    },
  };
}
