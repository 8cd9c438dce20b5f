// Finds the host to talk to among the URL's hosts and follows it through a failover. node-postgres
// has no multi-host support, so this does what libpq's target_session_attrs=read-write does: try
// the hosts in order and keep the first whose pg_is_in_recovery() is false. When a connection to it
// is lost (or it turns out to be read-only), the target is dropped and the next caller rediscovers,
// retrying with full-jitter exponential backoff so that many instances do not reconnect in step.
import pg from 'pg';
import { GatehouseError } from '../lib/errors.js';
import type { AuditUrl } from '../lib/pg-url.js';

export interface Target {
  hostPort: string;
  /** Reads and tails on this host. */
  pool: pg.Pool;
  /** The one connection commits go through (opened on first use; replaced after a failure). */
  writer(): Promise<pg.Client>;
  /**
   * Destroys the writer's socket (a commit that hangs, e.g. waiting for a synchronous standby) and
   * terminates its server process, if the host still answers.
   */
  dropWriter(): Promise<void>;
  /** Ends the writer and the pool (waiting for what is in flight). */
  end(): Promise<void>;
}

export interface HostTracker {
  /** The current target, rediscovering (bounded by deadline, epoch ms) if there is none. */
  target(deadline: number): Promise<Target>;
  /** The target without waiting, if one is known. */
  known(): Target | undefined;
  /** A connection to `target` failed in a way that may mean a failover: forget it. */
  invalidate(target: Target): void;
  close(): Promise<void>;
}

const BACKOFF_BASE_MS = 50;
const BACKOFF_CAP_MS = 1000;
const CONNECT_TIMEOUT_MS = 2000;

/** Full jitter (AWS architecture blog): uniform in [0, min(cap, base·2^attempt)]. */
export const backoffMs = (attempt: number): number =>
  Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);

/** Errors after which the host may no longer be (or be reachable as) the primary. */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) {
    const code = error.code ?? '';
    // 08: connection exception; 57P01-03: shutdown / cannot connect now; 25006: read-only
    // transaction (we reached a standby, or a demoted primary).
    return code.startsWith('08') || code.startsWith('57P') || code === '25006';
  }
  if (!(error instanceof Error)) return false;
  // Socket errors (ECONNREFUSED, ECONNRESET, …) and node-postgres's own words for a lost connection.
  const code = (error as { code?: unknown }).code;
  return (
    (typeof code === 'string' && /^E[A-Z]+$/.test(code)) ||
    /Connection terminated|connection error|not queryable|timeout|did not complete in time|after calling end/i.test(
      error.message,
    )
  );
}

export function unavailable(detail: string, cause?: unknown): GatehouseError {
  return new GatehouseError('audit_unavailable', detail, cause === undefined ? {} : { cause });
}

export function createHostTracker(
  url: AuditUrl,
  opts: { poolSize: number; role: string; onError?: (error: unknown) => void },
): HostTracker {
  let current: Target | undefined;
  let discovering: Promise<Target> | undefined;
  let closed = false;
  let lastFailure = '';
  // Session settings every connection gets, whatever the server's defaults: the commit level that
  // makes an acknowledged event durable (docs/operations.md, "Audit store on replicated PostgreSQL").
  const options = `-c synchronous_commit=${url.synchronousCommit}`;
  const config = (connectionString: string) => ({
    connectionString,
    options,
    application_name: `gatehouse-audit-${opts.role}`,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });

  function makeTarget(hostPort: string, connectionString: string): Target {
    const pool = new pg.Pool({ ...config(connectionString), max: opts.poolSize, idleTimeoutMillis: 30_000 });
    pool.on('error', (error) => opts.onError?.(error));
    let writer: Promise<pg.Client> | undefined;
    let writerClient: pg.Client | undefined;
    return {
      hostPort,
      pool,
      writer() {
        writer ??= (async () => {
          const client = new pg.Client(config(connectionString));
          client.on('error', (error) => {
            opts.onError?.(error);
            if (writerClient === client) writer = undefined;
          });
          client.on('end', () => {
            if (writerClient === client) writer = undefined;
          });
          await client.connect();
          writerClient = client;
          return client;
        })().catch((error) => {
          writer = undefined;
          throw error;
        });
        return writer;
      },
      async dropWriter() {
        const client = writerClient as (pg.Client & { processID?: number }) | undefined;
        writer = undefined;
        writerClient = undefined;
        if (!client) return;
        // end() would wait for the hung query; the socket is what holds it.
        (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
        // A backend waiting for a synchronous standby (or for the append lock behind one) does not
        // notice its client is gone: left alone, every timed-out commit would keep a connection and
        // the lock until the standby returns, and a long outage would use up max_connections.
        if (client.processID !== undefined) {
          await pool.query('SELECT pg_terminate_backend($1)', [client.processID]).catch(() => {});
        }
      },
      async end() {
        await Promise.allSettled([writerClient?.end(), pool.end()]);
      },
    };
  }

  /** One pass over the hosts: the first that matches attrs, or undefined. */
  async function probe(): Promise<Target | undefined> {
    let standby: { hostPort: string; connectionString: string } | undefined;
    for (const host of url.hosts) {
      const client = new pg.Client(config(host.connectionString));
      client.on('error', () => {});
      try {
        await client.connect();
        const { rows } = await client.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r');
        const inRecovery = rows[0]?.r === true;
        if (url.attrs === 'any') return makeTarget(host.hostPort, host.connectionString);
        if (url.attrs === 'read-write' && !inRecovery) return makeTarget(host.hostPort, host.connectionString);
        if (url.attrs === 'prefer-standby') {
          if (inRecovery) return makeTarget(host.hostPort, host.connectionString);
          standby ??= host;
        }
      } catch (error) {
        // Said once, when discovery gives up; every retry would flood the log during a failover.
        lastFailure = `${host.hostPort}: ${(error as Error).message}`;
      } finally {
        await client.end().catch(() => {});
      }
    }
    return standby ? makeTarget(standby.hostPort, standby.connectionString) : undefined;
  }

  async function discover(deadline: number): Promise<Target> {
    lastFailure = '';
    for (let attempt = 0; ; attempt++) {
      if (closed) throw unavailable('the audit store is closed');
      const found = await probe();
      if (found) {
        current = found;
        return found;
      }
      const wait = backoffMs(attempt);
      if (Date.now() + wait >= deadline) {
        // The hosts and their errors stay in the cause (logs, start-up message), not in API answers.
        const why = new Error(lastFailure || 'every host answered as a standby');
        throw unavailable(
          url.attrs === 'read-write' ? 'no audit database host accepts writes' : 'no audit database host answers',
          why,
        );
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  return {
    async target(deadline) {
      if (current) return current;
      // One discovery at a time; a caller with a later deadline keeps going after an earlier one gave up.
      for (;;) {
        discovering ??= discover(deadline).finally(() => {
          discovering = undefined;
        });
        try {
          return await discovering;
        } catch (error) {
          if (Date.now() >= deadline || closed) throw error;
        }
      }
    },
    known: () => current,
    invalidate(target) {
      if (current !== target) return;
      current = undefined;
      void target
        .dropWriter()
        .then(() => target.pool.end())
        .catch(() => {});
    },
    async close() {
      closed = true;
      const t = current;
      current = undefined;
      await t?.end();
    },
  };
}
