// The recordings subsystem as one unit for the composition root: object store (by recordings_url),
// spool under `<data dir>/spool`, and the upload completer. The SSH proxy calls begin() per session;
// the sessions API calls status() and openRecording(). start() recovers and uploads what a crash left.
// Closed recordings are also indexed for text search (text-index.ts).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { EventInput } from '../audit/audit-log.js';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../lib/clock.js';
import { parseDuration } from '../lib/duration.js';
import { plainTextFromCast } from './asciicast.js';
import { openLiveTail } from './live-tail.js';
import type { ObjectStore } from './object-store.js';
import { openObjectStore } from './open.js';
import { createSpool } from './spool.js';
import { openRecordingTextIndex, type RecordingTextIndex } from './text-index.js';
import { createUploader, recordingKey, type UploadStatus } from './uploader.js';

export interface RecordingServiceDeps {
  config: Pick<Config, 'data_dir' | 'recordings_url' | 'recordings'>;
  /** AuditLog.record, for recording.uploaded / recording.upload_failed. */
  record: (event: EventInput) => Promise<void>;
  clock?: Clock;
  onError?: (error: unknown) => void;
  /** Instead of the store named by recordings_url (tests). */
  store?: ObjectStore;
  lockStaleMs?: number;
  random?: () => number;
}

export const recordingSpoolDir = (dataDir: string): string => join(dataDir, 'spool');

export type RecordingService = ReturnType<typeof createRecordingService>;

/** Builds the service; a bad recordings_url or retry bound throws ConfigError here, before start(). */
export function createRecordingService(deps: RecordingServiceDeps) {
  const c = deps.config.recordings;
  const minDelayMs = parseDuration(c.upload_retry_min);
  const maxDelayMs = parseDuration(c.upload_retry_max);
  if (minDelayMs === undefined || minDelayMs < 1)
    throw new ConfigError('config key recordings.upload_retry_min: invalid');
  if (maxDelayMs === undefined || maxDelayMs < minDelayMs) {
    throw new ConfigError('config key recordings.upload_retry_max: must be at least recordings.upload_retry_min');
  }
  const store = deps.store ?? openObjectStore(deps.config.recordings_url, deps.config.data_dir);
  const onError = deps.onError ?? (() => undefined);
  const spool = createSpool({
    dir: recordingSpoolDir(deps.config.data_dir),
    sessionMaxBytes: c.session_max_bytes,
    spoolMaxBytes: c.spool_max_bytes,
    onError,
    ...(deps.lockStaleMs === undefined ? {} : { lockStaleMs: deps.lockStaleMs }),
  });
  const uploader = createUploader({
    spool,
    store,
    record: deps.record,
    minDelayMs,
    maxDelayMs,
    onError,
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.random ? { random: deps.random } : {}),
  });

  let textIndex: RecordingTextIndex | undefined;
  const indexText = (sessionId: string, path: string) => {
    textIndex?.add(sessionId, path, () => openRecording(sessionId)).catch(onError);
  };

  async function status(sessionId: string): Promise<UploadStatus | undefined> {
    if (spool.isActive(sessionId)) return { state: 'recording', attempts: 0, key: recordingKey(sessionId) };
    return uploader.lookup(sessionId);
  }

  /** The uploaded asciicast, gunzipped, or undefined if the store has none (yet). */
  async function openRecording(sessionId: string, signal?: AbortSignal): Promise<Readable | undefined> {
    const body = await store.get(recordingKey(sessionId), signal);
    if (!body) return undefined;
    const gunzip = createGunzip();
    body.on('error', (error) => gunzip.destroy(error));
    return body.pipe(gunzip);
  }

  /** The sha256 (hex) of the stored object as it is now, read whole; undefined if there is none. */
  async function storedSha256(sessionId: string, signal?: AbortSignal): Promise<string | undefined> {
    const body = await store.get(recordingKey(sessionId), signal);
    if (!body) return undefined;
    const hash = createHash('sha256');
    for await (const chunk of body) hash.update(chunk as Buffer);
    return hash.digest('hex');
  }

  return {
    store,
    spool,
    uploader,
    /** Takes the spool, closes off and queues what a crash left, and starts uploading. */
    async start(): Promise<{ recovered: string[] }> {
      const result = await spool.open();
      textIndex = openRecordingTextIndex(join(deps.config.data_dir, 'recordings-text.db'));
      spool.onClosed((r) => indexText(r.sessionId, r.path));
      for (const sessionId of result.recovered) indexText(sessionId, join(spool.dir, `${sessionId}.cast`));
      await uploader.start();
      return result;
    },
    /**
     * Closes recordings still open (marked interrupted), gives uploads up to drainMs to finish, then
     * stops; anything not uploaded stays in the spool for the next start.
     */
    async stop(opts: { drainMs?: number } = {}): Promise<void> {
      await spool.closeAll();
      const drainMs = opts.drainMs ?? 5000;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([uploader.idle(), new Promise((r) => (timer = setTimeout(r, drainMs)))]);
      clearTimeout(timer);
      await uploader.stop();
      await spool.close();
      await store.close();
      textIndex?.close();
      textIndex = undefined;
    },
    begin: spool.begin,
    /** Sessions whose recorded text contains `text`; undefined before start(). */
    searchText: (text: string): Set<string> | undefined => textIndex?.search(text),
    /** A live session's recording as it grows, for a viewer (undefined: not being recorded here). */
    watchLive: (sessionId: string) => openLiveTail(spool, sessionId),
    status,
    openRecording,
    storedSha256,
    /** The recording as plain text without escape sequences (GET …/recording?format=text). */
    async openText(sessionId: string, signal?: AbortSignal): Promise<AsyncIterable<string> | undefined> {
      const cast = await openRecording(sessionId, signal);
      return cast ? plainTextFromCast(cast) : undefined;
    },
  };
}
