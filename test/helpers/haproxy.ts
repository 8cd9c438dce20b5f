// A real haproxy (Debian 2.6; .ci/run installs it) in front of Gatehouse proxies, as the seed's
// deployment has one: HTTP health checks on /webapi/ping, and a stats socket to see what it thinks.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './sshd.js';
import { until } from './until.js';

export const HAPROXY_BIN = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p));

export interface Haproxy {
  url: string;
  /** Server name → haproxy's status of it (UP, DOWN, …). */
  status(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function startHaproxy(webBackends: Array<{ name: string; port: number }>): Promise<Haproxy> {
  if (!HAPROXY_BIN) throw new Error('haproxy is not installed (apt-get install haproxy)');
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-haproxy-'));
  const port = await freePort();
  const socket = join(dir, 'stats.sock');
  const config = [
    'global',
    `  stats socket ${socket} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  retries 2',
    '  option redispatch',
    `frontend web`,
    `  bind 127.0.0.1:${port}`,
    '  default_backend proxies',
    'backend proxies',
    '  balance roundrobin',
    '  option httpchk GET /webapi/ping',
    ...webBackends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} check inter 250ms fall 2 rise 2`),
    '',
  ].join('\n');
  writeFileSync(join(dir, 'haproxy.cfg'), config);
  // -db: stay in the foreground (and write no pidfile); the child is ours to kill.
  const child: ChildProcess = spawn(HAPROXY_BIN, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;

  async function status(): Promise<Record<string, string>> {
    const text = await new Promise<string>((resolve, reject) => {
      const c = connect(socket);
      let out = '';
      c.on('data', (d) => {
        out += d.toString();
      });
      c.on('end', () => resolve(out));
      c.on('error', reject);
      c.end('show stat\n');
    });
    const lines = text.trim().split('\n');
    const header = (lines[0] ?? '').replace(/^# /, '').split(',');
    const name = header.indexOf('svname');
    const st = header.indexOf('status');
    const out: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const f = line.split(',');
      if (f[0] === 'proxies' && f[name] !== 'BACKEND') out[f[name] as string] = f[st] as string;
    }
    return out;
  }

  await until(
    'haproxy sees every proxy up',
    async () => {
      const s = await status().catch(() => undefined);
      return s && webBackends.every((b) => s[b.name] === 'UP') ? true : undefined;
    },
    20_000,
  );
  return {
    url,
    status,
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
