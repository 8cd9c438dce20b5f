// A bare Fastify server with one route that returns a precomputed JSON body: the ceiling the
// Gatehouse read path is compared with. Usage: node --import tsx bench/serve-bare.ts <body-file>
//
// With BENCH_BARE_MINIMAL_TOKEN=<bearer token> it also does the least every Gatehouse API request
// must (bench/minimal-pipeline.ts). What separates it from bare Fastify is what that work costs on
// Fastify done about as simply as it can be; what separates Gatehouse from it is Gatehouse's own.
import { readFileSync } from 'node:fs';
import { announceReady, exitOnParentGone, isStopping } from './child-protocol.js';
import { serveList } from './minimal-pipeline.js';

async function main(): Promise<void> {
  const bodyFile = process.argv[2];
  if (!bodyFile) throw new Error('usage: serve-bare.ts <body-file>');
  const body = readFileSync(bodyFile, 'utf8');
  JSON.parse(body); // refuse to serve something that is not JSON
  const { app, url } = await serveList(body, process.env.BENCH_BARE_MINIMAL_TOKEN);
  exitOnParentGone(() => app.close());
  announceReady({ url });
}

main().catch((e: unknown) => {
  if (isStopping()) return; // shutting down mid-setup: the shutdown handler exits
  process.stderr.write(`serve-bare: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
