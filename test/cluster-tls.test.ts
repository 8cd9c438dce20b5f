// A proxy reaching the auth tier over TLS, as off loopback it must: auth serves https with a
// certificate of the operator's own CA, the proxy trusts that CA through NODE_EXTRA_CA_CERTS, and
// /v1 through the proxy (forwarded, and read from its cache) works over https end to end. A proxy
// that does not trust the CA is refused at start, naming the auth tier (the negative control).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Running, run, stop } from './helpers/process.js';
import { selfSignedCert } from './helpers/tls.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cluster-tls-'));
const KEY = `tls-bootstrap-${randomBytes(12).toString('hex')}`;
const { certFile: cert, keyFile: key } = selfSignedCert(dir);

function call(url: string, method: string, path: string, body?: unknown, token?: string) {
  return new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method,
        ca: readFileSync(cert),
        headers: {
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : {} }));
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

describe('a proxy reaching the auth tier over TLS', () => {
  let auth: Running;
  let proxy: Running;
  const tls = () => ({ GATEHOUSE_TLS_CERT_FILE: cert, GATEHOUSE_TLS_KEY_FILE: key });
  /** A join token made over https by the admin, as the operator does before starting a proxy. */
  const joinToken = async () => {
    const login = await call(auth.authUrl, 'POST', '/v1/auth/token', { api_key: KEY });
    const token = login.json.access_token as string;
    const made = await call(auth.authUrl, 'POST', '/v1/cluster/join-tokens', { role: 'proxy' }, token);
    assert.equal(made.status, 201, JSON.stringify(made.json));
    return made.json.token as string;
  };
  const proxyEnv = async (extra: Record<string, string>) => ({
    ...tls(),
    GATEHOUSE_ROLES: 'proxy',
    GATEHOUSE_DATA_DIR: join(dir, `proxy-${randomBytes(3).toString('hex')}`),
    GATEHOUSE_AUTH_SERVERS: new URL(auth.authUrl).host,
    GATEHOUSE_JOIN_TOKEN: await joinToken(),
    GATEHOUSE_SEAL_KEY_FILE: join(dir, 'auth', 'webhook-secret.key'),
    ...extra,
  });

  before(async () => {
    auth = await run({
      ...tls(),
      GATEHOUSE_ROLES: 'auth',
      GATEHOUSE_DATA_DIR: join(dir, 'auth'),
      GATEHOUSE_BOOTSTRAP_API_KEY: KEY,
    });
    assert.match(auth.authUrl, /^https:/);
  });
  after(async () => {
    for (const r of [proxy, auth]) if (r && r.child.exitCode === null && r.child.signalCode === null) await stop(r);
    rmSync(dir, { recursive: true, force: true });
  });

  test('with the CA trusted, /v1 through the proxy works over https: a forwarded login, then a read from its cache', async () => {
    proxy = await run(await proxyEnv({ NODE_EXTRA_CA_CERTS: cert }));
    assert.match(proxy.webUrl, /^https:/);
    const login = await call(proxy.webUrl, 'POST', '/v1/auth/token', { api_key: KEY });
    assert.equal(login.status, 200, JSON.stringify(login.json));
    const users = await call(proxy.webUrl, 'GET', '/v1/users', undefined, login.json.access_token as string);
    assert.equal(users.status, 200);
    assert.ok((users.json.users as unknown[]).length >= 1);
  });

  test('a proxy that does not trust the auth tier’s certificate is refused at start, naming it', async () => {
    await assert.rejects(run(await proxyEnv({})), (e: Error) => /cannot reach the auth tier/.test(e.message));
  });
});
