// Object store on S3 or an S3-compatible server (MinIO, Ceph, s3rver), with @aws-sdk/client-s3.
// URL: s3://bucket[/prefix]?endpoint=http://host:port&region=…&path_style=true. Credentials come from
// the SDK's usual chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, instance roles), or from
// access_key_id / secret_access_key in the URL (meant for tests and local servers; a URL with a secret
// is a secret). Checksums are sent as Content-MD5 only, which S3-compatible servers all understand.

import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { checkKey, type ObjectInfo, type ObjectStore, type PutOptions } from './object-store.js';

export interface S3Location {
  bucket: string;
  /** '' or a prefix ending in '/'. */
  prefix: string;
  endpoint?: string;
  region: string;
  pathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

const PARAMS = new Set(['endpoint', 'region', 'path_style', 'access_key_id', 'secret_access_key']);
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Parses an s3:// URL; throws Error with a message fit for a config error. */
export function parseS3Url(text: string): S3Location {
  const url = new URL(text);
  if (url.protocol !== 's3:') throw new Error('must start with s3://');
  const bucket = url.hostname;
  if (!BUCKET.test(bucket)) throw new Error(`"${bucket}" is not a valid bucket name`);
  if (url.username || url.password)
    throw new Error('put credentials in access_key_id/secret_access_key, not user:pass@');
  for (const name of url.searchParams.keys()) {
    if (!PARAMS.has(name)) throw new Error(`unknown parameter "${name}" (known: ${[...PARAMS].join(', ')})`);
  }
  const q = url.searchParams;
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
  if (prefix) checkKey(prefix);
  const endpoint = q.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]+\/?$/.test(endpoint)) {
    throw new Error('endpoint must be http(s)://host[:port]');
  }
  const pathStyle = q.get('path_style') ?? 'false';
  if (pathStyle !== 'true' && pathStyle !== 'false') throw new Error('path_style must be true or false');
  const id = q.get('access_key_id');
  const secret = q.get('secret_access_key');
  if ((id === null) !== (secret === null)) throw new Error('give both access_key_id and secret_access_key, or neither');
  const location: S3Location = {
    bucket,
    prefix: prefix ? `${prefix}/` : '',
    region: q.get('region') ?? process.env.AWS_REGION ?? 'us-east-1',
    pathStyle: pathStyle === 'true',
  };
  if (endpoint) location.endpoint = endpoint.replace(/\/$/, '');
  if (id !== null && secret !== null) location.credentials = { accessKeyId: id, secretAccessKey: secret };
  return location;
}

const status = (error: unknown): number | undefined =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
const isNotFound = (error: unknown): boolean => {
  const name = (error as Error).name;
  return name === 'NotFound' || name === 'NoSuchKey' || status(error) === 404;
};

const quiet = (): void => {};

export function createS3Store(location: S3Location): ObjectStore {
  const config: S3ClientConfig = {
    region: location.region,
    forcePathStyle: location.pathStyle,
    // Newer SDKs add CRC32 trailers by default, which several S3-compatible servers reject.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // One try per call: a streamed body cannot be replayed by the SDK, and the uploader has its own
    // jittered backoff (callers of get/head retry at their level).
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 5000, requestTimeout: 60_000 },
    // The SDK would print warnings to the console; failures reach the caller as errors instead.
    logger: { trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet },
  };
  if (location.endpoint) config.endpoint = location.endpoint;
  if (location.credentials) config.credentials = location.credentials;
  const client = new S3Client(config);
  const Bucket = location.bucket;
  const fullKey = (key: string) => location.prefix + checkKey(key);

  return {
    description: `s3://${Bucket}/${location.prefix}${location.endpoint ? ` at ${location.endpoint}` : ''}`,

    async put(key: string, body: () => Readable, opts: PutOptions): Promise<void> {
      // The SDK pipes the body without listening for its errors (a failing source would be an
      // uncaught exception): listen here, and abort the request instead.
      const source = body();
      const request = new AbortController();
      let failure: unknown;
      source.on('error', (error) => {
        failure ??= error;
        request.abort();
      });
      const cancel = () => request.abort();
      opts.signal?.addEventListener('abort', cancel, { once: true });
      const command = new PutObjectCommand({
        Bucket,
        Key: fullKey(key),
        Body: source,
        ContentLength: opts.size,
        ...(opts.contentType ? { ContentType: opts.contentType } : {}),
        ...(opts.md5 ? { ContentMD5: opts.md5 } : {}),
        ...(opts.metadata ? { Metadata: opts.metadata } : {}),
      });
      try {
        await client.send(command, { abortSignal: request.signal });
      } catch (error) {
        throw failure ?? error;
      } finally {
        opts.signal?.removeEventListener('abort', cancel);
        source.destroy();
      }
    },

    async get(key: string, signal?: AbortSignal): Promise<Readable | undefined> {
      try {
        const out = await client.send(
          new GetObjectCommand({ Bucket, Key: fullKey(key) }),
          signal ? { abortSignal: signal } : {},
        );
        return out.Body as Readable;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },

    async head(key: string, signal?: AbortSignal): Promise<ObjectInfo | undefined> {
      try {
        const out = await client.send(
          new HeadObjectCommand({ Bucket, Key: fullKey(key) }),
          signal ? { abortSignal: signal } : {},
        );
        const info: ObjectInfo = { key, size: out.ContentLength ?? 0, metadata: out.Metadata ?? {} };
        if (out.LastModified) info.lastModified = out.LastModified;
        return info;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },

    async *list(prefix = '') {
      let token: string | undefined;
      do {
        const out = await client.send(
          new ListObjectsV2Command({
            Bucket,
            Prefix: location.prefix + prefix,
            ...(token ? { ContinuationToken: token } : {}),
          }),
        );
        for (const item of out.Contents ?? []) {
          if (!item.Key) continue;
          const entry: Omit<ObjectInfo, 'metadata'> = {
            key: item.Key.slice(location.prefix.length),
            size: item.Size ?? 0,
          };
          if (item.LastModified) entry.lastModified = item.LastModified;
          yield entry;
        }
        token = out.IsTruncated ? out.NextContinuationToken : undefined;
      } while (token);
    },

    async delete(key: string): Promise<void> {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: fullKey(key) }));
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },

    async close(): Promise<void> {
      client.destroy();
    },
  };
}
