// Starts a real Gatehouse on free loopback ports with a temporary data dir, and speaks HTTP to it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { type Gatehouse, startGatehouse } from '../../src/server.js';

export const ADMIN_KEY = 'test-bootstrap-key-0123456789-abcdefghijklmnop';

export interface TestServer {
  gatehouse: Gatehouse;
  url: string;
  webUrl: string;
  /** Base URL of the metrics listener (absent with metrics_enabled: false). */
  metricsUrl?: string;
  dataDir: string;
  /** Milliseconds added to the clock that expiry checks use. */
  clockOffset: { ms: number };
  adminToken: string;
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

export async function startTestServer(
  overrides: Record<string, unknown> = {},
  opts: { dataDir?: string; logger?: pino.Logger } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
  const config = loadConfig({
    env: {},
    overrides: {
      data_dir: dataDir,
      auth_addr: '127.0.0.1:0',
      web_addr: '127.0.0.1:0',
      ssh_addr: '127.0.0.1:0',
      db_addr: '127.0.0.1:0',
      kube_addr: '127.0.0.1:0',
      metrics_addr: '127.0.0.1:0',
      bootstrap_api_key: ADMIN_KEY,
      log_level: 'silent',
      // Tests register arbitrary webhook URLs; only the webhook tests (which allow-list a loopback
      // receiver) turn delivery on, so no test can ever send traffic off this machine.
      'webhooks.deliver': false,
      ...overrides,
    },
  });
  const clockOffset = { ms: 0 };
  const gatehouse = await startGatehouse(config, {
    clock: () => Date.now() + clockOffset.ms,
    logger: opts.logger ?? pino({ level: 'silent' }),
  });
  const url = gatehouse.authUrl as string;
  const token = await api(url, 'POST', '/v1/auth/token', { body: { api_key: ADMIN_KEY } });
  if (token.status !== 200) throw new Error(`admin token: ${token.status} ${token.text}`);
  return {
    gatehouse,
    url,
    webUrl: gatehouse.webUrl as string,
    ...(gatehouse.metricsUrl ? { metricsUrl: gatehouse.metricsUrl } : {}),
    dataDir,
    clockOffset,
    adminToken: (token.json as { access_token: string }).access_token,
    async stop(stopOpts = {}) {
      await gatehouse.close();
      if (!stopOpts.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected field by field
  json: any;
}

export async function api(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  } else if (opts.rawBody !== undefined) body = opts.rawBody;
  const res = await fetch(base + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Creates a user with the given roles and returns an access token for it. */
export async function userWithRoles(
  server: TestServer,
  name: string,
  roles: string[],
  traits?: Record<string, string[]>,
) {
  const created = await api(server.url, 'POST', '/v1/users', {
    token: server.adminToken,
    body: { name, roles, ...(traits ? { traits } : {}) },
  });
  if (created.status !== 201) throw new Error(`create user: ${created.status} ${created.text}`);
  const key = await api(server.url, 'POST', `/v1/users/${created.json.id}/api-keys`, {
    token: server.adminToken,
    body: {},
  });
  if (key.status !== 201) throw new Error(`create key: ${key.status} ${key.text}`);
  const token = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } });
  if (token.status !== 200) throw new Error(`token: ${token.status} ${token.text}`);
  return {
    id: created.json.id as string,
    apiKey: key.json.api_key as string,
    token: token.json.access_token as string,
    refresh: token.json.refresh_token as string,
  };
}

/**
 * The request wrappers every API test uses: `admin(method, path, body?)` with the admin's token and
 * `as(token, method, path, body?)`. The server is read when a request is made, so a file can bind
 * them before its `before()` starts the server.
 */
export function requestsTo(server: () => TestServer) {
  const as = (token: string, method: string, path: string, body?: unknown): Promise<Reply> =>
    api(server().url, method, path, { token, ...(body !== undefined ? { body } : {}) });
  const admin = (method: string, path: string, body?: unknown): Promise<Reply> =>
    as(server().adminToken, method, path, body);
  return { admin, as };
}
