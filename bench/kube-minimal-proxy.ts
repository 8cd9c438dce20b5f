// The least a Kubernetes proxy does, as a ceiling for npm run bench:kube: terminate TLS, parse the
// request, forward it over a keep-alive TLS connection with the cluster's token and an impersonation,
// stream the answer back. No authentication, authorization, filtering or audit — what Gatehouse adds
// on top is what bench:kube's "Gatehouse / minimal forwarder" ratio shows. Node's https client, as
// Gatehouse used until it moved plain requests to undici (kube-upstream-request.ts): a forwarder on
// undici would be cheaper than this one, so the ratios favour Gatehouse by that difference. argv: <upstream URL> <upstream CA file> <token> <work dir> [<audit.db> <client token>];
// prints `BENCH_READY {url, caPem}` once it listens; ends with its parent (child-protocol.ts).
//
// With the last two arguments it is the minimal *auditing* Kubernetes proxy, the reference doing the
// unavoidable work that issue 36's target is stated against: besides forwarding, each request's
// bearer token is hashed and looked up (one known token here), the decision for (principal, verb,
// path) is computed once and then read from a map (a proxy must decide every request; caching the
// decision is the least it can do), and each request writes one kube.request event (who, verb, path,
// status) through Gatehouse's SQLite audit store, gathered every 5 ms into one append. Left out, and
// counted as Gatehouse's own: the session registry, kube_resources filtering, revocation checks,
// metrics, the request log.
import { hash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import { Agent, createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { openSqliteAuditStore } from '../src/audit/sqlite.js';
import type { AuditEvent } from '../src/audit/types.js';
import { selfSignedCert } from '../test/helpers/tls.js';
import { exitOnParentGone, READY_PREFIX } from './child-protocol.js';

const [upstreamUrl, caFile, token, dir, auditPath, clientToken] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string | undefined,
  string | undefined,
];
const store = auditPath ? openSqliteAuditStore({ path: auditPath }) : undefined;
const principals = new Map(clientToken ? [[hash('sha256', clientToken), 'bencher']] : []);
const decisions = new Map<string, boolean>();
let pending: AuditEvent[] = [];
let timer: NodeJS.Timeout | undefined;
let seq = 0;
const run = randomBytes(4).toString('hex');
const flush = () => {
  timer = undefined;
  const events = pending;
  pending = [];
  store?.append(events).catch(() => undefined);
};
const audit = (who: string, verb: string, path: string, status: number) => {
  pending.push({
    id: `evt_${run}${(seq++).toString(36)}`,
    type: 'kube.request',
    code: 'GH6000I',
    time: new Date().toISOString(),
    actor: { kind: 'user', name: who },
    target: { kind: 'kube_cluster', id: 'bench' },
    success: status < 400,
    data: { verb, path, status },
  });
  timer ??= setTimeout(flush, 5);
};
const upstream = new URL(upstreamUrl);
const agent = new Agent({ keepAlive: true, ca: readFileSync(caFile) });
const { certFile, keyFile } = selfSignedCert(dir);
const DROPPED = new Set(['host', 'connection', 'keep-alive', 'authorization']);

const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  let who = '';
  if (store) {
    const bearer = req.headers.authorization?.startsWith('Bearer ') ? req.headers.authorization.slice(7) : '';
    who = principals.get(hash('sha256', bearer)) ?? '';
    const key = `${who}\0${req.method}\0${req.url}`;
    let allowed = decisions.get(key);
    if (allowed === undefined) {
      allowed = who !== '' && req.method === 'GET' && (req.url ?? '').startsWith('/api/');
      decisions.set(key, allowed);
    }
    if (!allowed) {
      res.writeHead(who ? 403 : 401).end();
      audit(who || 'anonymous', req.method ?? '', req.url ?? '', who ? 403 : 401);
      return;
    }
  }
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
      if (store) audit(who, req.method ?? '', req.url ?? '', answer.statusCode ?? 502);
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
  if (timer) flush();
  await store?.close();
});
