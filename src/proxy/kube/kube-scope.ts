// Whether a kind of an API group is cluster-scoped, learned from the API server's discovery document
// for its group version (`/apis/{group}/{version}`, each resource's `namespaced`). kube_resources
// govern namespaced kinds (and namespaces); cluster-scoped kinds are the cluster's RBAC's, and the
// built-in ones are known by name (src/rbac/kube-resources.ts), but a custom kind's scope is only the
// cluster's to say. Documents are fetched with Gatehouse's own credential (discovery is the same for
// every caller), cached per upstream for a bounded time, and a lookup that fails leaves the kind
// governed: an unknown scope never loosens the rules.
import { request } from 'node:https';
import { isIP } from 'node:net';
import type { Clock } from '../../lib/clock.js';
import type { KubeUpstream } from '../../resources/kube-upstream.js';
import type { KubeRequestInfo } from './kube-request.js';
import { agentFor } from './kube-upstream-request.js';

/** How long a group version's document is trusted; a CRD's scope is fixed once it is created. */
export const SCOPE_TTL_MS = 5 * 60_000;
/** A kind the document did not list (a CRD created since), or a failed fetch, is asked again after this. */
const RETRY_MS = 5_000;
/** Group versions remembered per upstream: clients choose the paths, so the memory is bounded. */
const MAX_ENTRIES = 256;
const FETCH_TIMEOUT_MS = 5_000;
// The fetch carries Gatehouse's credential, and the group and version come from the client's path
// (decoded): only a DNS-style group and a plain version ever make the path of a discovery fetch.
const GROUP = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;
const VERSION = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_DOCUMENT_BYTES = 4 << 20;

interface Entry {
  at: number;
  /** resource → namespaced; undefined when the fetch failed. */
  namespaced?: Map<string, boolean>;
  pending?: Promise<void>;
}

/** GETs one discovery document as Gatehouse; resolves undefined on any failure. */
function fetchResourceList(upstream: KubeUpstream, groupVersion: string): Promise<Map<string, boolean> | undefined> {
  const base = new URL(upstream.url);
  const host = base.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const req = request(
      {
        host,
        port: base.port || 443,
        path: `${base.pathname.replace(/\/$/, '')}/apis/${groupVersion}`,
        headers: {
          accept: 'application/json',
          ...(upstream.token ? { authorization: `Bearer ${upstream.token}` } : {}),
        },
        agent: agentFor(upstream),
        timeout: FETCH_TIMEOUT_MS,
        ...(isIP(host) ? {} : { servername: host }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_DOCUMENT_BYTES) req.destroy();
          else chunks.push(c);
        });
        res.on('error', () => resolve(undefined));
        res.on('end', () => {
          if (res.statusCode !== 200) return resolve(undefined);
          try {
            const doc = JSON.parse(Buffer.concat(chunks).toString()) as {
              resources?: Array<{ name?: unknown; namespaced?: unknown }>;
            };
            const scopes = new Map<string, boolean>();
            for (const r of doc.resources ?? []) {
              if (typeof r.name === 'string' && typeof r.namespaced === 'boolean' && !r.name.includes('/'))
                scopes.set(r.name, r.namespaced);
            }
            resolve(scopes);
          } catch {
            resolve(undefined);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

export type KubeScopes = ReturnType<typeof createKubeScopes>;

export function createKubeScopes(deps: { clock: Clock; fetch?: typeof fetchResourceList }) {
  const fetchDocument = deps.fetch ?? fetchResourceList;
  // Keyed by the upstream object: a cluster given a new address or credential starts afresh.
  const byUpstream = new WeakMap<KubeUpstream, Map<string, Entry>>();

  function refresh(entries: Map<string, Entry>, upstream: KubeUpstream, groupVersion: string): Promise<void> {
    const entry = entries.get(groupVersion) ?? { at: 0 };
    if (entry.pending) return entry.pending;
    entry.pending = fetchDocument(upstream, groupVersion).then((namespaced) => {
      entries.delete(groupVersion);
      entries.set(groupVersion, { at: deps.clock(), ...(namespaced ? { namespaced } : {}) });
      while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
    });
    entries.set(groupVersion, entry);
    return entry.pending;
  }

  return {
    /** True when the API server says this request's kind is cluster-scoped (custom kinds in /apis). */
    async clusterScoped(upstream: KubeUpstream, info: KubeRequestInfo): Promise<boolean> {
      // A namespace in the path is the answer already; the core group's kinds are all known by name.
      if (info.discovery || info.namespace || !info.apiGroup || !info.apiVersion || !info.resource) return false;
      if (!GROUP.test(info.apiGroup) || !VERSION.test(info.apiVersion)) return false;
      const groupVersion = `${info.apiGroup}/${info.apiVersion}`;
      let entries = byUpstream.get(upstream);
      if (!entries) {
        entries = new Map();
        byUpstream.set(upstream, entries);
      }
      const now = deps.clock();
      let entry = entries.get(groupVersion);
      const known = entry?.namespaced?.has(info.resource);
      const age = entry ? now - entry.at : Number.POSITIVE_INFINITY;
      if (!entry || age > SCOPE_TTL_MS || (!known && age > RETRY_MS)) {
        await refresh(entries, upstream, groupVersion);
        entry = entries.get(groupVersion);
      }
      return entry?.namespaced?.get(info.resource) === false;
    },
  };
}
