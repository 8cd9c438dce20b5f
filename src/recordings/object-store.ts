// Object storage for finished recordings: a small interface (put/get/head/list/delete, streaming get)
// with a local-directory and an S3-compatible implementation, chosen by URL in open.ts.
import type { Readable } from 'node:stream';

export interface PutOptions {
  /** Exact byte length of the body; the store refuses a body of another length. */
  size: number;
  contentType?: string;
  /** Base64 MD5 of the body, checked by the store where it can (S3 Content-MD5). */
  md5?: string;
  /** Small string metadata kept with the object (keys: lower case letters, digits, '-'). */
  metadata?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ObjectInfo {
  key: string;
  size: number;
  metadata: Record<string, string>;
  lastModified?: Date;
}

export interface ObjectStore {
  /** What the store is, for logs and events, without credentials (e.g. `s3://bucket/prefix`). */
  readonly description: string;
  /** Stores the body under key, replacing any object there; atomic: readers see all or nothing. */
  put(key: string, body: () => Readable, opts: PutOptions): Promise<void>;
  /** A stream of the object's bytes, or undefined if there is none. */
  get(key: string, signal?: AbortSignal): Promise<Readable | undefined>;
  head(key: string, signal?: AbortSignal): Promise<ObjectInfo | undefined>;
  /** Objects whose key starts with prefix, in key order. */
  list(prefix?: string): AsyncIterable<Omit<ObjectInfo, 'metadata'>>;
  /** Idempotent: deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

const KEY = /^(?!\/)(?!.*\/\/)[A-Za-z0-9._/-]{1,512}$/;

/** Keys are relative paths of safe characters, without `.` or `..` segments or dot-files. */
export function checkKey(key: string): string {
  if (!KEY.test(key) || key.split('/').some((segment) => segment === '' || segment.startsWith('.'))) {
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  }
  return key;
}
