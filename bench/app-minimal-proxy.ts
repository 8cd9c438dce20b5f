// The least an application proxy does, as the reference for npm run bench:app: parse the request,
// drop the hop-by-hop headers and Host, forward it over a keep-alive connection to the app, stream
// the answer back (undici's dispatch, each chunk written as it comes). Plain HTTP on both sides, as
// the door in the benchmark (the web listener without TLS, an http app). No authentication, authorization, identity JWT or audit: what Gatehouse adds on
// top is what bench:app's ratio shows. undici, as the door uses. argv: <app URL>; prints
// `BENCH_READY {url}` once it listens; ends with its parent (child-protocol.ts).
import { createServer } from 'node:http';
import { Agent } from 'undici';
import { serveOnLoopback } from './app-serve.js';
import { dispatchTo } from './minimal-dispatch.js';

const upstream = new URL(process.argv[2] as string);
const agent = new Agent({ keepAliveTimeout: 10_000 });
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

const server = createServer((req, res) => {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !HOP.has(name)) headers[name] = value;
  dispatchTo(
    agent,
    { origin: upstream.origin, path: req.url ?? '/', method: (req.method ?? 'GET') as 'GET', headers },
    res,
  );
});
serveOnLoopback(server, () => agent.close());
