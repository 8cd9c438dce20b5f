// Secrets without the seal key on proxies (issue 29): a joined proxy started with no seal key at all
// still opens SSH (real sshd), PostgreSQL (the machine's) and Kubernetes (kubectl against the fake API
// server) sessions, because its doors ask the auth tier for each session's credential; every issuance
// is in the audit trail without the secret; a proxy identity reads nothing under secrets/ (the CAs'
// public halves only), asks for no session of another proxy, and gets nothing for a principal the
// access checker refuses (positive control: the same ask for one it allows).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../src/config/load.js';
import { type Gatehouse, startGatehouse } from '../src/server.js';
import { sessionPrincipal } from '../src/sessions/session-registry.js';
import { type JoinedIdentity, joinIdentity, joinToken } from './helpers/cluster-join.js';
import { ADMIN_KEY, api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { provisionTargets, type Targets } from './helpers/proxy-targets.js';
import { requirePostgres } from './helpers/psql.js';
import { freePort, requireSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

const tmp = mkdtempSync(join(tmpdir(), 'gatehouse-secrets-'));
const sealKey = join(tmp, 'seal.key');
writeFileSync(sealKey, randomBytes(32), { mode: 0o600 });

let auth: TestServer;
let proxy: Gatehouse;
let proxyDir: string;
let targets: Targets;

const events = async (type: string) =>
  (await api(auth.url, 'GET', `/v1/events?type=${type}&per_page=100`, { token: auth.adminToken })).json
    .events as Array<{
    session_id?: string;
    target?: { id: string };
    success?: boolean;
    data: Record<string, unknown>;
  }>;

/** The origin a door names for a session opened with this token (as sessionPrincipal writes it). */
const originOf = async (token: string) => sessionPrincipal(auth.gatehouse.services.tokens.authenticate(token)).origin;

const ask = (who: JoinedIdentity, body: unknown) =>
  fetch(`${auth.url}/internal/v1/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...who.headers() },
    body: JSON.stringify(body),
  });

if (requirePostgres('secrets without the seal key') && requireSshd('secrets without the seal key')) {
  before(async () => {
    const kubePort = await freePort();
    auth = await startTestServer({
      roles: ['auth'],
      seal_key_file: sealKey,
      // Where a ticket's holder connects (the proxy's listener): the auth tier has no door of its own.
      db_public_addr: '127.0.0.1:5433',
      kube_public_url: `https://127.0.0.1:${kubePort}`,
    });
    proxyDir = mkdtempSync(join(tmp, 'proxy-'));
    // No seal_key_file, and none in its data dir: the proxy has nothing to open a secret with.
    proxy = await startGatehouse(
      loadConfig({
        env: {},
        overrides: {
          data_dir: proxyDir,
          roles: ['proxy'],
          web_addr: '127.0.0.1:0',
          ssh_addr: '127.0.0.1:0',
          kube_addr: `127.0.0.1:${kubePort}`,
          db_addr: '127.0.0.1:0',
          metrics_enabled: false,
          log_level: 'silent',
          'http.shutdown_drain': '0s',
          auth_servers: [new URL(auth.url).host],
          'cluster.join_token': await joinToken(auth),
        },
      }),
      {
        logger: pino(
          { level: process.env.PROXY_LOG ? 'debug' : 'silent' },
          process.env.PROXY_LOG ? pino.destination(process.env.PROXY_LOG) : undefined,
        ),
      },
    );
    targets = await provisionTargets({ url: auth.url, apiKey: ADMIN_KEY });
    // The proxy learns the targets through auth's watch; under load that lags, and a session opened
    // before it arrives is refused for a resource the proxy does not know yet.
    const revision = auth.gatehouse.services.state.cache.revision;
    await proxy.services.state.cache.waitFor(revision);
  });
  after(async () => {
    await targets?.stop();
    await proxy?.close();
    await auth?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  describe('a proxy without the seal key', () => {
    test('holds no seal key file, yet opens SSH, PostgreSQL and Kubernetes sessions; each credential is audited, never the secret', async () => {
      assert.equal(existsSync(join(proxyDir, 'webhook-secret.key')), false, 'no seal key in the proxy’s data dir');
      const ssh = await targets.ssh(proxy.sshAddr?.port as number, 'echo through-the-proxy');
      assert.equal(ssh.code, 0, ssh.stderr);
      assert.match(ssh.stdout, /through-the-proxy/);
      const sql = await targets.psql(proxy.dbAddr?.port as number, 'select 40 + 2');
      assert.equal(sql.code, 0, sql.stderr);
      assert.match(sql.stdout, /42/);
      const pods = await targets.kubectl(['get', 'pods', '-n', 'ops']);
      assert.equal(pods.code, 0, pods.stderr);

      const issued = await until('three issuances', async () => {
        const all = await events('cluster.credential.issued');
        const kinds = new Set(all.map((e) => e.data.credential));
        return kinds.has('ssh') && kinds.has('db') && kinds.has('kube') ? all : undefined;
      });
      const db = issued.find((e) => e.data.credential === 'db');
      const sessions = await api(auth.url, 'GET', '/v1/sessions?per_page=100', { token: auth.adminToken });
      assert.ok(
        sessions.json.sessions.some((s: { id: string }) => s.id === db?.session_id),
        'the database credential was issued for the very session the records show',
      );
      for (const e of issued) assert.match(String(e.data.instance), /^prx_[0-9a-f]{16}-/, 'names the proxy');
      const trail = JSON.stringify(issued);
      assert.ok(!trail.includes(targets.fake.token), 'never the Kubernetes token');
      assert.ok(!/BEGIN|PRIVATE KEY|cert-v01/.test(trail), 'never a key or certificate');
    });
  });

  describe('a proxy identity', () => {
    let me: JoinedIdentity;
    before(async () => {
      me = await joinIdentity(auth);
    });

    test('reads nothing under secrets/; the CAs reach it as their public halves', async () => {
      const read = (op: string, arg: string) =>
        fetch(`${auth.url}/internal/v1/backend/${op}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...me.headers() },
          body: JSON.stringify({ args: [arg, {}] }),
        });
      assert.equal((await read('getRange', 'secrets/')).status, 403);
      const servers = await api(auth.url, 'GET', '/v1/servers', { token: auth.adminToken });
      const web1 = servers.json.servers?.[0]?.id ?? servers.json.resources?.[0]?.id;
      assert.equal((await read('get', `secrets/servers/${web1}`)).status, 403, 'a server’s key');
      assert.equal((await read('get', 'secrets/cluster-signing-key')).status, 403);
      const all = await read('getRange', '');
      const keys = ((await all.json()) as { result: Array<{ key: string; value: string }> }).result;
      assert.ok(keys.length > 0, 'positive control: the rest of the state is readable');
      assert.ok(!keys.some((i) => i.key.startsWith('secrets/') && i.value.includes('sealed')), 'no sealed field');
      const ca = await read('get', 'secrets/ssh-user-ca');
      assert.equal(ca.status, 200);
      const value = JSON.parse(((await ca.json()) as { result: { value: string } }).result.value);
      assert.match(value.public_key, /^ssh-ed25519 /);
      assert.equal(value.private_sealed, undefined);
    });

    test('gets no credential for another proxy’s session, nor for a principal without access (positive control: one with)', async () => {
      // A live session of the real proxy, held open.
      const held = targets.ssh(proxy.sshAddr?.port as number, 'sleep 4');
      const live = await until('the live ssh session', async () =>
        auth.gatehouse.services.sessionRegistry.list().find((s) => s.status === 'active' && s.kind === 'ssh'),
      );
      const grounds = {
        session_id: live.id,
        kind: 'ssh',
        principal: live.principal,
        resource: live.resource,
        login: live.login,
        ...(live.origin ? { origin: live.origin } : {}),
      };
      const sshAsk = { kind: 'ssh', public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5', permit_port_forwarding: false };
      const theirs = await ask(me, { ...sshAsk, grounds });
      assert.equal(theirs.status, 403, await theirs.clone().text());
      assert.match(((await theirs.json()) as { detail: string }).detail, /not this proxy's/);
      await held;

      const dbId = (await api(auth.url, 'GET', '/v1/databases', { token: auth.adminToken })).json.databases?.[0]
        ?.id as string;
      const nobody = await userWithRoles(auth, 'no-db-access', []);
      const fresh = () => `sess_${randomBytes(13).toString('hex').slice(0, 26)}`;
      const dbGrounds = (principal: { kind: string; id: string; name: string }) => ({
        session_id: fresh(),
        kind: 'db',
        principal,
        resource: { kind: 'database', id: dbId, name: 'pg' },
        login: 'postgres',
        db_name: 'test',
      });
      const refused = await ask(me, {
        kind: 'db',
        read_only: false,
        grounds: {
          ...dbGrounds({ kind: 'user', id: nobody.id, name: 'no-db-access' }),
          origin: await originOf(nobody.token),
        },
        proof: { kind: 'token', token: nobody.token },
      });
      assert.equal(refused.status, 403, await refused.clone().text());
      const door = (await api(auth.url, 'GET', '/v1/users?per_page=100', { token: auth.adminToken })).json.users.find(
        (u: { name: string }) => u.name === 'door',
      );
      const allowed = await ask(me, {
        kind: 'db',
        read_only: false,
        grounds: { ...dbGrounds({ kind: 'user', id: door.id, name: 'door' }), origin: await originOf(targets.token) },
        proof: { kind: 'token', token: targets.token },
      });
      assert.equal(allowed.status, 200, `positive control: ${await allowed.clone().text()}`);
      assert.equal(((await allowed.json()) as { result: { user: string } }).result.user, 'postgres');
      const refusals = await events('cluster.credential.refused');
      assert.ok(refusals.some((e) => e.success === false && e.data.reason === 'not_its_session'));
      assert.ok(
        refusals.some((e) => e.target?.id === dbId && e.data.reason === 'access_revoked'),
        JSON.stringify(refusals),
      );
    });
  });

  // A hostile proxy: its own identity is valid, and it names alice. Without alice's own proof
  // (her token, her ticket, her SSH signature) the auth tier issues nothing, and says why in the trail.
  describe('a proxy naming a principal who is not connected through it', () => {
    let me: JoinedIdentity;
    let alice: Awaited<ReturnType<typeof userWithRoles>>;
    let bob: Awaited<ReturnType<typeof userWithRoles>>;
    let dbId: string;
    before(async () => {
      me = await joinIdentity(auth);
      const role = await api(auth.url, 'POST', '/v1/roles', {
        token: auth.adminToken,
        body: { name: 'ticket-asker', allow: { rules: [{ resources: ['sessions'], verbs: ['create'] }] } },
      });
      assert.equal(role.status, 201, role.text);
      alice = await userWithRoles(auth, 'alice', ['door-user', 'ticket-asker']);
      bob = await userWithRoles(auth, 'bob', ['door-user', 'ticket-asker']);
      dbId = (await api(auth.url, 'GET', '/v1/databases', { token: auth.adminToken })).json.databases?.[0]?.id;
    });
    const asAlice = async (proof: unknown, origin?: unknown) => ({
      kind: 'db',
      read_only: false,
      grounds: {
        session_id: `sess_${randomBytes(13).toString('hex').slice(0, 26)}`,
        kind: 'db',
        principal: { kind: 'user', id: alice.id, name: 'alice' },
        resource: { kind: 'database', id: dbId, name: 'pg' },
        login: 'postgres',
        db_name: 'test',
        origin: origin ?? (await originOf(alice.token)),
      },
      ...(proof === undefined ? {} : { proof }),
    });
    const refusedFor = async (body: unknown) => {
      const res = await ask(me, body);
      const text = await res.text();
      assert.equal(res.status, 403, text);
      assert.ok(!text.includes('password'), 'no secret in the refusal');
      return JSON.parse(text) as { detail: string };
    };

    test('asks for alice’s database password without her proof, with bob’s token, or with her revoked token: 403 each, audited against the proxy; with her live token: 200', async () => {
      const none = await refusedFor(await asAlice(undefined));
      assert.match(none.detail, /proof/);
      const bobs = await refusedFor(await asAlice({ kind: 'token', token: bob.token }));
      assert.match(bobs.detail, /bob/);
      // Bob's token with the grounds rewritten to bob's origin still names alice as the principal.
      await refusedFor(await asAlice({ kind: 'token', token: bob.token }, await originOf(bob.token)));
      await refusedFor(await asAlice({ kind: 'token', token: `ghat_${'x'.repeat(43)}` }));

      // A second login of alice's, revoked: its token no longer proves anything.
      const second = await api(auth.url, 'POST', '/v1/auth/token', { body: { api_key: alice.apiKey } });
      assert.equal(second.status, 200, second.text);
      const gone = second.json.access_token as string;
      const origin = await originOf(gone);
      const revoked = await api(auth.url, 'DELETE', '/v1/auth/revoke', { token: gone });
      assert.equal(revoked.status, 200, revoked.text);
      const dead = await refusedFor(await asAlice({ kind: 'token', token: gone }, origin));
      assert.match(dead.detail, /does not stand/);

      // Positive control: alice's own live token, as the door forwards it.
      const live = await ask(me, await asAlice({ kind: 'token', token: alice.token }));
      const body = (await live.json()) as { result?: { user: string }; detail?: string };
      assert.equal(live.status, 200, `positive control: ${body.detail}`);
      assert.equal(body.result?.user, 'postgres');

      const refusals = (await events('cluster.credential.refused')).filter(
        (e) => (e as { actor?: { id?: string } }).actor?.id === alice.id,
      );
      const reasons = refusals.map((e) => e.data.reason);
      assert.ok(reasons.includes('proof_missing'), JSON.stringify(reasons));
      assert.ok(reasons.includes('proof_other_principal'), JSON.stringify(reasons));
      assert.equal(reasons.filter((r) => r === 'proof_invalid').length, 2, JSON.stringify(reasons));
      for (const e of refusals) {
        assert.equal(e.data.identity, me.instance, 'the refusal is the asking proxy’s');
        assert.ok(!JSON.stringify(e).includes(alice.token) && !JSON.stringify(e).includes(bob.token), 'no token');
      }
    });

    test('a ticket proves its holder once, for its own database and user: bob’s ticket naming alice is 403; alice’s twice is 403 the second time', async () => {
      const ticketOf = async (token: string) => {
        const t = await api(auth.url, 'POST', '/v1/sessions', {
          token,
          body: { database: 'pg', db_user: 'postgres', db_name: 'test' },
        });
        assert.equal(t.status, 201, t.text);
        return t.json.ticket as string;
      };
      // The origin a ticket's session carries: the token it was asked with.
      const ticketOrigin = async (token: string) => ({ ...(await originOf(token)), method: 'ticket' });
      const bobsTicket = await ticketOf(bob.token);
      await refusedFor(await asAlice({ kind: 'ticket', ticket: bobsTicket }, await ticketOrigin(alice.token)));
      await refusedFor(
        await asAlice({ kind: 'ticket', ticket: `ghs_${'y'.repeat(43)}` }, await ticketOrigin(alice.token)),
      );

      const hers = await ticketOf(alice.token);
      const first = await ask(me, await asAlice({ kind: 'ticket', ticket: hers }, await ticketOrigin(alice.token)));
      assert.equal(first.status, 200, `positive control: ${await first.text()}`);
      const again = await refusedFor(await asAlice({ kind: 'ticket', ticket: hers }, await ticketOrigin(alice.token)));
      assert.match(again.detail, /no such ticket|already/);
    });
  });
}
