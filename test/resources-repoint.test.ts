// Re-pointing a resource that holds sealed upstream credentials: a caller with resources:update who
// changes a database's or a cluster's address must send the credentials again in the same request,
// or the next connection would hand the stored password (or token) to whatever now answers there.
// Fake upstreams on loopback record what they are sent: the new address never receives a secret it
// was not given along with the move.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer, request as httpsRequest } from 'node:https';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createKubeCa, issueServerCertificate } from '../src/kube/kube-ca.js';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { psql, through } from './helpers/psql.js';
import { until } from './helpers/until.js';

const APP_PASSWORD = 'app-pw-7d1c0e55';
const READER_PASSWORD = 'reader-pw-91b2ac4f';

/**
 * A PostgreSQL server that asks every client for a cleartext password and writes down what it gets
 * (user and password), then refuses the login: all a stolen-password listener needs to do.
 */
async function startPasswordCatcher(): Promise<
  { address: string; seen: Array<{ user: string; password: string }> } & { close(): Promise<void> }
> {
  const seen: Array<{ user: string; password: string }> = [];
  const server: Server = createServer((socket: Socket) => {
    let buffered = Buffer.alloc(0);
    let user = '';
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!user) {
        if (buffered.length < 4 || buffered.length < buffered.readInt32BE(0)) return;
        const length = buffered.readInt32BE(0);
        const fields = buffered.subarray(8, length).toString('utf8').split('\0');
        user = fields[fields.indexOf('user') + 1] ?? '?';
        buffered = buffered.subarray(length);
        const ask = Buffer.alloc(9);
        ask.write('R', 0);
        ask.writeInt32BE(8, 1);
        ask.writeInt32BE(3, 5); // AuthenticationCleartextPassword
        socket.write(ask);
      }
      if (buffered.length < 5 || buffered.length < 1 + buffered.readInt32BE(1)) return;
      seen.push({ user, password: buffered.toString('utf8', 5, buffered.readInt32BE(1)).replace(/\0$/, '') });
      const body = Buffer.from('SFATAL\0C28P01\0Mcaught\0\0');
      const error = Buffer.alloc(5);
      error.write('E', 0);
      error.writeInt32BE(body.length + 4, 1);
      socket.end(Buffer.concat([error, body]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An HTTPS server under a cluster CA that writes down each request's Authorization header. */
async function startTokenCatcher(cert: { cert: string; key: string }) {
  const seen: string[] = [];
  const server: HttpsServer = createHttpsServer(cert, (req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"PodList","items":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let gh: TestServer;
const { admin, as } = requestsTo(() => gh);
let mallory: { id: string; token: string };

before(async () => {
  gh = await startTestServer();
  const editor = await admin('POST', '/v1/roles', {
    name: 'mv-editor',
    allow: {
      rules: [{ resources: ['resources'], verbs: ['list', 'read', 'update'] }],
      resources: [{ kinds: ['database', 'kube_cluster'], labels: { env: 'mv' } }],
      db_users: ['app'],
      db_names: ['test'],
      kube_groups: ['dev-team'],
    },
  });
  assert.equal(editor.status, 201, editor.text);
  mallory = await userWithRoles(gh, 'mallory', ['mv-editor']);
});
after(() => gh.stop());

describe('a database holding passwords', () => {
  let a: Awaited<ReturnType<typeof startPasswordCatcher>>;
  let b: Awaited<ReturnType<typeof startPasswordCatcher>>;
  let dbId: string;
  const connect = () =>
    psql(through(gh.gatehouse.dbAddr?.port as number, 'app', 'moving', 'test'), mallory.token, ['-c', 'select 1']);

  before(async () => {
    a = await startPasswordCatcher();
    b = await startPasswordCatcher();
    const created = await admin('POST', '/v1/resources', {
      kind: 'database',
      name: 'moving',
      address: a.address,
      protocol: 'postgres',
      labels: { env: 'mv' },
      db: {
        users: [{ name: 'app', password: APP_PASSWORD }],
        read_only_login: { name: 'reader', password: READER_PASSWORD },
      },
    });
    assert.equal(created.status, 201, created.text);
    dbId = created.json.id;
    // The catcher does catch: the registered address gets the password (the control for "never").
    await connect();
    assert.deepEqual(a.seen, [{ user: 'app', password: APP_PASSWORD }]);
  });
  after(async () => {
    await a?.close();
    await b?.close();
  });

  test('a new address without the credentials is refused (409, naming db); the new address never gets the password', async () => {
    const moved = await as(mallory.token, 'PATCH', `/v1/resources/${dbId}`, { address: b.address });
    await connect();
    assert.deepEqual(b.seen, []);
    assert.equal(a.seen.length, 2);
    assert.equal(moved.status, 409, moved.text);
    assert.equal(moved.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.equal(moved.json.errors[0].path, '/body/db');
    assert.match(moved.json.detail, /send db again with the new address/);
    assert.ok(!moved.text.includes(APP_PASSWORD));
    assert.equal((await admin('GET', `/v1/resources/${dbId}`)).json.address, a.address);
  });

  test('the same move with the credentials sent again works, and only what was sent goes there', async () => {
    const moved = await as(mallory.token, 'PATCH', `/v1/resources/${dbId}`, {
      address: b.address,
      db: { users: [{ name: 'app', password: 'new-app-pw-for-b' }] },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.json.address, b.address);
    assert.deepEqual(moved.json.db.password_users, ['app']);
    assert.equal(moved.json.db.read_only_login, undefined, 'not sent again: dropped');
    await connect();
    assert.deepEqual(b.seen, [{ user: 'app', password: 'new-app-pw-for-b' }]);
  });

  test('a PATCH of labels or description keeps the credentials', async () => {
    const edited = await as(mallory.token, 'PATCH', `/v1/resources/${dbId}`, {
      description: 'moved to b',
      labels: { env: 'mv', team: 'data' },
    });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual(edited.json.db.password_users, ['app']);
    await connect();
    assert.deepEqual(b.seen.at(-1), { user: 'app', password: 'new-app-pw-for-b' });
  });

  test('a database holding no secret moves freely; db: {} drops the secrets in the same request', async () => {
    const bare = await admin('POST', '/v1/resources', {
      kind: 'database',
      name: 'bare',
      address: '127.0.0.1:5432',
      protocol: 'postgres',
      labels: { env: 'mv' },
    });
    const moved = await as(mallory.token, 'PATCH', `/v1/resources/${bare.json.id}`, { address: '127.0.0.1:5433' });
    assert.equal(moved.status, 200, moved.text);
    const dropped = await as(mallory.token, 'PATCH', `/v1/resources/${dbId}`, { address: a.address, db: {} });
    assert.equal(dropped.status, 200, dropped.text);
    assert.deepEqual(dropped.json.db.password_users, []);
    const seenBefore = a.seen.length;
    const r = await connect();
    assert.match(r.stderr, /the database asks for a password and Gatehouse holds none/);
    assert.equal(a.seen.length, seenBefore);
  });
});

describe('the read-only login', () => {
  test('a db_read_only session logs in as it with its password, which no answer and no file of the data dir holds', async () => {
    const c = await startPasswordCatcher();
    try {
      const role = await admin('POST', '/v1/roles', {
        name: 'mv-reader',
        allow: {
          resources: [{ kinds: ['database'], labels: { env: 'ro-sealed' } }],
          db_users: ['app'],
          db_names: ['test'],
        },
        options: { db_read_only: true },
      });
      assert.equal(role.status, 201, role.text);
      const rita = await userWithRoles(gh, 'rita', ['mv-reader']);
      const created = await admin('POST', '/v1/resources', {
        kind: 'database',
        name: 'ro-sealed',
        address: c.address,
        protocol: 'postgres',
        labels: { env: 'ro-sealed' },
        db: {
          users: [{ name: 'app', password: APP_PASSWORD }],
          read_only_login: { name: 'reader', password: READER_PASSWORD },
        },
      });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.json.db.read_only_login, { name: 'reader', password: true });
      await psql(through(gh.gatehouse.dbAddr?.port as number, 'app', 'ro-sealed', 'test'), rita.token, [
        '-c',
        'select 1',
      ]);
      assert.deepEqual(c.seen, [{ user: 'reader', password: READER_PASSWORD }]);
      const answers = [created.text, (await admin('GET', `/v1/resources/${created.json.id}`)).text];
      answers.push((await admin('GET', '/v1/events?per_page=100')).text);
      for (const text of answers) assert.ok(!text.includes(READER_PASSWORD), 'the password in an answer');
      const files: string[] = [];
      const walk = (dir: string) => {
        for (const e of readdirSync(dir)) {
          const p = join(dir, e);
          if (statSync(p).isDirectory()) walk(p);
          else files.push(p);
        }
      };
      walk(gh.dataDir);
      assert.ok(files.some((f) => f.endsWith('state.db')));
      for (const f of files) assert.ok(!readFileSync(f).includes(READER_PASSWORD), `the password in ${f}`);
    } finally {
      await c.close();
    }
  });
});

describe('a Kubernetes cluster holding a token', () => {
  const ca = createKubeCa();
  let a: Awaited<ReturnType<typeof startTokenCatcher>>;
  let b: Awaited<ReturnType<typeof startTokenCatcher>>;
  let clusterId: string;

  /** GET pods through the Kubernetes proxy with mallory's kubeconfig. */
  async function getPods(): Promise<number> {
    const kc = await as(mallory.token, 'GET', `/v1/resources/${clusterId}/kubeconfig`);
    assert.equal(kc.status, 200, kc.text);
    const proxyCa = Buffer.from(kc.text.match(/certificate-authority-data: (\S+)/)?.[1] as string, 'base64');
    const token = kc.text.match(/token: (\S+)/)?.[1] as string;
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: gh.gatehouse.kubeAddr?.port as number,
          path: `/clusters/${clusterId}/api/v1/namespaces/default/pods`,
          headers: { authorization: `Bearer ${token}` },
          ca: proxyCa,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  before(async () => {
    // Both under the registered CA: the worst case, where TLS verification alone would not stop the move.
    a = await startTokenCatcher(issueServerCertificate(ca, ['127.0.0.1']));
    b = await startTokenCatcher(issueServerCertificate(ca, ['127.0.0.1']));
    const created = await admin('POST', '/v1/resources', {
      kind: 'kube_cluster',
      name: 'moving-cluster',
      address: a.url,
      labels: { env: 'mv' },
      kube: { ca_pem: ca.certPem, token: 'sa-token-of-a' },
    });
    assert.equal(created.status, 201, created.text);
    clusterId = created.json.id;
    await getPods();
    await until('the request at a', async () => (a.seen.length > 0 ? true : undefined));
    assert.deepEqual(a.seen, ['Bearer sa-token-of-a']);
  });
  after(async () => {
    await a?.close();
    await b?.close();
  });

  test('a new API server address without kube is refused (409, naming kube); it never gets the token', async () => {
    const moved = await as(mallory.token, 'PATCH', `/v1/resources/${clusterId}`, { address: b.url });
    await getPods();
    assert.deepEqual(b.seen, []);
    assert.equal(moved.status, 409, moved.text);
    assert.equal(moved.json.errors[0].path, '/body/kube');
    // Positive control: with kube sent again the move works, and b gets only the token sent with it.
    const resent = await as(mallory.token, 'PATCH', `/v1/resources/${clusterId}`, {
      address: b.url,
      kube: { ca_pem: ca.certPem, token: 'sa-token-for-b' },
    });
    assert.equal(resent.status, 200, resent.text);
    await getPods();
    assert.deepEqual(b.seen, ['Bearer sa-token-for-b']);
    // Labels alone keep the credential.
    const labelled = await as(mallory.token, 'PATCH', `/v1/resources/${clusterId}`, {
      labels: { env: 'mv', team: 'k' },
    });
    assert.equal(labelled.status, 200, labelled.text);
    assert.equal(labelled.json.kube.credential, 'token');
    await getPods();
    assert.deepEqual(b.seen, ['Bearer sa-token-for-b', 'Bearer sa-token-for-b']);
  });
});
