// A Gatehouse run as a real process (optionally under a lower open-file limit, with prlimit) with
// something behind each of its doors: a real sshd as server web-1, the machine's PostgreSQL as
// database pg, a fake Kubernetes API server as a kube_cluster, and one user whose role reaches all
// three — with the stock clients (ssh, psql, kubectl) to use them as a user would.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerPostgres } from './db-resource.js';
import { type FakeKube, startFakeKube } from './fake-kube-apiserver.js';
import { kubectl } from './fake-kube-apiserver-kubectl.js';
import { api, type TestServer } from './gatehouse.js';
import { kubeClusterClient, SEE, type UserKubeconfig } from './kube-cluster.js';
import { CHILD_ENV } from './process.js';
import { psql, through } from './psql.js';
import { generateClientKey, type SshClientOptions, sshExec } from './ssh-client.js';
import { type Sshd, startSshd } from './sshd.js';

export const BOOTSTRAP_KEY = 'proxy-targets-bootstrap-key-0123456789abcdef';

export interface Addr {
  host: string;
  port: number;
}

export interface GatehouseProcess {
  child: ChildProcess;
  output(): string;
  authUrl: string;
  webUrl: string;
  ssh: Addr;
  db: Addr;
  kube: Addr;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

/** Runs `gatehouse start` (bin/gatehouse.mjs) on free loopback ports; `nofile` sets its open-file limit. */
export function startGatehouseProcess(env: Record<string, string>, opts: { nofile?: number } = {}) {
  return spawnGatehouse(env, opts).started;
}

/**
 * The same, without waiting: the child at once, and `started` once it printed its start line
 * (rejected if it exits first or prints none within startTimeoutMs, 60 s by default).
 */
export function spawnGatehouse(env: Record<string, string>, opts: { nofile?: number; startTimeoutMs?: number } = {}) {
  const node = [process.execPath, 'bin/gatehouse.mjs', 'start'];
  const [command, ...args] = opts.nofile ? ['prlimit', `--nofile=${opts.nofile}:${opts.nofile}`, '--', ...node] : node;
  const child = spawn(command as string, args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      GATEHOUSE_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
      ...CHILD_ENV,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const started = new Promise<GatehouseProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no start within ${startTimeoutMs} ms:\n${out}`));
    }, startTimeoutMs);
    const addr = (line: string, re: RegExp): Addr => {
      const m = re.exec(line);
      return { host: m?.[1] ?? '', port: Number(m?.[2]) };
    };
    child.stdout?.on('data', () => {
      const line = /^Gatehouse \S+: (.*)\n/m.exec(out)?.[1];
      if (line === undefined) return;
      clearTimeout(timer);
      resolve({
        child,
        output: () => out,
        exited,
        authUrl: /auth API (https?:\/\/[^\s,]+)/.exec(line)?.[1] ?? '',
        webUrl: /web (https?:\/\/[^\s,]+)/.exec(line)?.[1] ?? '',
        ssh: addr(line, /SSH ([\d.]+):(\d+)/),
        db: addr(line, /PostgreSQL ([\d.]+):(\d+)/),
        kube: addr(line, /Kubernetes https:\/\/([\d.]+):(\d+)/),
      });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before starting:\n${out}`));
    });
  });
  started.catch(() => {}); // a caller that never awaits it learns of an early exit from `exited`
  return { child, output: () => out, exited, started };
}

export interface Targets {
  sshd: Sshd;
  fake: FakeKube;
  kube: UserKubeconfig;
  token: string;
  sshOptions(port: number): SshClientOptions;
  ssh(port: number, command: string, onStdout?: (soFar: string) => void): ReturnType<typeof sshExec>;
  psql(port: number, sql: string): ReturnType<typeof psql>;
  kubectl(args: string[], onStdout?: (s: string) => void): ReturnType<typeof kubectl>;
  stop(): Promise<void>;
}

/** Registers web-1 (a new sshd), pg (the machine's PostgreSQL) and a fake cluster, and user `door` reaching all three. */
export async function provisionTargets(gh: { url: string; apiKey?: string }): Promise<Targets> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-targets-'));
  const login = await api(gh.url, 'POST', '/v1/auth/token', { body: { api_key: gh.apiKey ?? BOOTSTRAP_KEY } });
  assert.equal(login.status, 200, login.text);
  const adminToken = login.json.access_token as string;
  const admin = (method: string, path: string, body?: unknown) =>
    api(gh.url, method, path, { token: adminToken, ...(body === undefined ? {} : { body }) });

  const sshd = await startSshd();
  const fake = await startFakeKube({ rbac: { ops: '*' } });
  const clientKey = await generateClientKey(dir);
  const server = await admin('POST', '/v1/resources', {
    kind: 'server',
    name: 'web-1',
    address: `127.0.0.1:${sshd.port}`,
  });
  assert.equal(server.status, 201, server.text);
  sshd.authorize(server.json.ssh_public_key);
  await registerPostgres({ url: gh.url, adminToken });
  const kc = kubeClusterClient(() => ({ url: gh.url, adminToken }) as TestServer, 'gatehouse-targets-kube-');
  await kc.registerCluster(fake, 'door-cluster');

  const role = await admin('POST', '/v1/roles', {
    name: 'door-user',
    allow: {
      ...SEE,
      resources: [{ kinds: ['server', 'database', 'kube_cluster'] }],
      logins: [sshd.login],
      db_users: ['postgres'],
      db_names: ['test'],
      kube_groups: ['ops'],
    },
  });
  assert.equal(role.status, 201, role.text);
  const user = await admin('POST', '/v1/users', { name: 'door', roles: ['door-user'] });
  assert.equal(user.status, 201, user.text);
  const key = await admin('POST', `/v1/users/${user.json.id}/api-keys`, {});
  const sshKey = await admin('POST', `/v1/users/${user.json.id}/ssh-keys`, { public_key: clientKey.publicLine });
  assert.equal(sshKey.status, 201, sshKey.text);
  const token = (await api(gh.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } })).json
    .access_token as string;
  const kube = await kc.kubeconfigFor(token, 'door');

  const sshOptions = (port: number): SshClientOptions => ({
    port,
    user: `${sshd.login}@web-1`,
    identityFile: clientKey.privatePath,
    timeoutMs: 40_000,
  });
  return {
    sshd,
    fake,
    kube,
    token,
    sshOptions,
    ssh: (port, command, onStdout) => sshExec(command, { ...sshOptions(port), ...(onStdout ? { onStdout } : {}) }),
    psql: (port, sql) => psql(through(port, 'postgres', 'pg', 'test'), token, ['-tAc', sql]),
    kubectl: (args, onStdout) => kubectl(args, { ...kube, timeoutMs: 40_000, ...(onStdout ? { onStdout } : {}) }),
    async stop() {
      await fake.close();
      await sshd.stop();
      kc.removeHome();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
