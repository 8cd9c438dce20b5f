// A fake Kubernetes API server for the proxy tests: TLS, a service-account token, impersonation and a
// namespace RBAC by group, pods with watch, logs, exec, cp and port-forward, as kubectl meets them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, WebSocketServer } from 'ws';
import { createKubeCa, issueServerCertificate } from '../../src/kube/kube-ca.js';
import { answerCustom, CUSTOM_GROUP, CUSTOM_GROUP_LIST, CUSTOM_RESOURCES } from './fake-kube-apiserver-custom.js';
import { runFakeExec } from './fake-kube-apiserver-exec.js';
import { CORE_RESOURCES, forbidden, now, type Pod, podJson, status, table } from './fake-kube-apiserver-objects.js';
import {
  type ForwardedConnection,
  PORT_FORWARD_PROTOCOL,
  servePortForward,
  TUNNELED_PORT_FORWARD_PROTOCOL,
} from './fake-kube-apiserver-portforward.js';

export interface SeenRequest {
  method: string;
  path: string;
  user: string;
  groups: string[];
  /** Impersonation headers as received (undefined: none). */
  impersonateUser?: string;
  impersonateGroups: string[];
}

export interface FakeKube {
  url: string;
  caPem: string;
  token: string;
  seen: SeenRequest[];
  /** Exec sessions currently open (the shell is running). */
  openExecs(): number;
  /** Bytes the log of pod `chatty` has written so far (it writes as fast as its reader takes them). */
  chattyLogBytes(): number;
  /** Adds a pod as if someone else created it (watches see ADDED). */
  addPod(namespace: string, name: string): void;
  /** Watch requests still open. */
  openWatches(): number;
  /** Files in the fake pods' file systems (namespace/pod:path → content), written by kubectl cp. */
  files: Map<string, Buffer>;
  /** Upgrades to pods named silent-* still open: the fake holds them without answering. */
  heldUpgrades(): number;
  /** Connections kubectl port-forward opened to the pods' ports (the pod's port N is 127.0.0.1:N). */
  forwarded: ForwardedConnection[];
  close(): Promise<void>;
}

/** Group → namespaces it may use ('*' all). system:masters may do everything, as in a real cluster. */
export type FakeRbac = Record<string, string[] | '*'>;

/** As kube-apiserver decides the verb: `watch` present with a first value other than false/0 (any case). */
const watching = (url: URL): boolean => {
  const v = url.searchParams.get('watch');
  return v !== null && v.toLowerCase() !== 'false' && v !== '0';
};

export async function startFakeKube(
  opts: { rbac?: FakeRbac; namespaces?: string[]; pods?: Array<[string, string]> } = {},
): Promise<FakeKube> {
  const ca = createKubeCa();
  const tls = issueServerCertificate(ca, ['127.0.0.1']);
  const token = `fake-sa-token-${Math.random().toString(36).slice(2)}`;
  const rbac: FakeRbac = { 'system:masters': '*', ...(opts.rbac ?? {}) };
  const namespaces = opts.namespaces ?? ['default', 'dev', 'prod'];
  const pods: Pod[] = (
    opts.pods ?? [
      ['default', 'web-1'],
      ['dev', 'api-1'],
      ['prod', 'db-1'],
    ]
  ).map(([namespace, name]) => ({ namespace, name, created: now() }));
  const seen: SeenRequest[] = [];
  const watchers = new Set<(type: string, pod: Pod) => void>();
  let execs = 0;
  let chattyBytes = 0;
  const files = new Map<string, Buffer>();
  const forwarded: ForwardedConnection[] = [];
  const held = new Set<unknown>();

  function send(res: ServerResponse, code: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }
  /** Authentication and impersonation, as the apiserver's filters do them; undefined after a 401/403 was sent. */
  function identify(
    req: IncomingMessage,
  ): { user: string; groups: string[]; seen: SeenRequest } | { code: number; body: unknown } {
    const auth = req.headers.authorization ?? '';
    if (auth !== `Bearer ${token}`) return { code: 401, body: status(401, 'Unauthorized', 'Unauthorized') };
    const rawGroups = req.headers['impersonate-group'];
    const impersonateGroups = Array.isArray(rawGroups)
      ? rawGroups
      : rawGroups
        ? rawGroups.split(',').map((g) => g.trim())
        : [];
    const impersonateUser = req.headers['impersonate-user'] as string | undefined;
    if (impersonateGroups.length > 0 && !impersonateUser) {
      return { code: 500, body: status(500, 'InternalError', 'requested [{Group  ...}] without impersonating a user') };
    }
    const user = impersonateUser ?? 'system:serviceaccount:gatehouse:proxy';
    const groups = impersonateUser
      ? [...impersonateGroups, 'system:authenticated']
      : ['system:serviceaccounts', 'system:authenticated'];
    const record: SeenRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      user,
      groups,
      impersonateGroups,
      ...(impersonateUser ? { impersonateUser } : {}),
    };
    seen.push(record);
    return { user, groups, seen: record };
  }

  const mayUse = (groups: string[], namespace: string | undefined) =>
    groups.some((g) => {
      const rule = rbac[g];
      return rule === '*' || (rule !== undefined && namespace !== undefined && rule.includes(namespace));
    });

  function onRequest(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'https://fake');
    const who = identify(req);
    if ('code' in who) return send(res, who.code, who.body);
    const path = url.pathname;
    if (path === '/version')
      return send(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0-fake', platform: 'linux/amd64' });
    if (path === '/api')
      return send(res, 200, {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
      });
    if (path === '/apis') return send(res, 200, CUSTOM_GROUP_LIST);
    if (path === `/apis/${CUSTOM_GROUP}/v1`) return send(res, 200, CUSTOM_RESOURCES);
    const custom = answerCustom(path, req.headers.accept ?? '', who.user, (ns) => mayUse(who.groups, ns));
    if (custom) return send(res, custom.code, custom.body);
    if (path === '/api/v1') return send(res, 200, CORE_RESOURCES);
    if (path === '/api/v1/namespaces') {
      if (!mayUse(who.groups, '*') && !who.groups.some((g) => rbac[g] === '*'))
        return send(res, 403, forbidden(who.user, 'list', 'namespaces'));
      return send(res, 200, {
        kind: 'NamespaceList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '1' },
        items: namespaces.map((n) => ({
          metadata: { name: n, creationTimestamp: now() },
          status: { phase: 'Active' },
        })),
      });
    }
    if (path === '/api/v1/pods') {
      // Every namespace at once (kubectl get pods -A): a group reaching all namespaces only.
      if (!who.groups.some((g) => rbac[g] === '*')) return send(res, 403, forbidden(who.user, 'list', 'pods'));
      if (watching(url)) return watch(req, res, undefined);
      if ((req.headers.accept ?? '').includes('as=Table')) return send(res, 200, table(pods));
      return send(res, 200, {
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '1' },
        items: pods.map(podJson),
      });
    }
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+))?(?:\/(log))?$/.exec(path);
    if (!m) return send(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const [, namespace, name, sub] = m as unknown as [string, string, string | undefined, string | undefined];
    const verb = name
      ? req.method === 'DELETE'
        ? 'delete'
        : 'get'
      : req.method === 'POST'
        ? 'create'
        : watching(url)
          ? 'watch'
          : 'list';
    if (!mayUse(who.groups, namespace))
      return send(res, 403, forbidden(who.user, verb, sub ? `pods/${sub}` : 'pods', namespace));
    const inNs = () => pods.filter((p) => p.namespace === namespace);
    if (!name && req.method === 'GET' && verb === 'watch') return watch(req, res, namespace);
    if (!name && req.method === 'GET') {
      if ((req.headers.accept ?? '').includes('as=Table')) return send(res, 200, table(inNs()));
      return send(res, 200, {
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '1' },
        items: inNs().map(podJson),
      });
    }
    if (!name && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { metadata?: { name?: string } };
        const pod = { namespace, name: body.metadata?.name ?? 'unnamed', created: now() };
        pods.push(pod);
        for (const w of watchers) w('ADDED', pod);
        send(res, 201, podJson(pod));
      });
      return;
    }
    const pod = inNs().find((p) => p.name === name);
    if (!pod) return send(res, 404, status(404, 'NotFound', `pods "${name}" not found`, { name, kind: 'pods' }));
    if (sub === 'log') return logs(req, res, url, pod);
    if (req.method === 'DELETE') {
      pods.splice(pods.indexOf(pod), 1);
      for (const w of watchers) w('DELETED', pod);
      return send(res, 200, podJson(pod));
    }
    return send(res, 200, podJson(pod));
  }

  function watch(req: IncomingMessage, res: ServerResponse, namespace: string | undefined) {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const asTable = (req.headers.accept ?? '').includes('as=Table');
    const write = (type: string, pod: Pod) => {
      if (namespace !== undefined && pod.namespace !== namespace) return;
      const object = asTable ? table([pod]) : podJson(pod);
      res.write(`${JSON.stringify({ type, object })}\n`);
    };
    watchers.add(write);
    req.on('close', () => watchers.delete(write));
  }

  function logs(req: IncomingMessage, res: ServerResponse, url: URL, pod: Pod) {
    res.writeHead(200, { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' });
    if (pod.name === 'chatty') {
      // As fast as the reader takes it, and no faster: write until the socket says wait, then drain.
      const line = Buffer.from(`${'x'.repeat(1023)}\n`.repeat(64));
      let open = true;
      req.on('close', () => {
        open = false;
      });
      const pump = () => {
        while (open) {
          chattyBytes += line.length;
          if (!res.write(line)) return void res.once('drain', pump);
        }
      };
      return pump();
    }
    res.write('log line 1\nlog line 2\n');
    if (url.searchParams.get('follow') !== 'true') return void res.end();
    let n = 3;
    const timer = setInterval(() => res.write(`log line ${n++}\n`), 100);
    req.on('close', () => clearInterval(timer));
  }

  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (protocols) =>
      protocols.has('v5.channel.k8s.io')
        ? 'v5.channel.k8s.io'
        : protocols.has('v4.channel.k8s.io')
          ? 'v4.channel.k8s.io'
          : false,
  });
  // ws refuses a subprotocol with '/' (not an RFC 7230 token), which Kubernetes' tunnelling one has and
  // gorilla/websocket accepts: the fake takes it off the request and answers it itself.
  const tunnelled = new WeakSet<IncomingMessage>();
  wss.on('headers', (headers, req) => {
    if (tunnelled.delete(req)) headers.push(`Sec-WebSocket-Protocol: ${TUNNELED_PORT_FORWARD_PROTOCOL}`);
  });

  const server: Server = createServer({ cert: tls.cert, key: tls.key }, onRequest);
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const reply = (code: number, body: unknown) => {
      const text = JSON.stringify(body);
      socket.end(
        `HTTP/1.1 ${code} Error\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      );
    };
    const who = identify(req);
    if ('code' in who) return reply(who.code, who.body);
    const url = new URL(req.url ?? '/', 'https://fake');
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)$/.exec(url.pathname);
    if (!m) return reply(404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const [, namespace, name, sub] = m as unknown as [string, string, string, string];
    if (!mayUse(who.groups, namespace)) return reply(403, forbidden(who.user, 'create', `pods/${sub}`, namespace));
    if (!pods.some((p) => p.namespace === namespace && p.name === name))
      return reply(404, status(404, 'NotFound', `pods "${name}" not found`));
    const upgrade = (req.headers.upgrade ?? '').toLowerCase();
    // A kubelet that never answers: pods named silent-* hold the upgrade open without a word.
    if (name.startsWith('silent-')) {
      held.add(socket);
      socket.on('close', () => held.delete(socket));
      return;
    }
    if (sub === 'portforward') {
      if (!portForward(req, socket as Duplex, head, upgrade, `${namespace}/${name}`, who.user))
        reply(400, status(400, 'BadRequest', 'port-forward needs SPDY/3.1 or a WebSocket tunnelling it'));
      return;
    }
    if (upgrade !== 'websocket') return reply(400, status(400, 'BadRequest', 'SPDY is not served by this fake'));
    wss.handleUpgrade(req, socket, head, (ws) => {
      execs++;
      ws.on('close', () => execs--);
      runFakeExec(ws, url.searchParams.getAll('command'), {
        tty: url.searchParams.get('tty') === 'true',
        user: who.user,
        files,
        pod: `${namespace}/${name}`,
      });
    });
  });
  // kubectl ≤ 1.30 upgrades to SPDY itself; ≥ 1.31 asks for a WebSocket carrying the same SPDY bytes
  // in binary messages, which the API server unwraps (apiserver's proxy/tunneling) for the kubelet.
  function portForward(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    upgrade: string,
    pod: string,
    user: string,
  ): boolean {
    const protocols = String(req.headers['x-stream-protocol-version'] ?? '').split(/\s*,\s*/);
    if (upgrade === 'spdy/3.1' && protocols.includes(PORT_FORWARD_PROTOCOL)) {
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${PORT_FORWARD_PROTOCOL}\r\n\r\n`,
      );
      if (head.length) socket.unshift(head);
      servePortForward(socket, { pod, user, transport: 'spdy' }, forwarded);
      return true;
    }
    const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(/\s*,\s*/);
    if (upgrade === 'websocket' && offered.includes(TUNNELED_PORT_FORWARD_PROTOCOL)) {
      delete req.headers['sec-websocket-protocol'];
      tunnelled.add(req);
      wss.handleUpgrade(req, socket, head, (ws) =>
        servePortForward(createWebSocketStream(ws), { pod, user, transport: 'websocket' }, forwarded),
      );
      return true;
    }
    return false;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: ca.certPem,
    token,
    seen,
    openExecs: () => execs,
    chattyLogBytes: () => chattyBytes,
    addPod(namespace, name) {
      const pod = { namespace, name, created: now() };
      pods.push(pod);
      for (const w of watchers) w('ADDED', pod);
    },
    openWatches: () => watchers.size,
    files,
    forwarded,
    heldUpgrades: () => held.size,
    async close() {
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
