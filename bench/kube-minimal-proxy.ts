// The least a Kubernetes proxy does, as a ceiling for npm run bench:kube: terminate TLS, parse the
// request, forward it over a keep-alive TLS connection with the cluster's token and an impersonation,
// stream the answer back. No authentication, authorization, filtering or audit — what Gatehouse adds
// on top is what bench:kube's "Gatehouse / minimal forwarder" ratio shows. undici upstream, each
// chunk written to the client as it comes, as Gatehouse's door does (kube-upstream-request.ts,
// proxy/common/http-forward.ts): the least work; the Node https client it used before cost more.
// argv: <upstream URL> <upstream CA file> <token> <work dir> [<audit.db> <client token>];
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
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { openSqliteAuditStore } from '../src/audit/sqlite.js';
import type { AuditEvent } from '../src/audit/types.js';
import { selfSignedCert } from '../test/helpers/tls.js';
import { exitOnParentGone, READY_PREFIX } from './child-protocol.js';
import { dispatchTo } from './minimal-dispatch.js';

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
const pool = new Pool(upstream.origin, {
  connect: { ca: readFileSync(caFile), rejectUnauthorized: true },
  keepAliveTimeout: 30_000,
  headersTimeout: 0,
  bodyTimeout: 0,
});
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
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !DROPPED.has(name) && !name.startsWith('impersonate-')) headers[name] = value;
  }
  headers.authorization = `Bearer ${token}`;
  headers['impersonate-user'] = 'bencher';
  headers['impersonate-group'] = ['bench'];
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  dispatchTo(
    pool,
    { path: req.url ?? '/', method: (req.method ?? 'GET') as 'GET', headers, body: hasBody ? req : null },
    res,
    (status) => {
      if (store) audit(who, req.method ?? '', req.url ?? '', status);
    },
  );
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(
    `${READY_PREFIX}${JSON.stringify({ url: `https://127.0.0.1:${port}`, caPem: readFileSync(certFile, 'utf8') })}\n`,
  );
});
exitOnParentGone(async () => {
  server.close();
  void pool.destroy();
  if (timer) flush();
  await store?.close();
});
