// Where a PostgreSQL CancelRequest must go. psql sends it on a new connection, which a load balancer
// may give to another proxy than the one holding the session (Teleport's #8331, #9389: Ctrl-C lost
// through its proxy). The proxy that opens a session keeps its key here and, with Redis, there too,
// so any proxy of the cluster can forward the cancel to the right upstream backend.
import type { RedisLink } from '../../cluster/redis-link.js';

/** The upstream backend a key the proxy gave out stands for. */
export interface CancelTarget {
  host: string;
  port: number;
  pid: number;
  secret: number;
}

export interface CancelKeys {
  add(key: string, target: CancelTarget): void;
  remove(key: string): void;
  /** This proxy's own sessions first, then the cluster's (Redis); undefined for a key nobody gave out. */
  find(key: string): Promise<CancelTarget | undefined>;
}

/** Long enough for any session; removed when the session ends, so only a crashed proxy's stay this long. */
const TTL_MS = 24 * 3600_000;
const redisKey = (key: string) => `gatehouse:dbcancel:${key}`;

export function createCancelKeys(link?: RedisLink, onError: (error: unknown) => void = () => {}): CancelKeys {
  const local = new Map<string, CancelTarget>();
  return {
    add(key, target) {
      local.set(key, target);
      link?.run((r) => r.set(redisKey(key), JSON.stringify(target), { PX: TTL_MS })).catch(onError);
    },
    remove(key) {
      local.delete(key);
      link?.run((r) => r.del(redisKey(key))).catch(onError);
    },
    async find(key) {
      const mine = local.get(key);
      if (mine || !link) return mine;
      const stored = await link.run((r) => r.get(redisKey(key))).catch(() => null);
      return stored ? (JSON.parse(stored) as CancelTarget) : undefined;
    },
  };
}
