// Each proxy its own identity (issue 29). An operator makes a join token (shown once, stored as its
// hash, expiring, bounded uses); a new proxy presents it once with the public half of a key pair it
// made, and is registered under an instance id of its own; from then on it proves possession of its
// key to renew a short-lived credential (proxy-credentials.ts). Removing the identity refuses its next
// call — every call is checked against this registry, not only the credential's signature — and ends
// the live sessions it brokers. Join tokens and identities live under cluster/, which proxies never
// read (proxy-reads.ts).
import { createHash } from 'node:crypto';
import type { JWK } from 'jose';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditActor } from '../audit/types.js';
import type { StateStore } from '../backend/state.js';
import { BackendError } from '../backend/types.js';
import { type Clock, isoTime } from '../lib/clock.js';
import { parseDuration } from '../lib/duration.js';
import { GatehouseError, invalidField, notFound } from '../lib/errors.js';
import { randomBytes } from '../lib/random.js';
import { type ProxyCredentials, proofHolds, proofSubject, publicEd25519Jwk } from './proxy-credentials.js';

export const clusterKeys = {
  joinTokens: 'cluster/join-tokens/',
  joinToken: (hash: string) => `cluster/join-tokens/${hash}`,
  instances: 'cluster/instances/',
  instance: (id: string) => `cluster/instances/${id}`,
};
/** A proxy identity: `prx_` and 16 hex digits. Its processes announce `<identity>-<8 hex>`. */
export const IDENTITY_ID = /^prx_[0-9a-f]{16}$/;
const MAX_TTL_MS = 7 * 24 * 3600_000;
const MIN_TTL_MS = 60_000;

/** Whether a process instance id (a session's, a lease's) belongs to this identity. */
export const ownedBy = (identity: string, instance: unknown): boolean =>
  typeof instance === 'string' && (instance === identity || instance.startsWith(`${identity}-`));

export interface JoinTokenRecord {
  id: string;
  role: 'proxy';
  created_at: string;
  expires_at: string;
  uses_left: number;
  created_by: AuditActor;
}
export interface InstanceRecord {
  id: string;
  role: 'proxy';
  public_key: JWK;
  joined_at: string;
  join_token_id: string;
}
/** Who asks, for the trail. */
export interface CallerContext {
  actor: AuditActor;
  remote_addr?: string;
  request_id?: string;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const refusedJoin = () =>
  new GatehouseError('invalid_credentials', 'the join token is unknown, expired or used up: make a new one');

export type ProxyIdentities = ReturnType<typeof createProxyIdentities>;

export function createProxyIdentities(deps: {
  state: StateStore;
  audit: AuditLog;
  clock: Clock;
  credentials: ProxyCredentials;
  /** Ends the live sessions whose instance this identity owns; answers how many. */
  endSessionsOf(identity: string, ctx: CallerContext): Promise<number>;
}) {
  const { state, audit, clock, credentials } = deps;
  const exists = (id: string) => IDENTITY_ID.test(id) && state.get(clusterKeys.instance(id)) !== undefined;

  /** One attempt at a join; compare_failed when another join used the token meanwhile. */
  async function joinOnce(key: string | undefined, publicKey: JWK, remoteAddr: string) {
    const item = key ? state.get<JoinTokenRecord>(key) : undefined;
    const now = clock();
    if (!key || !item || Date.parse(item.value.expires_at) <= now || item.value.uses_left < 1) {
      const refused = { type: 'cluster.join_token.refused', actor: { kind: 'anonymous' }, success: false } as const;
      await audit.record({ ...refused, remote_addr: remoteAddr });
      throw refusedJoin();
    }
    const instance: InstanceRecord = {
      id: `prx_${randomBytes(8).toString('hex')}`,
      role: item.value.role,
      public_key: publicKey,
      joined_at: isoTime(now),
      join_token_id: item.value.id,
    };
    const left = item.value.uses_left - 1;
    const expiresAt = Date.parse(item.value.expires_at);
    // One write: the use is counted (or the token gone) exactly when the identity exists.
    await state.write(
      [{ key, revision: item.revision }],
      [
        left > 0
          ? { type: 'put', key, value: JSON.stringify({ ...item.value, uses_left: left }), expiresAt }
          : { type: 'delete', key },
        { type: 'put', key: clusterKeys.instance(instance.id), value: JSON.stringify(instance) },
      ],
    );
    await audit.record({
      type: 'cluster.join_token.used',
      actor: { kind: 'system', name: instance.id },
      target: { kind: 'join_token', id: item.value.id },
      remote_addr: remoteAddr,
      data: { instance: instance.id, role: instance.role, uses_left: left },
    });
    return { instance: instance.id, ...(await credentials.issue(instance.id)) };
  }

  return {
    async createJoinToken(ctx: CallerContext, input: { role: 'proxy'; ttl?: string; uses?: number }) {
      const ttlMs = parseDuration(input.ttl ?? '1h');
      if (ttlMs === undefined || ttlMs < MIN_TTL_MS || ttlMs > MAX_TTL_MS)
        throw invalidField('/ttl', 'a duration between 1m and 7d (e.g. 30m, 1h)');
      const uses = input.uses ?? 1;
      const now = clock();
      const token = `gjt_${randomBytes(32).toString('hex')}`;
      const record: JoinTokenRecord = {
        id: `jtok_${randomBytes(8).toString('hex')}`,
        role: input.role,
        created_at: isoTime(now),
        expires_at: isoTime(now + ttlMs),
        uses_left: uses,
        created_by: ctx.actor,
      };
      await state.insert(clusterKeys.joinToken(sha256(token)), record, { expiresAt: now + ttlMs });
      await audit.record({
        type: 'cluster.join_token.created',
        ...ctx,
        target: { kind: 'join_token', id: record.id },
        data: { role: record.role, expires_at: record.expires_at, uses },
      });
      return { id: record.id, token, role: record.role, expires_at: record.expires_at, uses };
    },

    /** A new proxy: the join token, once, and its public key; answers its identity and first credential. */
    async join(input: { token?: unknown; public_key?: unknown }, remoteAddr: string) {
      const publicKey = publicEd25519Jwk(input.public_key);
      if (!publicKey) throw new GatehouseError('invalid_request', 'public_key is an Ed25519 public JWK');
      const key = typeof input.token === 'string' ? clusterKeys.joinToken(sha256(input.token)) : undefined;
      // Proxies joining with one token at the same moment: the loser of a use reads the count again.
      for (let attempt = 0; ; attempt++) {
        try {
          return await joinOnce(key, publicKey, remoteAddr);
        } catch (error) {
          if (!(error instanceof BackendError && error.reason === 'compare_failed') || attempt >= 4) throw error;
        }
      }
    },

    /** A joined proxy proves it still holds its key: a fresh credential, if its identity still exists. */
    async renew(proof: unknown) {
      const sub = typeof proof === 'string' ? proofSubject(proof) : undefined;
      const record = sub && exists(sub) ? state.get<InstanceRecord>(clusterKeys.instance(sub))?.value : undefined;
      if (!sub || !record || !(await proofHolds(proof as string, record.public_key, sub, clock)))
        throw new GatehouseError('invalid_credentials', 'no such proxy identity, or the proof is not its key’s');
      return { instance: sub, ...(await credentials.issue(sub)) };
    },

    /** Whether this identity is registered (a removed one is not). */
    exists,

    /** Told of each identity removed, as this instance's cache sees it (from any auth instance). */
    onRemoved(listener: (id: string) => void): () => void {
      return state.cache.onChange((key, item) => {
        if (item === undefined && key.startsWith(clusterKeys.instances))
          listener(key.slice(clusterKeys.instances.length));
      });
    },

    /** The identity a credential proves, while it exists; undefined otherwise. */
    async identityOf(credential: string): Promise<string | undefined> {
      const id = await credentials.verify(credential);
      return id !== undefined && exists(id) ? id : undefined;
    },

    list() {
      return state
        .list<InstanceRecord>(clusterKeys.instances)
        .map(({ value: v }) => ({ id: v.id, role: v.role, joined_at: v.joined_at, join_token_id: v.join_token_id }));
    },

    async remove(ctx: CallerContext, id: string) {
      const item = IDENTITY_ID.test(id) ? state.get<InstanceRecord>(clusterKeys.instance(id)) : undefined;
      if (!item) throw notFound('instance', id);
      await state.remove(clusterKeys.instance(id), { revision: item.revision });
      const ended = await deps.endSessionsOf(id, ctx);
      await audit.record({
        type: 'cluster.instance.removed',
        ...ctx,
        target: { kind: 'instance', id },
        data: { sessions_ended: ended },
      });
    },
  };
}
