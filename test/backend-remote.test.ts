// The state backend of a proxy-only instance (src/backend/remote.ts) against the auth tier's internal
// API (src/api/internal/internal.routes.ts) over real HTTP on loopback, the embedded SQLite backend
// behind it: the whole backend conformance suite through the hop (the proxy write policy set aside,
// since the suite writes keys of its own), then what only the hop has: a watch stream that breaks is
// reopened and the changes made meanwhile arrive; a silent stream is given up and reopened.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { internalRoutes } from '../src/api/internal/internal.routes.js';
import { installErrorHandler } from '../src/api/plugins/error-handler.js';
import type { AuditStore } from '../src/audit/types.js';
import { createRemoteBackend } from '../src/backend/remote.js';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import type { Backend, WatchEvent } from '../src/backend/types.js';
import { createPeerCheck } from '../src/cluster/cluster-peers.js';
import { CLUSTER_TOKEN_HEADER, createAuthPool } from '../src/net/auth-client.js';
import { runBackendConformance } from './conformance/backend-conformance.js';
import { tempDir } from './conformance/helpers.js';
import { until } from './helpers/until.js';

const TOKEN = 'remote-backend-test-token-0123456789abcdef';
const noAudit = { append: async () => {}, ping: async () => {} } as unknown as AuditStore;

async function serve(backend: Backend): Promise<{ app: FastifyInstance; host: string }> {
  const app = Fastify({ logger: false });
  installErrorHandler(app);
  // The transport alone: the shared token lets the test in (identities are test/cluster-join.test.ts's).
  const peers = createPeerCheck({ identityOf: async () => undefined, sharedToken: TOKEN });
  const identities = {
    join: async () => Promise.reject(new Error('no joins here')),
    renew: async () => Promise.reject(new Error('no renewals here')),
    exists: () => false,
  };
  internalRoutes(app, { backend, audit: noAudit, peers, identities, refusedWrite: async () => undefined });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, host: `127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

function remote(hosts: string[]) {
  const pool = createAuthPool(hosts, { tls: false });
  pool.authenticateWith(() => ({ [CLUSTER_TOKEN_HEADER]: TOKEN }));
  return createRemoteBackend(pool);
}

runBackendConformance('remote (through the auth tier)', async (opts = {}) => {
  const tmp = tempDir('backend-remote');
  const local = openSqliteBackend({ path: join(tmp.dir, 'state.db'), synchronous: 'NORMAL', ...opts });
  const { app, host } = await serve(local);
  const opened: Backend[] = [];
  const open = () => {
    const b = remote([host]);
    opened.push(b);
    return b;
  };
  return {
    backend: open(),
    reopen: async () => open(),
    async cleanup() {
      for (const b of opened) await b.close();
      await app.close();
      await local.close();
      tmp.remove();
    },
  };
});

describe('the remote watch across a broken stream', () => {
  test('an auth instance that drops the stream: the watch reopens on another and delivers what changed meanwhile', async () => {
    const tmp = tempDir('backend-remote-break');
    const local = openSqliteBackend({ path: join(tmp.dir, 'state.db'), synchronous: 'NORMAL' });
    // Two "auth instances" over one store, as a cluster's share etcd.
    const a = await serve(local);
    const b = await serve(local);
    const client = remote([a.host, b.host]);
    try {
      await local.put('w/kept', '1');
      await local.put('w/dropped', '1');
      const seen = new Map<string, string | undefined>();
      let revision = 0;
      const watcher = await client.watch(['w/'], (events: WatchEvent[], rev: number) => {
        for (const e of events)
          seen.set(e.type === 'put' ? e.item.key : e.key, e.type === 'put' ? e.item.value : undefined);
        revision = Math.max(revision, rev);
      });
      assert.deepEqual(watcher.initial.map((i) => i.key).sort(), ['w/dropped', 'w/kept']);
      const live = await local.put('w/live', 'x');
      await until('a live change arrives', async () => (revision >= live.revision ? true : undefined));
      // Both instances drop every connection; one is gone for good, the other comes back.
      await a.app.close();
      b.app.server.closeAllConnections();
      await local.delete('w/dropped');
      const changed = await local.put('w/kept', '2');
      await local.put('w/new', 'n');
      await until(
        'the missed changes',
        async () => (revision >= changed.revision && seen.has('w/new') ? true : undefined),
        10_000,
      );
      assert.equal(seen.get('w/kept'), '2');
      assert.ok(seen.has('w/dropped') && seen.get('w/dropped') === undefined, 'the delete made while away arrives');
      assert.equal(seen.get('w/new'), 'n');
      watcher.stop();
    } finally {
      await client.close();
      await b.app.close();
      await local.close();
      tmp.remove();
    }
  });

  test('a call whose connection is refused goes to the next instance; with none left it is 503 state_unavailable', async () => {
    const tmp = tempDir('backend-remote-down');
    const local = openSqliteBackend({ path: join(tmp.dir, 'state.db'), synchronous: 'NORMAL' });
    const up = await serve(local);
    const gone = await serve(local);
    const deadHost = gone.host;
    await gone.app.close();
    const client = remote([deadHost, up.host]);
    try {
      for (let i = 0; i < 4; i++) assert.equal((await client.put(`k/${i}`, 'v')).key, `k/${i}`, 'positive control');
      await up.app.close();
      await assert.rejects(client.get('k/0'), (e: unknown) => (e as { code?: string }).code === 'state_unavailable');
    } finally {
      await client.close();
      await local.close();
      tmp.remove();
    }
  });
});
