// haproxy (C, Debian 2.6) doing what the minimal forwarder does — TLS in, the cluster's token and an
// impersonation set, TLS out over reused connections — to show what a TLS-terminating proxy outside
// Node reaches on the same machine in the same run. One thread by default, as Gatehouse serves a
// cluster from one event loop; BENCH_KUBE_HAPROXY_THREADS=2 gives it both cores.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { HAPROXY_BIN } from '../test/helpers/haproxy.js';
import { freePort } from '../test/helpers/sshd.js';
import { selfSignedCert } from '../test/helpers/tls.js';
import { until } from '../test/helpers/until.js';

export interface HaproxyForwarder {
  url: string;
  caPem: string;
  threads: number;
  stop(): void;
}

/** undefined when haproxy is not installed (bench:kube then says so and goes on without it). */
export async function startHaproxyForwarder(
  upstreamUrl: string,
  upstreamCaFile: string,
  token: string,
  dir: string,
): Promise<HaproxyForwarder | undefined> {
  if (!HAPROXY_BIN) return undefined;
  const upstream = new URL(upstreamUrl);
  const { certFile, keyFile } = selfSignedCert(dir);
  const pem = join(dir, 'haproxy.pem');
  writeFileSync(pem, readFileSync(certFile, 'utf8') + readFileSync(keyFile, 'utf8'));
  const port = await freePort();
  const threads = Number(process.env.BENCH_KUBE_HAPROXY_THREADS ?? 1);
  const config = [
    'global',
    `  nbthread ${threads}`,
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    'frontend kube',
    `  bind 127.0.0.1:${port} ssl crt ${pem}`,
    '  http-request del-header impersonate-user',
    '  http-request del-header impersonate-group',
    `  http-request set-header authorization "Bearer ${token}"`,
    '  http-request set-header impersonate-user bencher',
    '  http-request set-header impersonate-group bench',
    '  default_backend cluster',
    'backend cluster',
    '  http-reuse always',
    `  server fake ${upstream.hostname}:${upstream.port} ssl verify required ca-file ${upstreamCaFile}`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'haproxy.cfg'), config);
  const child = spawn(HAPROXY_BIN, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `https://127.0.0.1:${port}`;
  const caPem = readFileSync(certFile, 'utf8');
  await until(
    'haproxy listens',
    () =>
      new Promise<true | undefined>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(undefined));
      }),
    10_000,
  );
  return { url, caPem, threads, stop: () => child.kill('SIGTERM') };
}
