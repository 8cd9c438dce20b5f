// The door kit: what a public listener lets in before anyone is authenticated (here, below both the
// HTTP API and the protocol proxies, which may not import each other). Each door (the SSH,
// PostgreSQL and Kubernetes proxies, the web listener) caps its open connections in all and per
// source, gives a connection a deadline to finish its handshake (banner, TLS, startup, login), and
// draws file descriptors from one budget that all doors share, so that no flood of idle sockets can
// take the descriptors the auth API, the stores and live sessions' upstream legs need.
import { readFileSync } from 'node:fs';
import type { Server, Socket } from 'node:net';

export interface DoorLimits {
  /** Open connections on this listener. */
  maxConnections: number;
  /** Open connections on this listener from one source (see sourceKey). */
  maxConnectionsPerSource: number;
  /** A connection not through its handshake this long after accept is closed; undefined: no deadline. */
  handshakeTimeoutMs?: number;
}

/** What a door is given by the composition root: its limits, the shared budget, where to warn. */
export interface DoorOptions {
  limits: DoorLimits;
  budget?: DescriptorBudget;
  warn?: (message: string) => void;
}

export type Refusal = 'source' | 'listener' | 'budget';

/** Descriptors the public doors may hold together; each connection takes its share for its lifetime. */
export interface DescriptorBudget {
  take(n: number): boolean;
  give(n: number): void;
  readonly size: number;
  readonly inUse: number;
}

export function createDescriptorBudget(size: number): DescriptorBudget {
  let inUse = 0;
  return {
    size,
    get inUse() {
      return inUse;
    },
    take(n) {
      if (inUse + n > size) return false;
      inUse += n;
      return true;
    },
    give(n) {
      inUse = Math.max(0, inUse - n);
    },
  };
}

/** This process's soft limit on open files (Linux), or undefined where it cannot be read or is unlimited. */
export function descriptorLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.slice('Max open files'.length).trim().split(/\s+/)[0]);
    return Number.isSafeInteger(soft) && soft > 0 ? soft : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The doors' share of the descriptor limit: all of it less the reserve, and never less than half
 * (a limit smaller than twice the reserve still leaves the doors something). No known limit: no budget.
 */
export function doorBudgetSize(limit: number | undefined, reserve: number): number {
  if (limit === undefined) return Number.POSITIVE_INFINITY;
  return Math.max(limit - reserve, Math.floor(limit / 2));
}

/**
 * Whom a per-source cap counts together: an IPv4 address (also when IPv4-mapped), or an IPv6 /64 —
 * a single host is commonly given a whole /64, so counting its addresses one by one would let it
 * open 2^64 times the cap.
 */
export function sourceKey(address: string | undefined): string {
  const bare = (address ?? '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped) return mapped[1] as string;
  if (!bare.includes(':')) return bare;
  const [head = '', tail] = bare.split('::');
  const groups = (part: string) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const front = groups(head);
  const all = tail === undefined ? front : [...front, ...Array(8 - front.length - groups(tail).length).fill('0')];
  return `${all
    .slice(0, 4)
    .map((g) => Number.parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}

export interface Door {
  /** The connection on this socket (or a TLS socket over it) is through its handshake: no deadline now. */
  passed(socket: Socket): void;
  /** Connections open on this door. */
  readonly open: number;
  /** Resolves once every connection has closed; those still open after graceMs are destroyed. */
  drain(graceMs: number): Promise<void>;
}

/** The TCP socket under a TLS socket (Node keeps it as `_parent`), or the socket itself. */
const rawSocket = (socket: Socket): Socket => (socket as Socket & { _parent?: Socket })._parent ?? socket;

/**
 * Puts a door in front of a listening server (net, tls, http or https). It must run before anything
 * else listens for 'connection', so that a refused socket never reaches a parser or a TLS handshake:
 * it takes over the listeners present and calls them only for admitted sockets.
 */
export function guardListener(
  server: Server,
  opts: DoorOptions & {
    name: string;
    /** Descriptors one connection holds: 2 for a proxied one (its upstream leg), 1 otherwise. */
    descriptorsPerConnection?: number;
    /** How a refused socket is told (default: closed at once). */
    refuse?: (socket: Socket, why: Refusal) => void;
  },
): Door {
  const { limits, budget } = opts;
  const weight = opts.descriptorsPerConnection ?? 1;
  const perSource = new Map<string, number>();
  const deadlines = new Map<Socket, NodeJS.Timeout | undefined>();
  const whenEmpty = new Set<() => void>();
  const warnings = throttledWarnings(opts.name, opts.warn);
  const accept = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');

  server.on('connection', (socket: Socket) => {
    const source = sourceKey(socket.remoteAddress);
    const fromSource = perSource.get(source) ?? 0;
    const why: Refusal | undefined =
      fromSource >= limits.maxConnectionsPerSource
        ? 'source'
        : deadlines.size >= limits.maxConnections
          ? 'listener'
          : budget && !budget.take(weight)
            ? 'budget'
            : undefined;
    if (why) {
      warnings.refused(why, source);
      socket.on('error', () => {});
      if (opts.refuse) opts.refuse(socket, why);
      else socket.destroy();
      return;
    }
    perSource.set(source, fromSource + 1);
    const timeoutMs = limits.handshakeTimeoutMs;
    const deadline =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            warnings.timedOut(source, timeoutMs);
            socket.destroy();
          }, timeoutMs);
    deadlines.set(socket, deadline);
    socket.once('close', () => {
      clearTimeout(deadlines.get(socket));
      deadlines.delete(socket);
      budget?.give(weight);
      const n = (perSource.get(source) ?? 1) - 1;
      if (n === 0) perSource.delete(source);
      else perSource.set(source, n);
      if (deadlines.size === 0) {
        for (const resolve of whenEmpty) resolve();
        whenEmpty.clear();
      }
    });
    for (const listener of accept) listener.call(server, socket);
  });

  return {
    passed(socket) {
      const raw = rawSocket(socket);
      if (!deadlines.has(raw)) return;
      clearTimeout(deadlines.get(raw));
      deadlines.set(raw, undefined);
    },
    get open() {
      return deadlines.size;
    },
    async drain(graceMs) {
      const allClosed = () =>
        deadlines.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => whenEmpty.add(resolve));
      let cut: NodeJS.Timeout | undefined;
      await Promise.race([allClosed(), new Promise((resolve) => (cut = setTimeout(resolve, graceMs)))]);
      clearTimeout(cut);
      // What is left (and what was accepted while the listener was closing) is cut now.
      for (const s of deadlines.keys()) s.destroy();
      await allClosed();
    },
  };
}

/**
 * The first refusal or timeout is logged at once, then at most one line per door every 10 s with
 * what happened since: a line per socket would let the flood write the log as well.
 */
function throttledWarnings(name: string, warn: ((message: string) => void) | undefined) {
  const counts = new Map<string, number>();
  let lastSource = '';
  let window: NodeJS.Timeout | undefined;
  const flush = () => {
    window = undefined;
    if (counts.size === 0 || !warn) return;
    const summary = [...counts].map(([what, n]) => `${n} ${what}`).join(', ');
    counts.clear();
    warn(`${name}: ${summary} (latest from ${lastSource})`);
    window = setTimeout(flush, 10_000).unref();
  };
  const note = (what: string, source: string) => {
    if (!warn) return;
    counts.set(what, (counts.get(what) ?? 0) + 1);
    lastSource = source;
    if (!window) flush();
  };
  return {
    refused: (why: Refusal, source: string) => note(REFUSALS[why], source),
    timedOut: (source: string, ms: number) => note(`closed, handshake not done within ${ms} ms`, source),
  };
}

const REFUSALS: Record<Refusal, string> = {
  source: 'refused at the per-source cap',
  listener: "refused at the listener's cap",
  budget: 'refused at the descriptor budget',
};
