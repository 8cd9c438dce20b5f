// The scene the cluster tests share: a temporary directory with the seal key every instance of the
// cluster uses, and proxy-only instances started as an operator starts them (roles: proxy, the auth
// tier's address in auth_servers, every listener on a free loopback port), each test adding its keys.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { type Gatehouse, startGatehouse } from '../../src/server.js';

/** The machine's Redis, or the one GATEHOUSE_TEST_REDIS_URL names. */
export const TEST_REDIS_URL = process.env.GATEHOUSE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface ClusterScene {
  /** The scene's temporary directory: proxies' data directories are made in it. */
  tmp: string;
  /** The seal key file every instance of the cluster shares (0600). */
  sealKey: string;
  /**
   * A proxy-only instance reaching the auth tier at `authUrl`, with `config` over the common keys;
   * its data directory a new one in `tmp` unless given, its log silent unless `logLevel` says.
   */
  startProxy(
    authUrl: string,
    config?: Record<string, unknown>,
    opts?: { dataDir?: string; logLevel?: string },
  ): Promise<{ gatehouse: Gatehouse; dataDir: string }>;
  /** Removes the temporary directory and all in it. */
  remove(): void;
}

export function clusterScene(prefix: string): ClusterScene {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  const sealKey = join(tmp, 'seal.key');
  writeFileSync(sealKey, randomBytes(32), { mode: 0o600 });
  return {
    tmp,
    sealKey,
    async startProxy(authUrl, config = {}, opts = {}) {
      const dataDir = opts.dataDir ?? mkdtempSync(join(tmp, 'proxy-'));
      const overrides = {
        data_dir: dataDir,
        roles: ['proxy'],
        web_addr: '127.0.0.1:0',
        ssh_addr: '127.0.0.1:0',
        kube_addr: '127.0.0.1:0',
        db_addr: '127.0.0.1:0',
        metrics_enabled: false,
        log_level: 'silent',
        'webhooks.deliver': false,
        // Where the auth tier is, and nothing about the stores: a proxy holds no store credentials.
        auth_servers: [new URL(authUrl).host],
        ...config,
      };
      const logger = pino({ level: opts.logLevel ?? 'silent' });
      const gatehouse = await startGatehouse(loadConfig({ env: {}, overrides }), { logger });
      return { gatehouse, dataDir };
    },
    remove: () => rmSync(tmp, { recursive: true, force: true }),
  };
}
