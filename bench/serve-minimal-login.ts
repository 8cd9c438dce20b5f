// The minimal durable login: the reference Gatehouse's POST /v1/auth/token is measured against
// (npm run bench). A bare Fastify route that does the work any durable API-key login must do, and
// nothing else:
//   - parse the JSON body; hash the presented key (SHA-256) and look it up in memory (Gatehouse's
//     lookup is a cache hit too);
//   - make two random tokens (access and refresh) and hash each for its row key;
//   - write the two token rows (same key shape, same JSON value, same table as the state store) and
//     the auth.token.issued event (same columns, same indexes, same JSON body as the audit store) in
//     ONE SQLite transaction, committed with the logins of the same event-loop turn (group commit);
//   - answer only once that transaction is durable: with synchronous FULL (the default, as
//     Gatehouse's), SQLite commits with NORMAL and the WAL is fdatasync'd on libuv's thread pool
//     (Gatehouse's own sqlite-wal-sync.ts), so the fsync blocks no request — as in Gatehouse.
// Not done, because Gatehouse does it for its features rather than for the login itself: the login
// throttle, the principal's status check, the per-key bound on logins (ending the oldest),
// the token index and the cache's change feed, the request log and metrics.
// Usage: node --import tsx bench/serve-minimal-login.ts <data-dir> with BENCH_API_KEY, optionally
// BENCH_SQLITE_SYNCHRONOUS (FULL | NORMAL).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { EVENT_TYPES } from '../src/audit/catalogue.js';
import { AUDIT_SQLITE_MIGRATIONS } from '../src/audit/sqlite.js';
import { createWalSyncer } from '../src/backend/sqlite-wal-sync.js';
import { newId } from '../src/lib/ids.js';
import { randomBytes } from '../src/lib/random.js';
import { generateToken, hashSecret, tokenId } from '../src/lib/secrets.js';
import { announceReady, exitOnParentGone, isStopping } from './child-protocol.js';

const ACCESS_TTL_MS = 3_600_000;
const REFRESH_TTL_MS = 86_400_000;
const TOMBSTONE_MS = 86_400_000;

interface Job {
  tokens: Array<[string, string, number]>;
  event: [string, number, string, string, string, string];
  resolve: () => void;
  reject: (error: unknown) => void;
}

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  const apiKey = process.env.BENCH_API_KEY;
  if (!dataDir || !apiKey) throw new Error('usage: BENCH_API_KEY=<key> serve-minimal-login.ts <data-dir>');
  const full = (process.env.BENCH_SQLITE_SYNCHRONOUS ?? 'FULL') === 'FULL';

  const db = new Database(join(dataDir, 'login.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, revision INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
           CREATE INDEX kv_expires ON kv(expires_at) WHERE expires_at IS NOT NULL;`);
  for (const migration of AUDIT_SQLITE_MIGRATIONS) db.exec(migration);
  const putToken = db.prepare('INSERT INTO kv (key, value, revision, expires_at) VALUES (?, ?, ?, ?)');
  const putEvent = db.prepare(
    'INSERT INTO events (id, time_ms, type, actor_id, actor_kind, target_id, session_id, success, body) VALUES (?, ?, ?, ?, ?, NULL, NULL, 1, ?)',
  );
  let revision = 0;
  const commit = db.transaction((jobs: Job[]) => {
    for (const job of jobs) {
      revision++;
      for (const [key, value, expiresAt] of job.tokens) putToken.run(key, value, revision, expiresAt);
      putEvent.run(...job.event);
    }
  });
  const syncer = full ? createWalSyncer(`${db.name}-wal`) : undefined;

  let queue: Job[] = [];
  const flush = () => {
    const jobs = queue;
    queue = [];
    try {
      commit(jobs);
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    const settle = (error?: Error) => {
      for (const job of jobs) error ? job.reject(error) : job.resolve();
    };
    if (syncer) syncer.afterCommit(settle);
    else settle();
  };

  const principal = { kind: 'user', id: newId('user') };
  const keys = new Map([[hashSecret(apiKey), { id: newId('apiKey'), principal, owner: 'admin' }]]);

  const app = Fastify({ logger: false });
  app.post('/v1/auth/token', (request, reply) => {
    const presented = (request.body as { api_key?: unknown } | undefined)?.api_key;
    const key = typeof presented === 'string' ? keys.get(hashSecret(presented)) : undefined;
    if (!key) return reply.code(401).send({ title: 'invalid_credentials' });
    const now = Date.now();
    const access = generateToken('accessToken', now);
    const refresh = generateToken('refreshToken', now);
    const base = {
      principal: key.principal,
      family: randomBytes(12).toString('base64url'),
      issued_at: now,
      api_key_id: key.id,
    };
    const row = (token: string, kind: 'access' | 'refresh', ttl: number): [string, string, number] => [
      `tokens/${tokenId(token)}`,
      JSON.stringify({ ...base, kind, expires_at: now + ttl }),
      now + ttl + TOMBSTONE_MS,
    ];
    const id = newId('event', now);
    const body = JSON.stringify({
      id,
      type: 'auth.token.issued',
      code: EVENT_TYPES['auth.token.issued'].code,
      time: new Date(now).toISOString(),
      actor: { ...key.principal, name: key.owner },
      success: true,
      remote_addr: request.ip,
      request_id: request.id,
      data: { api_key_id: key.id, expires_in: ACCESS_TTL_MS / 1000 },
    });
    return new Promise<object>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({
        tokens: [row(access, 'access', ACCESS_TTL_MS), row(refresh, 'refresh', REFRESH_TTL_MS)],
        event: [id, now, 'auth.token.issued', key.principal.id, key.principal.kind, body],
        resolve: () =>
          resolve({
            access_token: access,
            token_type: 'Bearer',
            expires_in: ACCESS_TTL_MS / 1000,
            refresh_token: refresh,
            refresh_expires_in: REFRESH_TTL_MS / 1000,
          }),
        reject,
      });
    });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  exitOnParentGone(async () => {
    await app.close();
    await syncer?.idle();
    syncer?.close();
    db.close();
  });
  announceReady({ url: `http://127.0.0.1:${port}` });
}

main().catch((e: unknown) => {
  if (isStopping()) return;
  process.stderr.write(`serve-minimal-login: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
