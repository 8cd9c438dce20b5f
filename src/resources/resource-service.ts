// Protected resources (databases, servers, apps). Everyone sees only what their roles' selectors
// match; a resource you may not see does not exist for you (404). Each server gets its own upstream
// SSH key pair at registration (the private half sealed under secrets/, never answered) and a pinned
// host key, registered with it or taken on the proxy's first connection.

import { X509Certificate } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { checkRewrite } from '../apps/app-rewrite.js';
import type { ServiceDeps } from '../audit/service-deps.js';
import type { Covering } from '../auth/covering.js';
import { unlessChanged } from '../auth/preconditions.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import { keys, prefixes } from '../auth/records.js';
import { heldFoldedKey, nameConflicts } from '../auth/unique-names.js';
import { translateConflicts } from '../backend/conflicts.js';
import { BackendError, type Condition, type Operation } from '../backend/types.js';
import { isoTime } from '../lib/clock.js';
import { invalidField, notFound } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { page, parseLabelFilter } from '../lib/paging.js';
import type { SecretBox } from '../lib/secret-box.js';
import { generateEd25519 } from '../lib/ssh-keygen.js';
import { type McpSecret, openMcpUpstream, sealMcpUpstream } from '../mcp/mcp-upstream.js';
import { globMatch } from '../rbac/glob.js';
import { parsePublicKeyBlob, parsePublicKeyLine } from '../ssh-keys/ssh-public-key.js';
import { type DbSecret, type DbUpstream, openDbReadOnly, openDbUpstream, sealDbUpstream } from './db-upstream.js';
import {
  checkAddress,
  type KubeSecret,
  type KubeUpstream,
  openKubeUpstream,
  sealKubeUpstream,
} from './kube-upstream.js';
import type {
  Resource,
  ResourceInput as ResourceInputSchema,
  ResourcePatch as ResourcePatchSchema,
} from './resource-shapes.js';
import { requireCredentialsWithMove } from './upstream-move.js';

export type ResourceResponse = Static<typeof Resource>;
export type ResourceInput = Static<typeof ResourceInputSchema>;
export type ResourcePatch = Static<typeof ResourcePatchSchema>;
export type ProtectedKind = ResourceResponse['kind'];

/** A server's pinned SSH host key. */
export interface HostKeyPin {
  /** "<type> <base64>" */
  key: string;
  fingerprint: string;
  pinned: 'registered' | 'first_use';
  pinned_at: string;
}

export interface ResourceRecord {
  id: string;
  kind: ProtectedKind;
  name: string;
  description: string;
  labels: Record<string, string>;
  address?: string;
  protocol?: ResourceResponse['protocol'];
  uri?: string;
  /** Servers: the OpenSSH public line of the upstream key pair (absent on servers registered before). */
  ssh_public_key?: string;
  ssh_host_key?: HostKeyPin;
  /** kube_cluster: which upstream credential is sealed (kube-upstream.ts), never the secret. */
  kube?: ResourceResponse['kube'];
  /** database: which upstream credentials are sealed (db-upstream.ts), never a secret. */
  db?: ResourceResponse['db'];
  /** app: its public host, upstream CA and Host header (src/apps/). */
  app?: ResourceResponse['app'];
  /** protocol mcp: which upstream credential is sealed (src/mcp/mcp-upstream.ts), never its value. */
  mcp?: ResourceResponse['mcp'];
  created_at: string;
  updated_at: string;
}

/** A server's upstream private key, sealed with the data dir's key and bound to the server id. */
interface ServerSecret {
  private_sealed: string;
  created_at: string;
}

const ID_KIND = { database: 'database', server: 'server', app: 'app', kube_cluster: 'kubeCluster' } as const;
const sealContext = (serverId: string) => `server-upstream-key:${serverId}`;

/**
 * The record as the API answers it; `publicUrlOf` gives an app's public_url (src/apps/ knows the
 * apps domain), absent where nobody serves apps.
 */
export function toResourceResponse(
  r: ResourceRecord,
  publicUrlOf?: (r: ResourceRecord) => string | undefined,
): ResourceResponse {
  const publicUrl = r.kind === 'app' ? publicUrlOf?.(r) : undefined;
  const response: ResourceResponse = {
    id: r.id,
    kind: r.kind,
    name: r.name,
    description: r.description,
    labels: r.labels,
    ...(r.address !== undefined ? { address: r.address } : {}),
    ...(r.protocol !== undefined ? { protocol: r.protocol } : {}),
    ...(r.uri !== undefined ? { uri: r.uri } : {}),
    ...(r.kube !== undefined ? { kube: r.kube } : {}),
    ...(r.db !== undefined ? { db: r.db } : {}),
    ...(r.app !== undefined ? { app: r.app } : {}),
    ...(publicUrl !== undefined ? { public_url: publicUrl } : {}),
    ...(r.mcp !== undefined ? { mcp: r.mcp } : {}),
    ...(publicUrl !== undefined && r.protocol === 'mcp' ? { mcp_url: mcpUrlOf(publicUrl, r) } : {}),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
  if (r.kind !== 'server') return response;
  return {
    ...response,
    ssh_public_key: r.ssh_public_key ?? null,
    ssh_host_key_fingerprint: r.ssh_host_key?.fingerprint ?? null,
    ssh_host_key_pinned: r.ssh_host_key?.pinned ?? null,
  };
}

/** An MCP server's endpoint on its app host: the public URL with the path of its uri (docs/mcp.md). */
export const mcpUrlOf = (publicUrl: string, r: Pick<ResourceRecord, 'uri'>): string =>
  new URL(new URL(r.uri ?? '/', 'http://x').pathname, publicUrl).href;

/** Which fields each kind takes; anything else is refused with its path. */
const FIELDS: Record<ProtectedKind, { required: Array<keyof ResourceInput>; forbidden: Array<keyof ResourceInput> }> = {
  database: { required: ['address', 'protocol'], forbidden: ['uri', 'ssh_host_key', 'kube', 'app', 'mcp'] },
  server: { required: ['address'], forbidden: ['protocol', 'uri', 'kube', 'db', 'app', 'mcp'] },
  app: { required: ['uri'], forbidden: ['address', 'ssh_host_key', 'kube', 'db'] },
  kube_cluster: { required: ['address', 'kube'], forbidden: ['protocol', 'uri', 'ssh_host_key', 'db', 'app', 'mcp'] },
};

/** An app's protocol is mcp or none; a database's is never mcp; the mcp credential needs protocol mcp. */
function checkProtocol(kind: ProtectedKind, protocol: ResourceInput['protocol'], mcp: unknown): void {
  if (kind === 'app' && protocol !== undefined && protocol !== 'mcp')
    throw invalidField('/body/protocol', 'an app takes protocol mcp (an MCP server) or none');
  if (kind === 'database' && protocol === 'mcp') throw invalidField('/body/protocol', 'mcp is an app protocol');
  if (mcp !== undefined && protocol !== 'mcp') throw invalidField('/body/mcp', 'applies to an app with protocol mcp');
}

/** An app's upstream CA must be a certificate Node can use, said at registration rather than on first use. */
function checkCertificate(pem: string, path: string): void {
  try {
    new X509Certificate(pem);
  } catch {
    throw invalidField(path, 'is not a PEM certificate');
  }
}

export type ResourceService = ReturnType<typeof createResourceService>;

const PROXY: RequestContext = { system: 'ssh-proxy', remoteAddr: '', requestId: '' };

export function createResourceService(
  deps: ServiceDeps & {
    /** Seals servers' upstream private keys (the data dir's key, as for webhook secrets). */
    box: Pick<SecretBox, 'seal' | 'open'>;
    covering: Pick<Covering, 'requireSees'>;
  },
) {
  const { state, audit, clock, box } = deps;
  const visible = (p: Principal | undefined, r: ResourceRecord) => p?.policy.canSee(r);

  function findVisible(ctx: RequestContext, id: string) {
    const item = state.get<ResourceRecord>(keys.resource(id));
    if (!item || !visible(ctx.principal, item.value)) throw notFound('resource', id);
    return item;
  }

  return {
    list(
      ctx: RequestContext,
      q: { page: number; per_page: number; kind?: ProtectedKind; name?: string; label?: string[]; search?: string },
    ) {
      const labels = parseLabelFilter(q.label);
      const search = q.search?.toLowerCase();
      const found = (r: ResourceRecord) =>
        [r.name, r.description, r.address ?? '', r.uri ?? '', ...Object.entries(r.labels).map(([k, v]) => `${k}=${v}`)]
          .join('\n')
          .toLowerCase()
          .includes(search as string);
      const all = state
        .list<ResourceRecord>(prefixes.resources)
        .map((i) => i.value)
        .filter(
          (r) =>
            (q.kind === undefined || r.kind === q.kind) &&
            (q.name === undefined || r.name === q.name) &&
            labels.every(([k, v]) => r.labels[k] !== undefined && globMatch(v, r.labels[k] as string)) &&
            (search === undefined || found(r)) &&
            visible(ctx.principal, r),
        );
      return page(all, q);
    },

    get: (ctx: RequestContext, id: string) => findVisible(ctx, id).value,
    /** The stored resource with its revision (its ETag), if the caller may see it. */
    getItem: (ctx: RequestContext, id: string) => findVisible(ctx, id),

    async create(ctx: RequestContext, input: ResourceInput): Promise<ResourceRecord> {
      const rules = FIELDS[input.kind];
      for (const field of rules.required) {
        if (input[field] === undefined) throw invalidField(`/body/${field}`, `is required for a ${input.kind}`);
      }
      for (const field of rules.forbidden) {
        if (input[field] !== undefined) throw invalidField(`/body/${field}`, `does not apply to a ${input.kind}`);
      }
      if (input.address !== undefined) checkAddress(input.kind, input.address);
      if (input.app?.ca_pem !== undefined) checkCertificate(input.app.ca_pem, '/body/app/ca_pem');
      if (input.app?.rewrite) checkRewrite(input.app.rewrite.headers, '/body/app/rewrite/headers');
      checkProtocol(input.kind, input.protocol, input.mcp);
      await deps.covering.requireSees(
        ctx,
        { kind: input.kind, labels: input.labels ?? {} },
        { kind: input.kind, name: input.name },
        `register ${input.kind} ${input.name} with labels you could not see yourself`,
      );
      const hostKey =
        input.ssh_host_key !== undefined ? parsePublicKeyLine(input.ssh_host_key, '/body/ssh_host_key') : undefined;
      const now = clock();
      const { ssh_host_key: _given, kube: kubeInput, db: dbInput, mcp: mcpInput, ...fields } = input;
      const record: ResourceRecord = {
        ...fields,
        id: newId(ID_KIND[input.kind], now),
        description: input.description ?? '',
        labels: input.labels ?? {},
        created_at: isoTime(now),
        updated_at: isoTime(now),
      };
      const resourceKey = keys.resource(record.id);
      const index = {
        exact: keys.resourceName(record.kind, record.name),
        folded: keys.resourceFoldedName(record.kind, record.name),
      };
      const conditions: Condition[] = [
        { key: resourceKey, is: 'absent' },
        { key: index.exact, is: 'absent' },
        { key: index.folded, is: 'absent' },
      ];
      const operations: Operation[] = [
        { type: 'put', key: index.exact, value: JSON.stringify({ ref: resourceKey }) },
        { type: 'put', key: index.folded, value: JSON.stringify({ ref: resourceKey }) },
      ];
      if (record.kind === 'server') {
        const pair = generateEd25519(`gatehouse-${record.name}`);
        record.ssh_public_key = pair.public;
        if (hostKey) {
          record.ssh_host_key = {
            key: hostKey.line,
            fingerprint: hostKey.fingerprint,
            pinned: 'registered',
            pinned_at: record.created_at,
          };
        }
        const secret: ServerSecret = {
          private_sealed: box.seal(pair.private, sealContext(record.id)),
          created_at: record.created_at,
        };
        const secretKey = keys.serverSecret(record.id);
        conditions.push({ key: secretKey, is: 'absent' });
        operations.push({ type: 'put', key: secretKey, value: JSON.stringify(secret) });
      }
      if (record.kind === 'kube_cluster' && kubeInput) {
        const sealed = sealKubeUpstream(box, record.id, kubeInput);
        record.kube = sealed.summary;
        conditions.push({ key: keys.kubeSecret(record.id), is: 'absent' });
        operations.push({ type: 'put', key: keys.kubeSecret(record.id), value: JSON.stringify(sealed.secret) });
      }
      if (record.kind === 'database' && dbInput) {
        const sealed = sealDbUpstream(box, record.id, dbInput);
        record.db = sealed.summary;
        conditions.push({ key: keys.dbSecret(record.id), is: 'absent' });
        operations.push({ type: 'put', key: keys.dbSecret(record.id), value: JSON.stringify(sealed.secret) });
      }
      if (record.protocol === 'mcp') {
        const sealed = sealMcpUpstream(box, record.id, mcpInput ?? {});
        record.mcp = sealed.summary;
        conditions.push({ key: keys.mcpSecret(record.id), is: 'absent' });
        operations.push({ type: 'put', key: keys.mcpSecret(record.id), value: JSON.stringify(sealed.secret) });
      }
      operations.unshift({ type: 'put', key: resourceKey, value: JSON.stringify(record) });
      await translateConflicts(
        () => state.write(conditions, operations),
        nameConflicts(state, `a ${record.kind}`, record.name, index),
      );
      await audit.record({
        type: 'resource.created',
        actor: actorOf(ctx),
        target: { kind: record.kind, id: record.id, name: record.name },
        ...eventContext(ctx),
        data: {
          labels: record.labels,
          ...(record.ssh_host_key ? { ssh_host_key_fingerprint: record.ssh_host_key.fingerprint } : {}),
        },
      });
      return record;
    },

    /**
     * Changes description, labels or where the resource is. The result must stay visible to the
     * caller (as when registering), so nobody relabels a resource into selectors they do not hold,
     * and a new address must come with the upstream credentials again (upstream-move.ts).
     */
    async update(ctx: RequestContext, id: string, patch: ResourcePatch): Promise<ResourceRecord> {
      const item = findVisible(ctx, id);
      unlessChanged(ctx, item, `${item.value.kind} ${item.value.name}`);
      const r = item.value;
      for (const field of FIELDS[r.kind].forbidden) {
        if (field in patch) throw invalidField(`/body/${field}`, `does not apply to a ${r.kind}`);
      }
      if (patch.address !== undefined) checkAddress(r.kind, patch.address);
      if (patch.app?.ca_pem !== undefined) checkCertificate(patch.app.ca_pem, '/body/app/ca_pem');
      if (patch.app?.rewrite) checkRewrite(patch.app.rewrite.headers, '/body/app/rewrite/headers');
      if ('protocol' in patch || 'mcp' in patch) checkProtocol(r.kind, patch.protocol ?? r.protocol, patch.mcp);
      requireCredentialsWithMove(state, r, patch);
      const changed = (Object.keys(patch) as Array<keyof ResourcePatch>).filter(
        (f) => JSON.stringify(patch[f]) !== JSON.stringify(r[f]),
      );
      if (changed.length === 0) return r;
      // New upstream credentials (a database's, a cluster's) replace the old ones whole; the record
      // keeps only their summary.
      const { db: dbInput, kube: kubeInput, mcp: mcpInput, ...fields } = patch;
      const next: ResourceRecord = { ...r, ...fields, updated_at: isoTime(clock()) };
      const sealedDb = dbInput ? sealDbUpstream(box, r.id, dbInput) : undefined;
      const sealedKube = kubeInput ? sealKubeUpstream(box, r.id, kubeInput) : undefined;
      // An app becoming an MCP server gets an (empty) credential record, as one registered so.
      const sealedMcp =
        mcpInput || (next.protocol === 'mcp' && !r.mcp) ? sealMcpUpstream(box, r.id, mcpInput ?? {}) : undefined;
      if (sealedDb) next.db = sealedDb.summary;
      if (sealedKube) next.kube = sealedKube.summary;
      if (sealedMcp) next.mcp = sealedMcp.summary;
      const secretKey = sealedDb ? keys.dbSecret(r.id) : sealedMcp ? keys.mcpSecret(r.id) : keys.kubeSecret(r.id);
      const sealed = sealedDb ?? sealedMcp ?? sealedKube;
      await deps.covering.requireSees(
        ctx,
        { kind: r.kind, labels: next.labels },
        { kind: r.kind, name: r.name },
        `relabel ${r.kind} ${r.name} with labels you could not see yourself`,
      );
      await translateConflicts(() =>
        sealed
          ? state.write(
              [{ key: item.key, revision: item.revision }],
              [
                { type: 'put', key: item.key, value: JSON.stringify(next) },
                { type: 'put', key: secretKey, value: JSON.stringify(sealed.secret) },
              ],
            )
          : state.replace(item.key, item.revision, next),
      );
      await audit.record({
        type: 'resource.updated',
        actor: actorOf(ctx),
        target: { kind: r.kind, id: r.id, name: r.name },
        ...eventContext(ctx),
        data: { changed, ...(changed.includes('labels') ? { labels: next.labels } : {}) },
      });
      return next;
    },

    async remove(ctx: RequestContext, id: string): Promise<void> {
      const item = findVisible(ctx, id);
      unlessChanged(ctx, item, `${item.value.kind} ${item.value.name}`);
      const r = item.value;
      // The upstream key goes in the same write: no private key outlives its server.
      await translateConflicts(() =>
        state.remove(item.key, {
          revision: item.revision,
          indexKeys: [
            keys.resourceName(r.kind, r.name),
            ...heldFoldedKey(state, keys.resourceFoldedName(r.kind, r.name), item.key),
            ...(r.kind === 'server' ? [keys.serverSecret(r.id)] : []),
            ...(r.kind === 'kube_cluster' ? [keys.kubeSecret(r.id)] : []),
            ...(r.kind === 'database' && r.db ? [keys.dbSecret(r.id)] : []),
            ...(r.mcp ? [keys.mcpSecret(r.id)] : []),
          ],
        }),
      );
      await audit.record({
        type: 'resource.deleted',
        actor: actorOf(ctx),
        target: { kind: r.kind, id: r.id, name: r.name },
        ...eventContext(ctx),
      });
    },

    /** The headers the MCP gateway sends this MCP server (opened here only); none when it has no credential. */
    mcpUpstream(appId: string): Record<string, string> {
      const secret = state.get<McpSecret>(keys.mcpSecret(appId))?.value;
      return secret ? openMcpUpstream(box, appId, secret) : {};
    },

    /** The OpenSSH private key the proxy logs in to this server with; undefined if it has none. */
    upstreamKey(serverId: string): string | undefined {
      const secret = state.get<ServerSecret>(keys.serverSecret(serverId))?.value;
      return secret ? box.open(secret.private_sealed, sealContext(serverId)) : undefined;
    },

    /** A cluster's API server and the credential the Kubernetes proxy uses there (opened here only). */
    kubeUpstream(clusterId: string): KubeUpstream | undefined {
      const item = state.get<ResourceRecord>(keys.resource(clusterId));
      const secret = state.get<KubeSecret>(keys.kubeSecret(clusterId))?.value;
      if (item?.value.kind !== 'kube_cluster' || !item.value.address || !secret) return undefined;
      return openKubeUpstream(box, clusterId, secret, item.value.address);
    },

    /**
     * How the database proxy logs in to this database (opened here only): as `dbUser`, or for a
     * read-only session as the read-only login — undefined when none is registered, so that such a
     * session is refused rather than run as a user who may write.
     */
    dbUpstream(databaseId: string, dbUser: string, access: 'read_write' | 'read_only'): DbUpstream | undefined {
      const secret = state.get<DbSecret>(keys.dbSecret(databaseId))?.value;
      if (access === 'read_only') return secret ? openDbReadOnly(box, databaseId, secret) : undefined;
      return secret ? openDbUpstream(box, databaseId, secret, dbUser) : { user: dbUser };
    },

    /**
     * Checks the host key a server presented (wire-format blob) against its pin. With no pin yet the
     * key is pinned (first use, recorded as an event); afterwards it is a match or a mismatch, which
     * the proxy must treat as a refusal to connect.
     */
    async pinHostKey(
      serverId: string,
      keyBlob: Buffer,
      ctx: RequestContext = PROXY,
    ): Promise<'pinned' | 'match' | 'mismatch'> {
      for (let attempt = 0; ; attempt++) {
        const item = state.get<ResourceRecord>(keys.resource(serverId));
        if (item?.value.kind !== 'server') throw notFound('server', serverId);
        const pin = item.value.ssh_host_key;
        if (pin) return pin.key.split(' ')[1] === keyBlob.toString('base64') ? 'match' : 'mismatch';
        const presented = parsePublicKeyBlob(keyBlob);
        if (!presented) throw new Error('the host key presented is not an SSH public key');
        const now = isoTime(clock());
        const next: ResourceRecord = {
          ...item.value,
          ssh_host_key: {
            key: presented.line,
            fingerprint: presented.fingerprint,
            pinned: 'first_use',
            pinned_at: now,
          },
          updated_at: now,
        };
        try {
          await state.replace(item.key, item.revision, next);
        } catch (error) {
          // Another connection pinned (or the record changed) meanwhile: read it again and compare,
          // once this instance's cache has had time to receive it (a proxy's cache follows auth's
          // watch, a few milliseconds behind the store).
          if (error instanceof BackendError && attempt < 6) {
            await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
            continue;
          }
          throw error;
        }
        await audit.record({
          type: 'resource.host_key.pinned',
          actor: actorOf(ctx),
          target: { kind: 'server', id: serverId, name: next.name },
          ...eventContext(ctx),
          data: { fingerprint: presented.fingerprint, key_type: presented.type },
        });
        return 'pinned';
      }
    },

    /** Forgets a server's pinned host key (the server was rebuilt); the next connection pins anew. */
    async resetHostKey(ctx: RequestContext, serverId: string): Promise<void> {
      const item = findVisible(ctx, serverId);
      const r = item.value;
      if (r.kind !== 'server') throw notFound('server', serverId);
      const previous = r.ssh_host_key;
      if (!previous) return;
      const { ssh_host_key: _dropped, ...rest } = r;
      await translateConflicts(() => state.replace(item.key, item.revision, { ...rest, updated_at: isoTime(clock()) }));
      await audit.record({
        type: 'resource.host_key.reset',
        actor: actorOf(ctx),
        target: { kind: 'server', id: r.id, name: r.name },
        ...eventContext(ctx),
        data: { previous_fingerprint: previous.fingerprint, previous_pinned: previous.pinned },
      });
    },
  };
}
