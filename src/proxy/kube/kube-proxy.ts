// The Kubernetes proxy (GATEHOUSE_KUBE_ADDR, default 127.0.0.1:3026), always TLS with a certificate
// from Gatehouse's own CA. A kubeconfig points kubectl at https://<proxy>/clusters/<cluster id>; each
// request is authenticated (the kubeconfig's Gatehouse token), authorized (the cluster visible to
// the principal, its kube_groups), audited (kube.request) and forwarded with impersonation. exec and
// attach upgrade to WebSocket and are recorded; SPDY cannot be recorded here, so it is refused.
// Inside the cluster, kube_resources decide which objects a request may touch (lists and watches
// narrowed item by item), and port-forward needs options.port_forwarding.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { EventInput } from '../../audit/audit-log.js';
import { actorOfPrincipal } from '../../auth/principal.js';
import type { DoorOptions } from '../../net/listener-limits.js';
import type { KubeUpstream } from '../../resources/kube-upstream.js';
import type { PrincipalProof } from '../../sessions/principal-proof.js';
import { createAnsweredRequests } from '../common/answered-requests.js';
import { doorListener } from '../common/door-listener.js';
import { type DoorKitDeps, noteDoorRefusal } from '../common/door-session.js';
import {
  describeKubeRequest,
  impersonationHeaders,
  type KubeAccess,
  type KubeCaller,
  type KubeDecision,
} from './kube-access.js';
import { type Admitted, admissionKey, createKubeAdmissions } from './kube-admissions.js';
import { readCreateBody } from './kube-create-name.js';
import { bridgeExec } from './kube-exec.js';
import { portForwardSession, tunnelPortForward } from './kube-portforward.js';
import { type Routed, requestData, route, sendStatus, sendStatusOnSocket } from './kube-request.js';
import { createKubeScopes } from './kube-scope.js';
import { forward } from './kube-upstream-request.js';

export interface KubeProxyDeps extends DoorKitDeps {
  tls: { cert: string; key: string };
  access: KubeAccess;
  /** The cluster's upstream credential, asked with the decision it serves (issued after a check of its own). */
  /** `proof`: the caller's bearer token as presented, forwarded with the ask (sessions/principal-proof.ts). */
  upstream(
    decision: Extract<KubeDecision, { allowed: true }>,
    proof: PrincipalProof | undefined,
  ): Promise<KubeUpstream | undefined>;
  /** Caps and the handshake deadline of the listener (TLS handshake and first request in time). */
  door: DoorOptions;
}

export type KubeProxy = ReturnType<typeof createKubeProxy>;

const STREAMING = new Set(['exec', 'attach']);

export function createKubeProxy(deps: KubeProxyDeps) {
  const { access, audit, clock, logger } = deps;
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    // The protocol the API server chose, which bridgeExec put first (it offered only the client's).
    handleProtocols: (protocols) => [...protocols][0] ?? false,
  });
  // Answered requests' events, one audit append every few tens of ms (common/answered-requests.ts).
  const answeredLog = createAnsweredRequests(audit, (err) => logger.error({ err }, 'kube: cannot record requests'));
  // Which custom kinds are cluster-scoped, from the cluster's discovery (kube-scope.ts).
  const scopes = createKubeScopes({ clock });
  /** Discovery requests per cluster, counted instead of logged one by one. */
  const discoveryCount = new Map<string, number>();
  /** Admissions reused while the principal object (and so the state) is unchanged, ≤ 1 s (kube-admissions.ts). */
  const admissions = createKubeAdmissions(clock);

  /** kube.request, for every API request except discovery; refusals are durable before the answer. */
  function recordRequest(
    req: IncomingMessage,
    routed: Routed,
    decision: KubeDecision,
    code: number,
    startedAt: number,
    reason?: string,
  ): Promise<void> {
    const { info } = routed;
    const principal = decision.principal;
    const cluster = decision.cluster ?? access.findCluster(routed.clusterId);
    const event: EventInput = {
      type: 'kube.request',
      actor: principal ? actorOfPrincipal(principal) : { kind: 'anonymous' },
      target: cluster
        ? { kind: 'kube_cluster', id: cluster.id, name: cluster.name }
        : { kind: 'kube_cluster', id: routed.clusterId },
      success: decision.allowed && code < 400,
      remote_addr: req.socket.remoteAddress ?? '',
      data: requestData(routed, code, clock() - startedAt, decision.allowed ? decision : undefined, reason),
    };
    deps.metrics?.kubeRequests.inc({ verb: info.verb });
    if (decision.allowed && !reason) {
      answeredLog.add(event);
      return Promise.resolve();
    }
    noteDoorRefusal(deps, {
      door: 'kube',
      denial: code === 401 ? 'authentication' : 'access',
      principal,
      ...(cluster ? { resource: { kind: 'kube_cluster', id: cluster.id, name: cluster.name } } : {}),
      remoteAddr: event.remote_addr ?? '',
      reason: reason ?? `answered ${code}`,
    });
    return audit.record(event);
  }

  /** Authorization and the impersonation rule for an authenticated caller, shared by plain and upgrade requests. */
  async function admit(
    req: IncomingMessage,
    routed: Routed,
    startedAt: number,
    caller: KubeCaller,
  ): Promise<Admitted | { ok: false; code: number; message: string }> {
    if ('allowed' in caller) return decideAndAdmit(req, routed, startedAt, caller);
    const key = admissionKey(routed.clusterId, req.headers['impersonate-user'], routed.info);
    const held = admissions.get(caller.principal, key);
    if (held && impersonationHeaders(req.headers, held.decision.userChosen).length === 0) return held;
    const admitted = await decideAndAdmit(req, routed, startedAt, caller);
    if (admitted.ok) admissions.set(caller.principal, key, admitted);
    return admitted;
  }

  /** The decision, the impersonation rule, the credential and kube_resources, from scratch. */
  async function decideAndAdmit(
    req: IncomingMessage,
    routed: Routed,
    startedAt: number,
    caller: KubeCaller,
  ): Promise<Admitted | { ok: false; code: number; message: string }> {
    const decision = 'allowed' in caller ? caller : access.decide(caller.principal, req.headers, routed.clusterId);
    if (!decision.allowed) {
      // Who did not authenticate makes no kube.request event (the credential step audits a bad token).
      if ((decision.code !== 401 && decision.code !== 429) || decision.principal)
        await recordRequest(req, routed, decision, decision.code, startedAt, decision.reason);
      else {
        const remoteAddr = req.socket.remoteAddress ?? '';
        noteDoorRefusal(deps, { door: 'kube', denial: 'authentication', remoteAddr, reason: decision.reason });
      }
      return { ok: false, code: decision.code, message: decision.reason };
    }
    const refuse = async (message: string) => {
      await recordRequest(
        req,
        routed,
        { ...decision, allowed: false, code: 403, reason: message },
        403,
        startedAt,
        message,
      );
      return { ok: false as const, code: 403, message };
    };
    const asked = impersonationHeaders(req.headers, decision.userChosen);
    if (asked.length > 0) {
      // Impersonation is Gatehouse's to set: a client asking for any (--as, --as-group) is refused,
      // unless --as picks one of the principal's own kube_users.
      return refuse(
        `gatehouse: impersonation is set by Gatehouse from your roles; remove ${asked.join(', ')} (kubectl --as/--as-group)`,
      );
    }
    let upstream: KubeUpstream | undefined;
    try {
      upstream = await deps.upstream(decision, 'proof' in caller ? caller.proof : undefined);
    } catch (error) {
      return {
        ok: false,
        code: 503,
        message: `gatehouse: no credential for ${decision.cluster.name}: ${(error as Error).message}`,
      };
    }
    const clusterScoped = upstream ? await scopes.clusterScoped(upstream, routed.info) : false;
    const object = access.object(decision.principal, decision.cluster, routed.info, clusterScoped);
    if (object?.verdict === 'deny')
      return refuse(
        `gatehouse: ${decision.principal.name} may not ${describeKubeRequest(object.req)} (kube_resources)`,
      );
    if (routed.info.subresource === 'portforward' && !decision.options.portForwarding)
      return refuse(
        `gatehouse: port-forward needs a role with options.port_forwarding; ${decision.principal.name} has none`,
      );
    if (!upstream)
      return { ok: false, code: 503, message: `gatehouse: ${decision.cluster.name} has no upstream credential` };
    const filter =
      object?.verdict === 'filter'
        ? { keep: access.keep(decision.principal, decision.cluster, object.req), watch: object.req.verb === 'watch' }
        : undefined;
    return { ok: true, decision, upstream, ...(filter ? { filter } : {}) };
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const startedAt = clock();
    let routed = route(req);
    if (!routed) {
      sendStatus(res, 404, 'gatehouse: use the kubeconfig from GET /v1/resources/{id}/kubeconfig');
      return;
    }
    // A create is decided by the name in its body (kube-create-name.ts), read only for a caller the
    // cluster admits at all, so no anonymous request makes the proxy hold a body.
    let body: Buffer | undefined;
    const { info } = routed;
    const caller = await access.authenticate(req.headers, req.socket.remoteAddress ?? '');
    if (
      info.verb === 'create' &&
      !info.name &&
      !info.subresource &&
      !('allowed' in caller) &&
      access.decide(caller.principal, req.headers, routed.clusterId).allowed
    ) {
      const read = await readCreateBody(req);
      if (!read.ok) {
        sendStatus(res, read.code, read.message);
        return;
      }
      body = read.body;
      if (read.name) routed = { ...routed, info: { ...info, name: read.name } };
    }
    const admitted = await admit(req, routed, startedAt, caller);
    if (!admitted.ok) {
      sendStatus(res, admitted.code, admitted.message);
      return;
    }
    const code = await forward(req, res, admitted.upstream, admitted.decision, routed.restPath + routed.query, {
      ...(admitted.filter ? { filter: admitted.filter } : {}),
      ...(body ? { body } : {}),
      discovery: routed.info.discovery,
    });
    if (routed.info.discovery) {
      discoveryCount.set(routed.clusterId, (discoveryCount.get(routed.clusterId) ?? 0) + 1);
      return;
    }
    await recordRequest(req, routed, admitted.decision, code, startedAt);
  }

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const startedAt = clock();
    socket.on('error', () => socket.destroy());
    const routed = route(req);
    if (!routed) {
      sendStatusOnSocket(socket, 404, 'gatehouse: use the kubeconfig from GET /v1/resources/{id}/kubeconfig');
      return;
    }
    const caller = await access.authenticate(req.headers, req.socket.remoteAddress ?? '');
    const admitted = await admit(req, routed, startedAt, caller);
    if (!admitted.ok) {
      sendStatusOnSocket(socket, admitted.code, admitted.message);
      return;
    }
    const upgrade = (req.headers.upgrade ?? '').toLowerCase();
    const sub = routed.info.subresource ?? '';
    if (sub === 'portforward') {
      // admit() checked options.port_forwarding; the event carries the API server's answer.
      const { upstream, decision } = admitted;
      const started = portForwardSession(deps, decision, routed.info, req.socket.remoteAddress ?? '');
      const code = await tunnelPortForward(
        req,
        socket,
        head,
        upstream,
        decision,
        routed.restPath + routed.query,
        started,
      );
      await recordRequest(req, routed, decision, code, startedAt);
      return;
    }
    let refusal: string | undefined;
    if (!STREAMING.has(sub))
      refusal = `gatehouse: ${sub || 'this request'} cannot be streamed through Gatehouse (exec and attach can)`;
    else if (upgrade !== 'websocket')
      refusal = `gatehouse: ${sub} over ${upgrade || 'this protocol'} cannot be recorded, so Gatehouse refuses it; use kubectl 1.30 or newer (exec over WebSocket)`;
    await recordRequest(req, routed, admitted.decision, refusal ? 403 : 101, startedAt, refusal);
    if (refusal) {
      sendStatusOnSocket(socket, 403, refusal);
      return;
    }
    bridgeExec({ ...deps, wss }, req, socket, head, { ...admitted, ...routed });
  }

  const server: Server = createServer({ cert: deps.tls.cert, key: deps.tls.key }, (req, res) => {
    door.passed(req.socket); // a whole request arrived: Node's HTTP bounds apply from here
    onRequest(req, res).catch((err) => {
      logger.error({ err }, 'kube: request failed');
      sendStatus(res, 500, 'gatehouse: internal error');
    });
  });
  // Before any other 'connection' listener, so a refused socket never starts a TLS handshake.
  const door = doorListener(server, { name: 'kube', logger, door: deps.door, metrics: deps.metrics });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    door.passed(req.socket);
    onUpgrade(req, socket, head).catch((err) => {
      logger.error({ err }, 'kube: upgrade failed');
      sendStatusOnSocket(socket, 500, 'gatehouse: internal error');
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  // A proxied answer can leave in two writes (headers, then the body as it arrives); with Nagle on,
  // the second waits for the client's delayed ACK of the first: 40 ms a request.
  server.on('secureConnection', (socket) => socket.setNoDelay(true));

  return {
    server,
    discoveryRequests: (clusterId: string) => discoveryCount.get(clusterId) ?? 0,
    listen: door.listen,
    /**
     * Ends every request, watch and exec at once. Node's HTTP server knows only connections past
     * their TLS handshake and not upgraded, so the door cuts the rest (a socket still in its
     * handshake, a port-forward tunnel) after 1 s.
     */
    async close(): Promise<void> {
      for (const client of wss.clients) client.terminate();
      server.closeAllConnections();
      await door.close(1000);
      await answeredLog.flush();
    },
  };
}
