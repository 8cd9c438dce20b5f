// TLS between psql and the PostgreSQL proxy: SSLRequest answered with the proxy's certificate (psql
// sslmode=verify-full against it), and a proxy listening off loopback refusing clients that stay
// in the clear — so a token used as the password never crosses a network unencrypted.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../src/config/load.js';
import { type Gatehouse, startGatehouse } from '../src/server.js';
import { ADMIN_KEY } from './helpers/gatehouse.js';
import { psql, requirePostgres } from './helpers/psql.js';
import { selfSignedCert } from './helpers/tls.js';
import { until } from './helpers/until.js';

/** JSON over https, trusting only the test's certificate. */
function call(url: string, ca: Buffer, method: string, path: string, body?: unknown, token?: string) {
  return new Promise<{ status: number; json: Record<string, unknown> & { events?: unknown } }>((resolve, reject) => {
    const req = request(`${url}${path}`, {
      method,
      ca,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

if (requirePostgres('PostgreSQL proxy TLS')) {
  describe('PostgreSQL proxy: TLS through SSLRequest', () => {
    let dir: string;
    let gatehouse: Gatehouse;
    let ca: Buffer;
    let certFile: string;
    let token: string;
    let port: number;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gatehouse-db-tls-'));
      const made = selfSignedCert(dir);
      certFile = made.certFile;
      const keyFile = made.keyFile;
      ca = readFileSync(certFile);
      const config = loadConfig({
        env: {},
        overrides: {
          data_dir: join(dir, 'data'),
          auth_addr: '127.0.0.1:0',
          web_addr: '127.0.0.1:0',
          ssh_addr: '127.0.0.1:0',
          kube_addr: '127.0.0.1:0',
          // Off loopback: every client must switch to TLS.
          db_addr: '0.0.0.0:0',
          metrics_enabled: false,
          bootstrap_api_key: ADMIN_KEY,
          log_level: 'silent',
          'webhooks.deliver': false,
          tls: { cert_file: certFile, key_file: keyFile },
        },
      });
      gatehouse = await startGatehouse(config, { logger: pino({ level: 'silent' }) });
      const url = gatehouse.authUrl as string;
      const t = await call(url, ca, 'POST', '/v1/auth/token', { api_key: ADMIN_KEY });
      assert.equal(t.status, 200);
      token = t.json.access_token as string;
      const db = await call(
        url,
        ca,
        'POST',
        '/v1/resources',
        { kind: 'database', name: 'pg', address: '127.0.0.1:5432', protocol: 'postgres' },
        token,
      );
      assert.equal(db.status, 201, JSON.stringify(db.json));
      port = gatehouse.dbAddr?.port as number;
    });
    after(async () => {
      await gatehouse?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test('psql sslmode=verify-full connects over TLS with the proxy certificate; the session says tls: true', async () => {
      const conn = `host=127.0.0.1 port=${port} user=postgres@pg dbname=test sslmode=verify-full sslrootcert=${certFile}`;
      const r = await psql(conn, token, ['-c', '\\conninfo', '-tAc', 'select 11']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /SSL connection \(protocol: TLSv1\.[23]/);
      assert.match(r.stdout, /^11$/m);
      const start = await until('db.session.start', async () => {
        const e = await call(
          gatehouse.authUrl as string,
          ca,
          'GET',
          '/v1/events?type=db.session.start',
          undefined,
          token,
        );
        return (e.json.events as Array<{ data: { tls: boolean } }>)[0];
      });
      assert.equal(start.data.tls, true);
    });

    test('off loopback, a client that does not switch to TLS is refused (sslmode=require is the positive control)', async () => {
      const plain = await psql(`host=127.0.0.1 port=${port} user=postgres@pg dbname=test sslmode=disable`, token, [
        '-c',
        'select 1',
      ]);
      assert.equal(plain.code, 2);
      assert.match(plain.stderr, /FATAL: {2}gatehouse: TLS is required \(sslmode=require\)/);
      const tls = await psql(`host=127.0.0.1 port=${port} user=postgres@pg dbname=test sslmode=require`, token, [
        '-tAc',
        'select 12',
      ]);
      assert.equal(tls.code, 0, tls.stderr);
      assert.equal(tls.stdout.trim(), '12');
    });
  });
}
