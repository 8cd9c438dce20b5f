// The auth tier's internal API for proxy-only instances (auth_servers): the state backend's calls, its
// watch as an NDJSON stream, and durable audit appends; a new proxy's join and a joined one's renewal.
// Only a joined proxy's credential gets in (or the deprecated shared token where allowed,
// cluster/cluster-peers.ts); writes are bounded to what proxies own (cluster/proxy-writes.ts), events
// to what proxies record (cluster/proxy-events.ts), both bound to the calling instance, and reads
// never reach cluster/ (join tokens, identities) nor secrets/ (cluster/proxy-reads.ts): a door asks
// for one session's upstream credential instead (POST /credentials). Not part of /v1 nor OpenAPI.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AuditStore } from '../../audit/types.js';
import {
  type Backend,
  BackendError,
  type Condition,
  type Item,
  type Operation,
  type WatchEvent,
} from '../../backend/types.js';
import { type Peer, type PeerCheck, requirePeer } from '../../cluster/cluster-peers.js';
import { acceptProxyEvents } from '../../cluster/proxy-events.js';
import type { ProxyIdentities } from '../../cluster/proxy-identities.js';
import { asProxySees, hiddenFromProxy, withoutHidden } from '../../cluster/proxy-reads.js';
import { type ProxyWriter, refusedProxyWrite } from '../../cluster/proxy-writes.js';
import { type Clock, systemClock } from '../../lib/clock.js';
import { forbidden, GatehouseError } from '../../lib/errors.js';
import type { CredentialIssuer, CredentialRequest } from '../../sessions/upstream-credentials.js';

export const INTERNAL_PREFIX = '/internal/v1';
/** A line on an idle watch stream, so a proxy tells a dead auth server from a quiet cluster. */
export const WATCH_HEARTBEAT_MS = 2000;
/** A write carries values up to the backend's own limit (etcd's 1.5 MiB) and their JSON escaping. */
const INTERNAL_BODY_LIMIT = 8 * 1024 * 1024;

type Args = unknown[];
const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string') throw new GatehouseError('invalid_request', `${what} must be a string`);
  return v;
};
const writeOpts = (v: unknown) => (v && typeof v === 'object' ? (v as { expiresAt?: number }) : undefined);

/** The write a call makes, as the policy judges it: with the expiry it asks for. */
function asPut(key: string, value: string, opts: unknown): Operation {
  const expiresAt = writeOpts(opts)?.expiresAt;
  return typeof expiresAt === 'number' ? { type: 'put', key, value, expiresAt } : { type: 'put', key, value };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who called the internal API (set by its onRequest hook). */
    clusterPeer?: Peer;
  }
}
const peerOf = (request: { clusterPeer?: Peer }): Peer => request.clusterPeer ?? {};
const writerOf = (peer: Peer, now: number): ProxyWriter => ({
  ...(peer.instance !== undefined && { instance: peer.instance }),
  ...(peer.identity !== undefined && { identity: peer.identity }),
  now,
});
/** A read of a key or prefix proxies may not see: 403 naming it. */
function readable(peer: Peer, key: string): string {
  const hidden = hiddenFromProxy(key, peer);
  if (hidden) throw forbidden(`a proxy may not read ${key}: ${hidden}`);
  return key;
}

export function internalRoutes(
  app: FastifyInstance,
  deps: {
    backend: Backend;
    audit: AuditStore;
    /** Who is calling (cluster/cluster-peers.ts). */
    peers: PeerCheck;
    /** Joining and renewal (cluster/proxy-identities.ts). */
    identities: Pick<ProxyIdentities, 'join' | 'renew' | 'exists'> & Partial<Pick<ProxyIdentities, 'onRemoved'>>;
    /** Which write to refuse; the proxy policy unless a test of the transport itself replaces it. */
    refusedWrite?: typeof refusedProxyWrite;
    /** The auth tier's clock: the time of every event a proxy appends, and "now" for its writes. */
    clock?: Clock;
    /** A session's upstream credential, checked and recorded (sessions/upstream-credentials.ts). */
    credentials?: Pick<CredentialIssuer, 'issue'>;
    /** The Kubernetes door's listener certificate, signed here by the cluster's kube CA. */
    kubeListenerCertificate?(names: string[]): Promise<{ cert: string; key: string }>;
  },
): void {
  const { backend, audit } = deps;
  const clock = deps.clock ?? systemClock;
  const refusedWrite = deps.refusedWrite ?? refusedProxyWrite;
  // Watch streams never end by themselves: a closing auth instance ends them, so its proxies move to
  // another instance at once and the close does not wait on them.
  const streams = new Set<() => void>();
  app.addHook('preClose', (done) => {
    for (const end of [...streams]) end();
    done();
  });
  void app.register(async (internal) => {
    // A new proxy joins with its join token, a joined one renews with a proof of its key: neither
    // carries a credential yet. Every other call must.
    const open = new Set([`${INTERNAL_PREFIX}/join`, `${INTERNAL_PREFIX}/credential`]);
    internal.addHook('onRequest', async (request) => {
      if (open.has(request.url)) return;
      request.clusterPeer = await requirePeer(deps.peers, request.headers);
    });

    internal.post<{ Body: { token?: unknown; public_key?: unknown } }>(`${INTERNAL_PREFIX}/join`, async (request) =>
      deps.identities.join(request.body ?? {}, request.ip),
    );
    internal.post<{ Body: { proof?: unknown } }>(`${INTERNAL_PREFIX}/credential`, async (request) =>
      deps.identities.renew(request.body?.proof),
    );

    // Each call is judged as the conditional write it amounts to (create: only if absent).
    const refuse = async (writer: ProxyWriter, conditions: Condition[], ops: Operation[]) => {
      const refused = await refusedWrite(backend, conditions, ops, writer);
      if (refused !== undefined) throw forbidden(`a proxy may not write ${refused.key}: ${refused.reason}`);
    };
    const calls: Record<string, (a: Args, w: ProxyWriter, peer: Peer) => Promise<unknown>> = {
      get: async (a, _w, peer) => {
        const item = await backend.get(readable(peer, str(a[0], 'key')));
        return item && asProxySees(item);
      },
      getRange: async (a, _w, peer) =>
        withoutHidden(
          await backend.getRange(
            readable(peer, str(a[0], 'prefix')),
            (a[1] ?? {}) as { limit?: number; startKey?: string },
          ),
          peer,
        ),
      async create(a, w) {
        const key = str(a[0], 'key');
        await refuse(w, [{ key, is: 'absent' }], [asPut(key, str(a[1], 'value'), a[2])]);
        return backend.create(key, a[1] as string, writeOpts(a[2]));
      },
      async put(a, w) {
        await refuse(w, [], [asPut(str(a[0], 'key'), str(a[1], 'value'), a[2])]);
        return backend.put(a[0] as string, a[1] as string, writeOpts(a[2]));
      },
      async update(a, w) {
        await refuse(w, [], [asPut(str(a[0], 'key'), str(a[1], 'value'), a[2])]);
        return backend.update(a[0] as string, a[1] as string, writeOpts(a[2]));
      },
      async compareAndSwap(a, w) {
        const key = str(a[0], 'key');
        await refuse(w, [{ key, revision: Number(a[1]) }], [asPut(key, str(a[2], 'value'), a[3])]);
        return backend.compareAndSwap(key, Number(a[1]), a[2] as string, writeOpts(a[3]));
      },
      async delete(a, w) {
        await refuse(w, [], [{ type: 'delete', key: str(a[0], 'key') }]);
        await backend.delete(a[0] as string);
        return null;
      },
      async deleteRange(a, w) {
        await refuse(w, [], [{ type: 'delete', key: str(a[0], 'prefix') }]);
        return backend.deleteRange(a[0] as string);
      },
      async atomicWrite(a, w) {
        const conditions = (a[0] ?? []) as Condition[];
        const ops = (a[1] ?? []) as Operation[];
        if (!Array.isArray(conditions) || !Array.isArray(ops))
          throw new GatehouseError('invalid_request', 'arrays expected');
        // A malformed write is the caller's 400, not the store's TypeError (a 500).
        for (const c of conditions) {
          str(c?.key, 'condition key');
          if ('is' in c ? c.is !== 'absent' && c.is !== 'present' : !Number.isSafeInteger(c.revision))
            throw new GatehouseError('invalid_request', 'a condition is {is: absent|present} or an integer revision');
        }
        for (const op of ops) {
          str(op?.key, 'operation key');
          if (op.type === 'put') str(op.value, 'operation value');
          else if (op.type !== 'delete')
            throw new GatehouseError('invalid_request', 'an operation is a put or a delete');
        }
        await refuse(w, conditions, ops);
        return backend.atomicWrite(conditions, ops);
      },
      async ping() {
        await backend.ping();
        return null;
      },
    };

    internal.post<{ Params: { op: string }; Body: { args?: Args } }>(
      `${INTERNAL_PREFIX}/backend/:op`,
      { bodyLimit: INTERNAL_BODY_LIMIT },
      async (request, reply: FastifyReply) => {
        const call = Object.hasOwn(calls, request.params.op) ? calls[request.params.op] : undefined;
        if (!call) throw new GatehouseError('not_found', `no backend call ${request.params.op}`);
        try {
          const peer = peerOf(request);
          const args = Array.isArray(request.body?.args) ? request.body.args : [];
          const result = await call(args, writerOf(peer, clock()), peer);
          return { result: result ?? null };
        } catch (error) {
          if (error instanceof BackendError)
            return reply.code(409).send({ backend_error: error.reason, key: error.key });
          throw error;
        }
      },
    );

    // NDJSON: {initial, revision} once, then {events, revision} per change, {heartbeat} when idle.
    internal.get<{ Querystring: { prefix?: string | string[] } }>(
      `${INTERNAL_PREFIX}/backend/watch`,
      async (request, reply) => {
        const q = request.query.prefix;
        const prefixes = q === undefined ? [''] : Array.isArray(q) ? q : [q];
        const peer = peerOf(request);
        // A prefix that is all hidden is refused; the rest are streamed without what is hidden in them.
        for (const p of prefixes) if (p !== '') readable(peer, p);
        const visible = <T extends Item | WatchEvent>(items: T[]) => withoutHidden(items, peer);
        const raw = reply.raw;
        let watcher: Awaited<ReturnType<Backend['watch']>> | undefined;
        const pending: string[] = [];
        const send = (line: unknown) => {
          if (!raw.writableEnded) raw.write(`${JSON.stringify(line)}\n`);
        };
        watcher = await backend.watch(prefixes, (events: WatchEvent[], revision: number) => {
          if (watcher) send({ events: visible(events), revision });
          else pending.push(JSON.stringify({ events: visible(events), revision }));
        });
        // The proxy may have gone while the snapshot was taken: nothing to stream to.
        if (request.raw.destroyed) {
          watcher.stop();
          reply.hijack();
          return;
        }
        reply.hijack();
        raw.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
        send({ initial: visible(watcher.initial), revision: watcher.revision });
        for (const line of pending.splice(0)) raw.write(`${line}\n`);
        // A removed identity's stream ends as soon as this instance's cache sees the removal (its other
        // calls are refused at once): reconnecting, the proxy is refused and learns it was removed.
        const beat = setInterval(() => {
          if (peer.identity !== undefined && !deps.identities.exists(peer.identity)) end();
          else send({ heartbeat: Date.now() });
        }, WATCH_HEARTBEAT_MS);
        const unwatch =
          peer.identity === undefined
            ? undefined
            : deps.identities.onRemoved?.((id) => {
                if (id === peer.identity) end();
              });
        const end = () => {
          unwatch?.();
          clearInterval(beat);
          watcher?.stop();
          streams.delete(end);
          if (!raw.writableEnded) raw.end();
        };
        streams.add(end);
        raw.on('close', end);
        request.raw.on('close', end);
      },
    );

    // Only the types proxies record, stamped here: auth's time, the announced instance (proxy-events.ts).
    internal.post<{ Body: { events?: unknown[] } }>(
      `${INTERNAL_PREFIX}/audit/events`,
      { bodyLimit: INTERNAL_BODY_LIMIT },
      async (request, reply) => {
        const events = request.body?.events;
        if (!Array.isArray(events)) throw new GatehouseError('invalid_request', 'events must be an array');
        const { instance } = peerOf(request);
        await audit.append(await acceptProxyEvents(events, { backend, clock, instance }));
        return reply.code(204).send();
      },
    );

    // A session's upstream credential: only after auth has resolved the principal again and the access
    // checker allowed it, only for a session the calling proxy brokers, and recorded (no secret).
    internal.post<{ Body: CredentialRequest }>(`${INTERNAL_PREFIX}/credentials`, async (request) => {
      const peer = peerOf(request);
      const kind = request.body?.kind;
      if (kind !== 'ssh' && kind !== 'db' && kind !== 'kube' && kind !== 'mcp')
        throw new GatehouseError('invalid_request', 'kind is ssh, db, kube or mcp');
      const caller = {
        ...(peer.identity !== undefined && { identity: peer.identity }),
        ...(peer.instance !== undefined && { instance: peer.instance }),
      };
      if (!deps.credentials) throw new GatehouseError('unavailable', 'this auth instance issues no credentials');
      return { result: (await deps.credentials.issue(caller, request.body)) ?? null };
    });
    internal.post<{ Body: { names?: unknown } }>(`${INTERNAL_PREFIX}/kube/listener-certificate`, async (request) => {
      const names = request.body?.names;
      if (!Array.isArray(names) || names.length === 0 || names.length > 8 || !names.every((n) => typeof n === 'string'))
        throw new GatehouseError('invalid_request', 'names: the host names the listener answers for (1–8)');
      if (!deps.kubeListenerCertificate) throw new GatehouseError('unavailable', 'this auth instance signs nothing');
      return deps.kubeListenerCertificate(names as string[]);
    });

    internal.get(`${INTERNAL_PREFIX}/audit/ping`, async (_request, reply) => {
      await audit.ping();
      return reply.code(204).send();
    });
  });
}
