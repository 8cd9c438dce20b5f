// SSH public keys of users and agents, for the SSH proxy to know who connects. A key (its wire-format
// blob) identifies exactly one principal: an index key on its digest makes a second registration a
// 409, and lets the proxy find the owner with one cache lookup. Only fingerprints reach events.

import type { ServiceDeps } from '../audit/service-deps.js';
import type { Covering } from '../auth/covering.js';
import { actorOf, eventContext, type RequestContext } from '../auth/principal.js';
import {
  type AgentRecord,
  type CreatorRef,
  creatorOf,
  keys,
  type PrincipalKind,
  type PrincipalRef,
  prefixes,
  type UserRecord,
} from '../auth/records.js';
import { translateConflicts } from '../backend/conflicts.js';
import type { StateStore } from '../backend/state.js';
import type { Operation } from '../backend/types.js';
import { isoTime } from '../lib/clock.js';
import { conflict, found, notFound } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { pageOfRecords } from '../lib/paging.js';
import { blobDigest, parsePublicKeyLine, type SshKeyType } from './ssh-public-key.js';

export interface SshKeyRecord {
  id: string;
  principal: PrincipalRef;
  type: SshKeyType;
  fingerprint: string;
  /** "<type> <base64>" (no comment). */
  public_key: string;
  comment: string;
  name: string | null;
  created_at: string;
  /** Absent on keys registered before creators were recorded. */
  created_by?: CreatorRef;
}

export const toSshKeyResponse = (k: SshKeyRecord) => ({
  id: k.id,
  principal: { kind: k.principal.kind, id: k.principal.id },
  type: k.type,
  fingerprint: k.fingerprint,
  comment: k.comment,
  name: k.name,
  created_at: k.created_at,
  created_by: k.created_by ?? null,
});

/** The index key of a record's blob (the record keeps the key as "<type> <base64>"). */
const blobKeyOf = (k: SshKeyRecord) =>
  keys.sshKeyBlob(blobDigest(Buffer.from(k.public_key.split(' ')[1] ?? '', 'base64')));

const keysOf = (state: Pick<StateStore, 'list'>, principalId: string) =>
  state.list<SshKeyRecord>(prefixes.sshKeys).filter((k) => k.value.principal.id === principalId);

/** The operations that remove one SSH key and its blob index. */
export const sshKeyDeleteOps = (k: { key: string; value: SshKeyRecord }): Operation[] => [
  { type: 'delete', key: k.key },
  { type: 'delete', key: blobKeyOf(k.value) },
];

/** The operations that remove every SSH key of a principal, for a write that deletes or revokes it. */
export function sshKeyRemovalOps(state: Pick<StateStore, 'list'>, principalId: string): Operation[] {
  return keysOf(state, principalId).flatMap(sshKeyDeleteOps);
}

const EVENTS = {
  user: { added: 'user.ssh_key.added', deleted: 'user.ssh_key.deleted' },
  agent: { added: 'agent.ssh_key.added', deleted: 'agent.ssh_key.deleted' },
} as const;

export type SshKeyService = ReturnType<typeof createSshKeyService>;

export function createSshKeyService(
  deps: ServiceDeps & {
    /** A key logs in as its principal: only someone who covers that principal may attach or remove one. */
    covering: Pick<Covering, 'requirePrincipal'>;
  },
) {
  const { state, audit, clock } = deps;

  const principalKey = (p: PrincipalRef) => (p.kind === 'user' ? keys.user(p.id) : keys.agent(p.id));

  const findPrincipal = (p: PrincipalRef): UserRecord | AgentRecord =>
    found(state.get<UserRecord | AgentRecord>(principalKey(p))?.value, p.kind, p.id);

  const target = (p: PrincipalRef, name: string) => ({ kind: p.kind, id: p.id, name });

  return {
    list(principal: PrincipalRef, q: { page: number; per_page: number }) {
      findPrincipal(principal);
      const { items, pagination } = pageOfRecords(keysOf(state, principal.id), q);
      return { ssh_keys: items.map(toSshKeyResponse), pagination };
    },

    async add(ctx: RequestContext, principal: PrincipalRef, input: { public_key: string; name?: string }) {
      const owner = findPrincipal(principal);
      if (principal.kind === 'agent' && (owner as AgentRecord).status === 'revoked') {
        throw conflict(`agent ${principal.id} is revoked; a revoked agent cannot get SSH keys`);
      }
      await deps.covering.requirePrincipal(ctx, principal, `register an SSH key for ${principal.kind} ${owner.name}`);
      const key = parsePublicKeyLine(input.public_key, '/body/public_key');
      const now = clock();
      const record: SshKeyRecord = {
        id: newId('sshKey', now),
        principal: { kind: principal.kind, id: principal.id },
        type: key.type,
        fingerprint: key.fingerprint,
        public_key: key.line,
        comment: key.comment,
        name: input.name ?? null,
        created_at: isoTime(now),
        created_by: creatorOf(ctx),
      };
      const ownerKey = principalKey(principal);
      const blobKey = keys.sshKeyBlob(blobDigest(key.blob));
      await translateConflicts(
        () =>
          state.write(
            [
              { key: ownerKey, is: 'present' },
              { key: keys.sshKey(record.id), is: 'absent' },
              { key: blobKey, is: 'absent' },
            ],
            [
              { type: 'put', key: keys.sshKey(record.id), value: JSON.stringify(record) },
              { type: 'put', key: blobKey, value: JSON.stringify({ ref: keys.sshKey(record.id) }) },
            ],
          ),
        {
          [ownerKey]: `${principal.kind} ${principal.id} no longer exists`,
          [blobKey]: `this SSH key (${key.fingerprint}) is already registered; a key identifies exactly one principal`,
        },
      );
      await audit.record({
        type: EVENTS[principal.kind].added,
        actor: actorOf(ctx),
        target: target(principal, owner.name),
        ...eventContext(ctx),
        data: { ssh_key_id: record.id, fingerprint: record.fingerprint, key_type: record.type, name: record.name },
      });
      return toSshKeyResponse(record);
    },

    async remove(ctx: RequestContext, principal: PrincipalRef, keyId: string): Promise<void> {
      const owner = findPrincipal(principal);
      const item = state.get<SshKeyRecord>(keys.sshKey(keyId));
      if (!item || item.value.principal.kind !== principal.kind || item.value.principal.id !== principal.id) {
        throw notFound('SSH key', keyId);
      }
      await deps.covering.requirePrincipal(ctx, principal, `remove an SSH key of ${principal.kind} ${owner.name}`);
      await translateConflicts(() =>
        state.remove(item.key, { revision: item.revision, indexKeys: [blobKeyOf(item.value)] }),
      );
      await audit.record({
        type: EVENTS[principal.kind].deleted,
        actor: actorOf(ctx),
        target: target(principal, owner.name),
        ...eventContext(ctx),
        data: { ssh_key_id: keyId, fingerprint: item.value.fingerprint },
      });
    },

    /**
     * Who holds this key (the wire-format blob an SSH client offers), from the cache, synchronously.
     * The caller still checks that the principal is active and allowed.
     */
    findPrincipalByKey(keyBlob: Buffer): { kind: PrincipalKind; id: string; keyId: string } | undefined {
      const ref = state.get<{ ref: string }>(keys.sshKeyBlob(blobDigest(keyBlob)))?.value.ref;
      const record = ref ? state.get<SshKeyRecord>(ref)?.value : undefined;
      if (!record) return undefined;
      return { kind: record.principal.kind, id: record.principal.id, keyId: record.id };
    },
  };
}
