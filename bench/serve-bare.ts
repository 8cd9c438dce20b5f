// A bare Fastify server with one route that returns a precomputed JSON body: the ceiling the
// Gatehouse read path is compared with. Usage: node --import tsx bench/serve-bare.ts <body-file>
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { announceReady, exitOnParentGone, isStopping } from './child-protocol.js';

async function main(): Promise<void> {
  const bodyFile = process.argv[2];
  if (!bodyFile) throw new Error('usage: serve-bare.ts <body-file>');
  const body = readFileSync(bodyFile, 'utf8');
  JSON.parse(body); // refuse to serve something that is not JSON

  const app = Fastify({ logger: false });
  app.get('/v1/agents', async (_request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8');
    return body;
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  exitOnParentGone(() => app.close());
  announceReady({ url: `http://127.0.0.1:${port}` });
}

main().catch((e: unknown) => {
  if (isStopping()) return; // shutting down mid-setup: the shutdown handler exits
  process.stderr.write(`serve-bare: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
