// If-Match is atomic with the write, on the embedded store and on etcd: the service compares it with
// the record it read, then writes with a compare-and-set on that record's revision. Here another
// write lands in the one place a request waits between the two (the coverage check, an await), so a
// service that checked If-Match and then wrote whatever it read next would overwrite it. The change
// is refused (409: it lost the race) and the other write stands; the positive control applies.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { AuditLog } from '../src/audit/audit-log.js';
import { etagOf } from '../src/auth/preconditions.js';
import type { RequestContext } from '../src/auth/principal.js';
import { createStateCache } from '../src/backend/cache.js';
import { openEtcdBackend } from '../src/backend/etcd.js';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import { createStateStore } from '../src/backend/state.js';
import type { Backend } from '../src/backend/types.js';
import { GatehouseError } from '../src/lib/errors.js';
import { createRoleService } from '../src/roles/role-service.js';
import { ETCD_BIN, type EtcdCluster, startEtcd } from './helpers/etcd.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-if-match-'));
const open: Array<{ close(): unknown }> = [];
let etcd: EtcdCluster | undefined;
after(async () => {
  for (const o of open.reverse()) await o.close();
  await etcd?.close();
  rmSync(dir, { recursive: true, force: true });
});

const STORES: Array<[string, () => Promise<Backend>]> = [
  ['the embedded store (SQLite)', async () => openSqliteBackend({ path: join(dir, 'state.db') })],
  [
    'etcd',
    async () => {
      etcd ??= await startEtcd(1);
      return openEtcdBackend({ hosts: etcd.members.map((m) => m.clientUrl), prefix: '/if-match/' });
    },
  ],
];

for (const [name, openBackend] of STORES) {
  test(`${name}: a change landing between the If-Match check and the write is not overwritten`, {
    skip: name === 'etcd' && !ETCD_BIN ? 'etcd is not installed' : false,
  }, async () => {
    const backend = await openBackend();
    open.push(backend);
    const cache = await createStateCache(backend);
    open.push(cache);
    const state = createStateStore(backend, cache);
    // Someone else's write, made once while the service awaits its coverage check.
    let meanwhile: (() => Promise<void>) | undefined;
    const roles = createRoleService({
      state,
      audit: { record: async () => {} } as unknown as AuditLog,
      clock: Date.now,
      covering: {
        require: async () => {
          const run = meanwhile;
          meanwhile = undefined;
          await run?.();
        },
      },
    });
    const ctx: RequestContext = { remoteAddr: '127.0.0.1', requestId: 'req_test' };
    const allow = { rules: [{ resources: ['events' as const], verbs: ['list' as const] }] };
    await roles.create(ctx, { name: 'race', description: 'first', allow });
    const read = roles.getItem('race');

    meanwhile = async () => {
      const now = roles.getItem('race');
      await state.replace(now.key, now.revision, { ...now.value, description: 'theirs' });
    };
    const mine = roles.replace({ ...ctx, ifMatch: [etagOf(read.revision)] }, 'race', {
      name: 'race',
      description: 'mine',
      allow,
    });
    await assert.rejects(mine, (e: unknown) => e instanceof GatehouseError && e.status === 409);
    assert.equal(roles.get('race').description, 'theirs', 'their change stands');

    // Positive control: with the current ETag and nobody in between, the change applies.
    const current = roles.getItem('race');
    await roles.replace({ ...ctx, ifMatch: [etagOf(current.revision)] }, 'race', {
      name: 'race',
      description: 'mine',
      allow,
    });
    assert.equal(roles.get('race').description, 'mine');
    assert.notEqual(etagOf(roles.getItem('race').revision), etagOf(current.revision));
  });
}
