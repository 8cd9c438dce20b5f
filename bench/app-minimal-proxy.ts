// The least an application proxy does, as the reference for npm run bench:app: parse the request,
// drop the hop-by-hop headers and Host, forward it over a keep-alive connection to the app, stream
// the answer back (undici's dispatch, each chunk written as it comes). Plain HTTP on both sides, as
// the door in the benchmark (the web listener without TLS, an http app). No authentication, authorization, identity JWT or audit: what Gatehouse adds on
// top is what bench:app's ratio shows. undici, as the door uses. argv: <app URL>; prints
// `BENCH_READY {url}` once it listens; ends with its parent (child-protocol.ts).
import { createServer } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import { serveOnLoopback } from './app-serve.js';

const upstream = new URL(process.argv[2] as string);
const agent = new Agent({ keepAliveTimeout: 10_000 });
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

const server = createServer((req, res) => {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !HOP.has(name)) headers[name] = value;
  // undici's dispatch handler writing each chunk straight to the client, as the door does (the least
  // work: no body stream and no pipe between them); backpressure by pausing undici's read.
  let controller: Dispatcher.DispatchController | undefined;
  res.on('close', () => {
    if (!res.writableFinished) controller?.abort(new Error('client gone'));
  });
  agent.dispatch(
    { origin: upstream.origin, path: req.url ?? '/', method: (req.method ?? 'GET') as 'GET', headers },
    {
      onRequestStart(c) {
        controller = c;
      },
      onResponseStart(_c, status, answer) {
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer))
          if (value !== undefined && !HOP.has(name)) out[name] = value;
        res.writeHead(status, out);
      },
      onResponseData(c, chunk) {
        if (!res.write(chunk)) {
          c.pause();
          res.once('drain', () => c.resume());
        }
      },
      onResponseEnd: () => void res.end(),
      onResponseError: () => void res.destroy(),
    },
  );
});
serveOnLoopback(server, () => agent.close());
