// The PostgreSQL proxy's own login to the database, against a real PostgreSQL that trusts nobody: a
// scratch cluster (initdb, as the postgres user) that takes only TLS, SCRAM-SHA-256 passwords and
// client certificates. Credentials registered through POST /v1/resources are sealed, used, and never
// seen again: not in answers, events, nor the data dir's files.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createDbRole } from './helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { psql, requirePostgres, run, through } from './helpers/psql.js';
import { until } from './helpers/until.js';

const PASSWORD = 'S3cret-upstream-pw-7f3a9c';

function pgBin(): string | undefined {
  try {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    return versions.length ? `/usr/lib/postgresql/${versions[0]}/bin` : undefined;
  } catch {
    return undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: 'ignore' });
const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A CA, and a certificate it signs (server: SANs for 127.0.0.1 and localhost; client: CN = the user). */
function issue(dir: string, ca: string, name: string, subject: string, ext?: string) {
  openssl(['req', ...ecKey, '-subj', subject, '-keyout', `${name}.key`, '-out', `${name}.csr`], dir);
  const extArgs = ext ? ['-extfile', `${name}.ext`] : [];
  if (ext) writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(
    ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial']
      .concat(['-days', '2', '-out', `${name}.crt`])
      .concat(extArgs),
    dir,
  );
}

const bin = pgBin();
const pgUser = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
const ready = requirePostgres('PostgreSQL proxy upstream credentials') && bin !== undefined && pgUser.status === 0;
if (!ready && process.env.CI === 'true') throw new Error('initdb and the postgres user are required under CI');

if (ready) {
  describe('PostgreSQL proxy: upstream TLS verify-full, SCRAM and client certificates, sealed', () => {
    let gh: TestServer;
    let port: number;
    let pgPort: number;
    let dir: string;
    let alice: { id: string; token: string };
    const pgBinDir = bin as string;
    const uid = Number(pgUser.stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const asPostgres = (cmd: string, args: string[]) =>
      spawnSync(join(pgBinDir, cmd), args, { uid, gid, encoding: 'utf8', timeout: 60_000, cwd: dir });
    const admin = (method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token: gh.adminToken, ...(body === undefined ? {} : { body }) });
    const pem = (name: string) => readFileSync(join(dir, name), 'utf8');

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gatehouse-pg-upstream-'));
      openssl(
        ['req', '-x509', ...ecKey, '-days', '2', '-subj', '/CN=gh-test-ca', '-keyout', 'ca.key', '-out', 'ca.crt'],
        dir,
      );
      openssl(
        ['req', '-x509', ...ecKey, '-days', '2', '-subj', '/CN=other-ca', '-keyout', 'other.key', '-out', 'other.crt'],
        dir,
      );
      issue(dir, 'ca', 'server', '/CN=localhost', 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
      issue(dir, 'ca', 'client', '/CN=gh_cert');
      for (const f of readdirSync(dir)) chownSync(join(dir, f), uid, gid);
      chownSync(dir, uid, gid);
      const init = asPostgres('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync']);
      assert.equal(init.status, 0, init.stderr);
      pgPort = await freePort();
      writeFileSync(
        join(dir, 'data', 'postgresql.conf'),
        [
          `port = ${pgPort}`,
          "listen_addresses = '127.0.0.1'",
          `unix_socket_directories = '${dir}'`,
          'ssl = on',
          `ssl_cert_file = '${dir}/server.crt'`,
          `ssl_key_file = '${dir}/server.key'`,
          `ssl_ca_file = '${dir}/ca.crt'`,
          "password_encryption = 'scram-sha-256'",
          'fsync = off',
          '',
        ].join('\n'),
        { flag: 'a' },
      );
      // Nothing is trusted over TCP: TLS only, then a client certificate or a SCRAM password.
      writeFileSync(
        join(dir, 'data', 'pg_hba.conf'),
        [
          'local all all trust',
          'hostssl all gh_cert 127.0.0.1/32 cert',
          'hostssl all all 127.0.0.1/32 scram-sha-256',
          'host all all 127.0.0.1/32 reject',
          '',
        ].join('\n'),
      );
      const start = asPostgres('pg_ctl', ['-D', join(dir, 'data'), '-l', join(dir, 'log'), '-w', 'start']);
      assert.equal(start.status, 0, start.stderr + start.stdout);
      const roles = asPostgres('psql', [
        '-X',
        '-h',
        dir,
        '-p',
        String(pgPort),
        '-U',
        'postgres',
        '-d',
        'postgres',
        '-c',
        `create role gh_app login password '${PASSWORD}'; create role gh_cert login; create role gh_nopw login password 'unknown-to-gatehouse'`,
      ]);
      assert.equal(roles.status, 0, roles.stderr);

      gh = await startTestServer();
      port = gh.gatehouse.dbAddr?.port as number;
      await createDbRole(gh, 'db-scratch', { labels: { env: 'scratch' }, dbUsers: ['gh_*'], dbNames: ['postgres'] });
      alice = await userWithRoles(gh, 'alice', ['db-scratch']);
    });
    after(async () => {
      await gh?.stop();
      if (dir) {
        asPostgres('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', 'stop']);
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('registered with a CA, passwords and a client certificate: answers say which are set, never a value', async () => {
      const created = await admin('POST', '/v1/resources', {
        kind: 'database',
        name: 'scratch',
        address: `127.0.0.1:${pgPort}`,
        protocol: 'postgres',
        labels: { env: 'scratch' },
        db: {
          ca_pem: pem('ca.crt'),
          users: [{ name: 'gh_app', password: PASSWORD }],
          client_cert_pem: pem('client.crt'),
          client_key_pem: pem('client.key'),
        },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.db.tls, 'verify-full');
      assert.match(created.json.db.ca_fingerprint, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      assert.equal(created.json.db.client_certificate, true);
      assert.deepEqual(created.json.db.password_users, ['gh_app']);
      const got = await admin('GET', `/v1/resources/${created.json.id}`);
      assert.deepEqual(got.json.db, created.json.db);
      const keyBody = pem('client.key').split('\n')[1] as string;
      for (const text of [created.text, got.text, (await admin('GET', '/v1/resources?per_page=100')).text]) {
        assert.ok(!text.includes(PASSWORD) && !text.includes(keyBody), 'a secret in an answer');
      }
      const badCert = await admin('POST', '/v1/resources', {
        kind: 'database',
        name: 'scratch-bad',
        address: `127.0.0.1:${pgPort}`,
        protocol: 'postgres',
        db: { client_cert_pem: pem('client.crt'), client_key_pem: pem('client.key') },
      });
      assert.equal(badCert.status, 400, badCert.text);
      assert.equal(badCert.json.errors[0].path, '/body/db/ca_pem');
      const onServer = await admin('POST', '/v1/resources', {
        kind: 'server',
        name: 'web-x',
        address: '127.0.0.1:22',
        db: { users: [{ name: 'x', password: 'y' }] },
      });
      assert.equal(onServer.status, 400, onServer.text);
      assert.equal(onServer.json.errors[0].path, '/body/db');
    });

    test('psql reaches the database over TLS (verify-full) with SCRAM, and with the client certificate', async () => {
      const scram = await psql(through(port, 'gh_app', 'scratch', 'postgres'), alice.token, [
        '-tAc',
        'select current_user, ssl from pg_stat_ssl where pid = pg_backend_pid()',
      ]);
      assert.equal(scram.code, 0, scram.stderr);
      assert.equal(scram.stdout.trim(), 'gh_app|t');
      const cert = await psql(through(port, 'gh_cert', 'scratch', 'postgres'), alice.token, [
        '-tAc',
        'select current_user, client_dn from pg_stat_ssl where pid = pg_backend_pid()',
      ]);
      assert.equal(cert.code, 0, cert.stderr);
      assert.equal(cert.stdout.trim(), 'gh_cert|/CN=gh_cert');
      // A user Gatehouse holds no password for: the server's SCRAM challenge cannot be answered.
      const nopw = await psql(through(port, 'gh_nopw', 'scratch', 'postgres'), alice.token, ['-c', 'select 1']);
      assert.equal(nopw.code, 2);
      assert.match(nopw.stderr, /gatehouse: scratch: the database asks for a password and Gatehouse holds none/);
      // The scratch server itself refuses plain connections and wrong passwords (the negative control).
      const direct = await run(
        'psql',
        ['-X', `host=127.0.0.1 port=${pgPort} user=gh_app dbname=postgres sslmode=disable`, '-c', 'select 1'],
        {
          env: { PGPASSWORD: PASSWORD },
        },
      );
      assert.equal(direct.code, 2);
      assert.match(direct.stderr, /rejects connection|no encryption/);
    });

    test('a server certificate not from the registered CA, or a plain database off loopback, is refused', async () => {
      const wrong = await admin('POST', '/v1/resources', {
        kind: 'database',
        name: 'scratch-wrong-ca',
        address: `127.0.0.1:${pgPort}`,
        protocol: 'postgres',
        labels: { env: 'scratch' },
        db: { ca_pem: pem('other.crt'), users: [{ name: 'gh_app', password: PASSWORD }] },
      });
      assert.equal(wrong.status, 201, wrong.text);
      const r = await psql(through(port, 'gh_app', 'scratch-wrong-ca', 'postgres'), alice.token, ['-c', 'select 1']);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /gatehouse: scratch-wrong-ca: TLS to the database failed: .*certificate/);
      const failed = await until('session.upstream_failed', async () =>
        (
          (await admin('GET', `/v1/events?type=session.upstream_failed&actor=${alice.id}`)).json.events as Array<{
            target: { id: string };
            data: Record<string, unknown>;
          }>
        ).find((e) => e.target.id === wrong.json.id),
      );
      assert.equal(failed.data.reason, 'tls');
      // Replacing the credentials by PATCH (the right CA now) fixes it; the answer names no secret.
      const fixed = await admin('PATCH', `/v1/resources/${wrong.json.id}`, {
        db: { ca_pem: pem('ca.crt'), users: [{ name: 'gh_app', password: PASSWORD }] },
      });
      assert.equal(fixed.status, 200, fixed.text);
      assert.equal(
        fixed.json.db.ca_fingerprint,
        (await admin('GET', '/v1/resources?name=scratch')).json.resources[0].db.ca_fingerprint,
      );
      assert.ok(!fixed.text.includes(PASSWORD));
      const now = await psql(through(port, 'gh_app', 'scratch-wrong-ca', 'postgres'), alice.token, [
        '-tAc',
        'select current_user',
      ]);
      assert.equal(now.stdout.trim(), 'gh_app', now.stderr);
      const updated = (await admin('GET', `/v1/events?type=resource.updated&target=${wrong.json.id}`)).json.events;
      assert.deepEqual(updated[0].data.changed, ['db']);

      const far = await admin('POST', '/v1/resources', {
        kind: 'database',
        name: 'far-plain',
        address: '192.0.2.10:5432',
        protocol: 'postgres',
        labels: { env: 'scratch' },
      });
      assert.equal(far.status, 201, far.text);
      assert.equal(far.json.db, undefined);
      const plain = await psql(through(port, 'gh_app', 'far-plain', 'postgres'), alice.token, ['-c', 'select 1']);
      assert.equal(plain.code, 2);
      assert.match(plain.stderr, /the database is off loopback and no CA is registered for it \(db\.ca_pem\)/);
    });

    test('the password and the client key appear in no event and in no file of the data dir', async () => {
      const events = await admin('GET', '/v1/events?per_page=100');
      assert.equal(events.status, 200);
      const keyBody = pem('client.key').split('\n')[1] as string;
      assert.ok(!events.text.includes(PASSWORD) && !events.text.includes(keyBody), 'a secret in an event');
      const files: string[] = [];
      const walk = (d: string) => {
        for (const e of readdirSync(d)) {
          const p = join(d, e);
          if (statSync(p).isDirectory()) walk(p);
          else files.push(p);
        }
      };
      walk(gh.dataDir);
      assert.ok(files.some((f) => f.endsWith('state.db')));
      for (const f of files) {
        const bytes = readFileSync(f);
        assert.ok(!bytes.includes(PASSWORD) && !bytes.includes(keyBody), `a secret in ${f}`);
      }
    });
  });
}
