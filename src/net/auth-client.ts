// How a proxy-only instance reaches the auth tier (auth_servers): health-checked round robin over the
// listed instances, this proxy's credential on every call (its own identity's, or the deprecated shared
// cluster token). A server that fails at the socket is left out
// for a jittered while and probed back in; a call is retried on another server only when it cannot
// have taken effect (the connection never opened) or when it is idempotent by nature.
export const CLUSTER_TOKEN_HEADER = 'x-gatehouse-cluster-token';
/** A joined proxy's short-lived credential (cluster/proxy-credentials.ts), on every internal call. */
export const PROXY_CREDENTIAL_HEADER = 'x-gatehouse-proxy-credential';
/** The process instance a call comes from (cluster/announced-instance.ts). */
export const INSTANCE_HEADER = 'x-gatehouse-instance';

/** No auth server answered; the caller maps it to its own "unavailable" (503 state_unavailable). */
export class AuthUnreachable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthUnreachable';
  }
}

export interface AuthServerState {
  server: string;
  up: boolean;
}

export interface AuthPool {
  /** The base URL of the next healthy auth server (round robin); all down: the one down longest. */
  pick(): string;
  /** A socket-level failure on base: leave it out until a probe finds it back. */
  markDown(base: string): void;
  servers(): AuthServerState[];
  /** fetch() against the auth tier with our credential; tries each server once when the request never left. */
  fetch(path: string, init?: RequestInit & { idempotent?: boolean }): Promise<Response>;
  /** The headers that say who we are to the auth tier (set by authenticateWith; none before). */
  peerHeaders(): Record<string, string>;
  /** From now on every call carries these headers (a joined identity's credential, renewed by its holder). */
  authenticateWith(headers: () => Record<string, string>): void;
  close(): void;
}

/** Socket-level failures: the request never reached (or never got an answer from) that server. */
export function connectionFailure(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  const code = cause?.code ?? (error as { code?: string }).code ?? '';
  return /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|EPIPE|UND_ERR_SOCKET|UND_ERR_CONNECT_TIMEOUT|UND_ERR_CLOSED)$/.test(
    code,
  );
}

export function createAuthPool(
  servers: string[],
  opts: { tls: boolean; probeIntervalMs?: number; timeoutMs?: number },
): AuthPool {
  const scheme = opts.tls ? 'https' : 'http';
  const state = servers.map((s) => ({ base: `${scheme}://${s}`, server: s, up: true, downSince: 0 }));
  let next = 0;
  const probeEvery = opts.probeIntervalMs ?? 1000;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  let credentials: () => Record<string, string> = () => ({});

  // Down servers are probed on /healthz; a probe that answers brings the server back.
  const probe = setInterval(() => {
    for (const s of state) {
      if (s.up) continue;
      fetch(`${s.base}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
        (r) => {
          if (r.ok) s.up = true;
          void r.body?.cancel();
        },
        () => {},
      );
    }
  }, probeEvery);
  probe.unref();

  const pool: AuthPool = {
    peerHeaders: () => credentials(),
    authenticateWith(headers) {
      credentials = headers;
    },
    pick() {
      for (let i = 0; i < state.length; i++) {
        const s = state[(next + i) % state.length];
        if (s?.up) {
          next = (next + i + 1) % state.length;
          return s.base;
        }
      }
      const oldest = [...state].sort((a, b) => a.downSince - b.downSince)[0];
      return (oldest ?? state[0])?.base as string;
    },
    markDown(base) {
      const s = state.find((x) => x.base === base);
      if (s?.up) {
        s.up = false;
        s.downSince = Date.now();
      }
    },
    servers: () => state.map((s) => ({ server: s.server, up: s.up })),
    async fetch(path, init = {}) {
      const { idempotent, ...rest } = init;
      let last: unknown;
      for (let attempt = 0; attempt < state.length; attempt++) {
        const base = pool.pick();
        const headers = new Headers(rest.headers);
        for (const [name, value] of Object.entries(credentials())) headers.set(name, value);
        try {
          return await fetch(`${base}${path}`, {
            ...rest,
            headers,
            signal: rest.signal ?? AbortSignal.timeout(timeoutMs),
          });
        } catch (error) {
          last = error;
          if (!connectionFailure(error))
            throw new AuthUnreachable(`auth ${base}: ${(error as Error).message}`, { cause: error });
          pool.markDown(base);
          // ECONNREFUSED means nothing was sent; anything else may have been applied, so only an
          // idempotent call goes on to the next server.
          const code = (error as { cause?: { code?: string } }).cause?.code;
          if (!idempotent && code !== 'ECONNREFUSED') break;
        }
      }
      throw new AuthUnreachable(`no auth server answered (${servers.join(', ')}): ${(last as Error)?.message}`, {
        cause: last,
      });
    },
    close: () => clearInterval(probe),
  };
  return pool;
}

/**
 * Errors that mean the auth tier is not up yet, as when the tiers start together (Kubernetes,
 * compose, systemd): nothing listens, the name does not resolve yet, no answer in time. A
 * certificate we do not trust or a refused token is an answer, and no wait will change it.
 */
function notUpYet(error: unknown): boolean {
  if (!(error instanceof AuthUnreachable)) return false;
  const cause = error.cause as { name?: string; cause?: { code?: string } } | undefined;
  return (
    connectionFailure(cause) ||
    /^(ENOTFOUND|EAI_AGAIN)$/.test(cause?.cause?.code ?? '') ||
    cause?.name === 'TimeoutError' ||
    cause?.name === 'AbortError'
  );
}

/**
 * Waits until an auth server answers the internal API (any answer but 502–504), with jittered
 * exponential backoff (250 ms doubling up to 5 s, each wait between half and all of it, so proxies
 * started together do not knock in step). onWait is told why at the first failure and then at most
 * every 5 s. An answer that waiting cannot fix ends the wait at once: the caller's first real call
 * reports it.
 */
export async function waitForAuthTier(
  pool: Pick<AuthPool, 'fetch'>,
  opts: { onWait(reason: string, waitedMs: number): void | Promise<void>; random?: () => number },
): Promise<void> {
  const started = Date.now();
  let toldAt = Number.NEGATIVE_INFINITY;
  for (let attempt = 0; ; attempt++) {
    let reason: string;
    try {
      const res = await pool.fetch('/internal/v1/backend/ping', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"args":[]}',
        idempotent: true,
        signal: AbortSignal.timeout(5000),
      });
      await res.body?.cancel();
      if (res.status < 502 || res.status > 504) return;
      reason = `the auth tier answered ${res.status}`;
    } catch (error) {
      if (!notUpYet(error)) return;
      reason = (error as Error).message;
    }
    if (Date.now() - toldAt >= 5000) {
      toldAt = Date.now();
      await opts.onWait(reason, Date.now() - started);
    }
    const bound = Math.min(5000, 250 * 2 ** attempt);
    await new Promise((r) => setTimeout(r, bound / 2 + (opts.random ?? Math.random)() * (bound / 2)));
  }
}
