// The least a PostgreSQL proxy written on Node's sockets does, as a ceiling for npm run bench:db: accept,
// connect upstream, copy bytes both ways (pipe, with backpressure). No protocol parsing,
// authentication, authorization or audit — what Gatehouse adds on top is the "gatehouse / node
// forwarder" ratio. Its own process, as pgbouncer has. argv: <upstream port>; prints `BENCH_READY
// {"port": n}` once it listens; ends with its parent (child-protocol.ts).
import { connect, createServer } from 'node:net';
import { exitOnParentGone, READY_PREFIX } from './child-protocol.js';

const upstreamPort = Number(process.argv[2] ?? 5432);
const server = createServer({ noDelay: true }, (client) => {
  const upstream = connect({ host: '127.0.0.1', port: upstreamPort, noDelay: true });
  client.pipe(upstream).on('error', () => client.destroy());
  upstream.pipe(client).on('error', () => upstream.destroy());
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`${READY_PREFIX}${JSON.stringify({ port })}\n`);
});
exitOnParentGone(async () => {
  server.close();
});
