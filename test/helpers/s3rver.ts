// s3rver (an S3 API on the local file system) on a loopback port, for the S3 recordings store. It can
// be stopped abruptly (open connections cut, as when a server dies) and started again on the same
// port and directory, with the objects it held.

import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as S3rverClass;

interface StoredObject {
  bucket: string;
  key: string;
  metadata: Record<string, string>;
  content: Buffer | Readable;
}
interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
}
const store = require('s3rver/lib/stores/filesystem.js') as { prototype: FilesystemStore };

// s3rver 3.7 opens the object file for writing (truncating it) when a PUT starts, and a PUT whose
// client goes away leaves what arrived as the object. S3, MinIO and Swift replace an object only
// when a PUT completes, which is what the recordings store relies on: write beside it and rename on
// completion, so the fake keeps the promise of the servers it stands in for.
store.prototype.putObject = async function putObject(object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  await mkdir(dirname(objectPath), { recursive: true });
  const part = `${objectPath}.${randomBytes(6).toString('hex')}.part`;
  const md5 = createHash('md5');
  let size = 0;
  const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
  try {
    await pipeline(
      source,
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          md5.update(chunk);
          size += chunk.length;
          callback(null, chunk);
        },
      }),
      createWriteStream(part),
    );
    await rename(part, objectPath);
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  }
  const digest = md5.digest('hex');
  await this.putMetadata(object.bucket, object.key, object.metadata, digest);
  return { size, md5: digest };
};

export interface TestS3 {
  endpoint: string;
  port: number;
  bucket: string;
  /** An s3:// URL for openObjectStore, credentials included (s3rver accepts any). */
  url(prefix?: string): string;
  /** Cuts every connection and stops listening. */
  stop(): Promise<void>;
  /** Listens again on the same port, over the same directory. */
  start(): Promise<void>;
}

export async function startS3rver(directory: string, bucket = 'recordings'): Promise<TestS3> {
  let server: S3rverInstance | undefined;
  let port = 0;
  async function start(): Promise<void> {
    const instance = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }],
    });
    const address = await instance.run();
    port = address.port;
    server = instance;
  }
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    port,
    bucket,
    url: (prefix = '') =>
      `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&path_style=true` +
      '&access_key_id=S3RVER&secret_access_key=S3RVER',
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      s.httpServer?.closeAllConnections();
      await s.close();
    },
    start,
  };
}
