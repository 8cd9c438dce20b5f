// s3rver (an S3 API on the local file system) on a loopback port, for the S3 recordings store. It can
// be stopped abruptly (open connections cut, as when a server dies) and started again on the same
// port and directory, with the objects it held.

import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

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
