// The app behind the door for npm run bench:app: a plain HTTP server answering every GET with a
// small page (as a dashboard's API call would), keep-alive, in a process of its own so that it,
// Gatehouse, the minimal forwarder and the load generator do not share one event loop.
// Prints `BENCH_READY {url}` once it listens; ends with its parent (child-protocol.ts).
import { createServer } from 'node:http';
import { serveOnLoopback } from './app-serve.js';

const body = Buffer.from(`<!doctype html><title>bench</title><p>${'x'.repeat(512)}</p>`);
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body);
});
serveOnLoopback(server);
