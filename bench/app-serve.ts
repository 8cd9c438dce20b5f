// What bench:app's child servers share: listen on loopback with keep-alive, print `BENCH_READY
// {url}` once listening, and stop with the parent (child-protocol.ts).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exitOnParentGone, READY_PREFIX } from './child-protocol.js';

export function serveOnLoopback(server: Server, stop: () => Promise<void> = async () => {}): void {
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${READY_PREFIX}${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
  exitOnParentGone(async () => {
    server.close();
    await stop();
  });
}
