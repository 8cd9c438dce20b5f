// Starts a real Gatehouse with its SSH proxy on free loopback ports over a fresh data dir, and
// announces the API URL and the proxy's address (bench/ssh-throughput.ts drives it). When this
// Gatehouse has no SSH proxy (the config refuses ssh_addr, or the handle carries no sshAddr) it
// announces why instead, and waits to be stopped like any bench child.
// Usage: node --import tsx bench/serve-gatehouse-ssh.ts <data-dir> with BENCH_API_KEY (32+ chars).
import { rmSync } from 'node:fs';
import pino from 'pino';
import { ConfigError, loadConfig } from '../src/config/load.js';
import type { Config } from '../src/config/schema.js';
import { type Gatehouse, startGatehouse } from '../src/server.js';
import { announceReady, exitOnParentGone, isStopping } from './child-protocol.js';

/** What the bench needs of the handle; sshAddr is the SSH proxy's listener (absent without one). */
type WithSsh = Gatehouse & { sshAddr?: { host: string; port: number } };

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  const apiKey = process.env.BENCH_API_KEY;
  if (!dataDir || !apiKey) throw new Error('usage: BENCH_API_KEY=<key> serve-gatehouse-ssh.ts <data-dir>');

  let config: Config;
  try {
    config = loadConfig({
      env: {},
      overrides: {
        data_dir: dataDir,
        auth_addr: '127.0.0.1:0',
        web_addr: '127.0.0.1:0',
        metrics_addr: '127.0.0.1:0',
        ssh_addr: '127.0.0.1:0',
        kube_addr: '127.0.0.1:0',
        db_addr: '127.0.0.1:0',
        bootstrap_api_key: apiKey,
        log_level: 'warn',
      },
    });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    exitOnParentGone(async () => rmSync(dataDir, { recursive: true, force: true }));
    announceReady({ sshUnavailable: `the config does not take ssh_addr: ${e.message}` });
    return;
  }
  // Same level as configured, but on stderr: stdout carries the ready line.
  const gatehouse = (await startGatehouse(config, {
    logger: pino({ level: config.log_level }, pino.destination(2)),
  })) as WithSsh;
  exitOnParentGone(async () => {
    await gatehouse.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const url = gatehouse.authUrl as string;
  const ssh = gatehouse.sshAddr;
  announceReady(
    ssh
      ? { url, ssh: { host: ssh.host, port: ssh.port } }
      : { url, sshUnavailable: 'the Gatehouse handle has no sshAddr' },
  );
}

main().catch((e: unknown) => {
  if (isStopping()) return;
  process.stderr.write(`serve-gatehouse-ssh: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
