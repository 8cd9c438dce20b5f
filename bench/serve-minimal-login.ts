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
//
// BENCH_LOGIN_ADD (bench/login-ladder.ts) adds, one at a time and done as simply as each can be, what
// Gatehouse does beyond this for its features (comma-separated, each as Gatehouse does it):
//   audit-thread — the event goes to an audit store of its own (its own SQLite file, on the writer
//                  thread Gatehouse uses: src/audit/sqlite-writer.ts), sent at the state commit, and
//                  the login answers once both are durable;
//   bound        — a key holds at most 1,000 logins: each new one past that deletes the oldest's two
//                  token rows in the same transaction (looked up first, as the state store does);
//   change-feed  — once durable, each written row is parsed back into an in-memory cache and the
//                  token's family and principal groups (what every instance's cache and token index do);
//   savepoints   — each login of a group commit in a savepoint of its own, so one that fails leaves
//                  nothing behind while the others commit (what the state store paid per job until
//                  5a33e7b; now only a batch with a job that failed after it wrote does: not a rung);
//   pipeline     — the request id in X-Request-Id, the Host check, the request log line's level
//                  check (pino at warn) and the request-duration histogram (prom-client).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import pino from 'pino';
import { EVENT_TYPES } from '../src/audit/catalogue.js';
import { AUDIT_SQLITE_MIGRATIONS } from '../src/audit/sqlite.js';
import { openWriter } from '../src/audit/sqlite-writer.js';
import type { AuditEvent } from '../src/audit/types.js';
import { createWalSyncer } from '../src/backend/sqlite-wal-sync.js';
import { newId } from '../src/lib/ids.js';
import { newRequestId, randomBytes } from '../src/lib/random.js';
import { generateToken, hashSecret, tokenId } from '../src/lib/secrets.js';
import { announceReady, exitOnParentGone, isStopping } from './child-protocol.js';
import { requestDurationObserver } from './minimal-pipeline.js';

const ACCESS_TTL_MS = 3_600_000;
const REFRESH_TTL_MS = 86_400_000;
const TOMBSTONE_MS = 86_400_000;

const STEPS = ['audit-thread', 'bound', 'change-feed', 'savepoints', 'pipeline'] as const;
/** Logins one key may hold with `bound` (Gatehouse's tokens.max_logins_per_key default). */
const MAX_LOGINS_PER_KEY = 1000;

interface Job {
  tokens: Array<[string, string, number]>;
  event: [string, number, string, string, string, string];
  /** audit-thread: the event as the audit store takes it. */
  auditEvent: AuditEvent;
  /** bound: the token rows of the key's oldest login, deleted with this one's. */
  ending: string[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  const apiKey = process.env.BENCH_API_KEY;
  if (!dataDir || !apiKey) throw new Error('usage: BENCH_API_KEY=<key> serve-minimal-login.ts <data-dir>');
  const full = (process.env.BENCH_SQLITE_SYNCHRONOUS ?? 'FULL') === 'FULL';
  const added = new Set((process.env.BENCH_LOGIN_ADD ?? '').split(',').filter((s) => s !== ''));
  for (const step of added)
    if (!(STEPS as readonly string[]).includes(step)) throw new Error(`BENCH_LOGIN_ADD: unknown step ${step}`);
  const has = (step: (typeof STEPS)[number]) => added.has(step);

  const db = new Database(join(dataDir, 'login.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // As the state store: a savepoint's statement journal in memory (src/backend/sqlite.ts says why).
  if (has('savepoints')) db.pragma('temp_store = MEMORY');
  db.exec(`CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, revision INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
           CREATE INDEX kv_expires ON kv(expires_at) WHERE expires_at IS NOT NULL;`);
  let writer: ReturnType<typeof openWriter> | undefined;
  if (has('audit-thread')) {
    const auditDb = new Database(join(dataDir, 'audit.db'));
    auditDb.pragma('journal_mode = WAL');
    for (const migration of AUDIT_SQLITE_MIGRATIONS) auditDb.exec(migration);
    auditDb.close();
    writer = openWriter(join(dataDir, 'audit.db'), full ? 'FULL' : 'NORMAL');
  } else for (const migration of AUDIT_SQLITE_MIGRATIONS) db.exec(migration);
  const putToken = db.prepare('INSERT INTO kv (key, value, revision, expires_at) VALUES (?, ?, ?, ?)');
  const putEvent = writer
    ? undefined
    : db.prepare(
        'INSERT INTO events (id, time_ms, type, actor_id, actor_kind, target_id, session_id, success, body) VALUES (?, ?, ?, ?, ?, NULL, NULL, 1, ?)',
      );
  const getToken = db.prepare('SELECT key, value, revision, expires_at FROM kv WHERE key = ?');
  const deleteToken = db.prepare('DELETE FROM kv WHERE key = ?');
  let revision = 0;
  const writeJob = (job: Job) => {
    revision++;
    for (const key of job.ending) if (getToken.get(key)) deleteToken.run(key);
    for (const [key, value, expiresAt] of job.tokens) putToken.run(key, value, revision, expiresAt);
    putEvent?.run(...job.event);
  };
  const inSavepoint = db.transaction(writeJob);
  const commit = db.transaction((jobs: Job[]) => {
    for (const job of jobs) has('savepoints') ? inSavepoint(job) : writeJob(job);
  });
  const syncer = full ? createWalSyncer(`${db.name}-wal`) : undefined;

  // change-feed: what every instance holds of the rows it hears of.
  const cache = new Map<string, unknown>();
  const groups = new Map<string, Set<string>>();
  const group = (name: string, key: string, add: boolean) => {
    const members = groups.get(name);
    if (add) {
      if (members) members.add(key);
      else groups.set(name, new Set([key]));
    } else if (members?.delete(key) && members.size === 0) groups.delete(name);
  };
  const hear = (jobs: Job[]) => {
    for (const job of jobs) {
      for (const key of job.ending) {
        const held = cache.get(key) as { principal: { id: string }; family: string } | undefined;
        if (!held) continue;
        cache.delete(key);
        group(`p${held.principal.id}`, key, false);
        group(`f${held.family}`, key, false);
      }
      for (const [key, value] of job.tokens) {
        const record = JSON.parse(value) as { principal: { id: string }; family: string };
        cache.set(key, record);
        group(`p${record.principal.id}`, key, true);
        group(`f${record.family}`, key, true);
      }
    }
  };
  // bound: the key's logins, oldest first.
  const logins: string[][] = [];

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
    const audited = writer?.append(jobs.map((job) => job.auditEvent));
    const answer = (error?: unknown) => {
      for (const job of jobs) error ? job.reject(error) : job.resolve();
    };
    const settle = (error?: Error) => {
      if (!error && has('change-feed')) hear(jobs);
      if (error || !audited) answer(error);
      else audited.then(() => answer(), answer);
    };
    if (syncer) syncer.afterCommit(settle);
    else settle();
  };

  const principal = { kind: 'user', id: newId('user') };
  const keys = new Map([[hashSecret(apiKey), { id: newId('apiKey'), principal, owner: 'admin' }]]);

  const app = Fastify({ logger: false, ...(has('pipeline') ? { genReqId: newRequestId } : {}) });
  if (has('pipeline')) {
    const log = pino({ level: 'warn' });
    const observe = requestDurationObserver();
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      if (request.raw.httpVersionMinor === 1 && !request.headers.host)
        return done(new Error('the Host header is required'));
      done();
    });
    app.addHook('onResponse', (request, reply, done) => {
      if (log.isLevelEnabled(reply.statusCode >= 400 ? 'info' : 'debug')) log.info({ url: request.url }, 'request');
      observe(request, reply);
      done();
    });
  }
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
    const auditEvent = {
      id,
      type: 'auth.token.issued',
      code: EVENT_TYPES['auth.token.issued'].code,
      time: new Date(now).toISOString(),
      actor: { ...key.principal, name: key.owner },
      success: true,
      remote_addr: request.ip,
      request_id: request.id,
      data: { api_key_id: key.id, expires_in: ACCESS_TTL_MS / 1000 },
    } as AuditEvent;
    // Without audit-thread the event's row is written with the tokens: its body made here.
    const body = writer ? '' : JSON.stringify(auditEvent);
    const tokens = [row(access, 'access', ACCESS_TTL_MS), row(refresh, 'refresh', REFRESH_TTL_MS)];
    let ending: string[] = [];
    if (has('bound')) {
      logins.push(tokens.map(([k]) => k));
      if (logins.length > MAX_LOGINS_PER_KEY) ending = logins.shift() ?? [];
    }
    return new Promise<object>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({
        tokens,
        ending,
        auditEvent,
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
    await writer?.close();
    db.close();
  });
  announceReady({ url: `http://127.0.0.1:${port}` });
}

main().catch((e: unknown) => {
  if (isStopping()) return;
  process.stderr.write(`serve-minimal-login: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
