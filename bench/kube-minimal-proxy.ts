// The least a Kubernetes proxy does, as a ceiling for npm run bench:kube: terminate TLS, parse the
// request, forward it over a keep-alive TLS connection with the cluster's token and an impersonation,
// stream the answer back. No authentication, authorization, filtering or audit — what Gatehouse adds
// on top is what bench:kube's "Gatehouse / minimal forwarder" ratio shows. Node's https client, as
// Gatehouse uses. argv: <upstream URL> <upstream CA file> <token> <work dir>; prints
// `BENCH_READY {url, caPem}` once it listens; ends with its parent (child-protocol.ts).
import { readFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import { Agent, createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCert } from '../test/helpers/tls.js';
import { exitOnParentGone, READY_PREFIX } from './child-protocol.js';

const [upstreamUrl, caFile, token, dir] = process.argv.slice(2) as [string, string, string, string];
const upstream = new URL(upstreamUrl);
const agent = new Agent({ keepAlive: true, ca: readFileSync(caFile) });
const { certFile, keyFile } = selfSignedCert(dir);
const DROPPED = new Set(['host', 'connection', 'keep-alive', 'authorization']);

const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !DROPPED.has(name) && !name.startsWith('impersonate-')) headers[name] = value;
  }
  headers.authorization = `Bearer ${token}`;
  headers['impersonate-user'] = 'bencher';
  headers['impersonate-group'] = ['bench'];
  const up = request(
    { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  up.on('error', () => res.destroy());
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(
    `${READY_PREFIX}${JSON.stringify({ url: `https://127.0.0.1:${port}`, caPem: readFileSync(certFile, 'utf8') })}\n`,
  );
});
exitOnParentGone(async () => {
  server.close();
  agent.destroy();
});
