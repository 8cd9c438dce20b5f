// An agent acting for a user (RFC 8693 token exchange) over SSH, end to end with real parts: a real
// sshd as the target and the real OpenSSH client through Gatehouse. Both ways in — a one-time ticket
// asked for with the delegated token, and the delegated token itself as the password — must act with
// agent ∩ owner ∩ user: only what the user may reach, the most restrictive session options of the
// three (the user's max_session_ttl, record_session: strict, record_input), and every session event
// and the session record naming the user in on_behalf_of (README, "AI agents" and "SSH access").
// Positive controls: the same agent without delegation reaches what its own rights allow, with its
// own options and no on_behalf_of; the user's allowed server works through the delegated path.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { type SshClientOptions, type SshRun, sshExec } from './helpers/ssh-client.js';
import { requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** Bytes of recording one session may use; past it a strict session is ended, a best_effort one goes on. */
const RECORDING_BOUND = 65_536;

interface Ref {
  kind: string;
  id?: string;
  name?: string;
}
interface Event {
  type: string;
  actor: Ref;
  session_id?: string;
  target?: Ref;
  data: Record<string, unknown>;
}
interface SessionRow {
  id: string;
  type: string;
  status: string;
  command?: string;
  login: string;
  principal: Ref;
  resource: Ref;
  end_reason?: string;
  on_behalf_of?: Ref;
  recording: { status: string; truncated?: boolean };
}

if (requireSshd('SSH sessions of an agent acting for a user')) {
  describe('an agent acting for a user over SSH (delegated token, ticket and token as password)', () => {
    let gh: TestServer;
    let sshd: Sshd;
    let dir: string;
    let login: string;
    let agent: { id: string; name: string };
    /** The agent's own access token (no delegation). */
    let agentToken: string;
    /** ursula: dev servers only, one login; record_session strict, max_session_ttl 3s. */
    let ursula: { id: string; token: string };
    /** ingrid: dev servers only, one login; record_input. */
    let ingrid: { id: string; token: string };
    /** The agent's tokens acting for each user. */
    let forUrsula: string;
    let forIngrid: string;

    const admin = (method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token: gh.adminToken, ...(body !== undefined ? { body } : {}) });
    const as = (token: string, method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token, ...(body !== undefined ? { body } : {}) });
    const events = async (type: string, extra = '') =>
      (await admin('GET', `/v1/events?type=${type}&per_page=100${extra}`)).json.events as Event[];
    const session = async (id: string) => (await admin('GET', `/v1/sessions/${id}`)).json as SessionRow;
    const exchange = async (subjectToken: string): Promise<string> => {
      const res = await api(gh.url, 'POST', '/v1/auth/token', {
        body: { grant_type: EXCHANGE, subject_token: subjectToken, actor_token: agentToken },
      });
      assert.equal(res.status, 200, res.text);
      return res.json.access_token as string;
    };
    /** A one-time ticket asked for with token (POST /v1/sessions). */
    const ticketFor = (token: string, server: string, loginName: string) =>
      as(token, 'POST', '/v1/sessions', { server, login: loginName });
    const ssh = (
      command: string | undefined,
      password: string,
      user: string,
      extra: Partial<SshClientOptions> = {},
    ): Promise<SshRun> =>
      sshExec(command, {
        port: gh.gatehouse.sshAddr?.port as number,
        user,
        password,
        timeoutMs: 40_000,
        ...extra,
      });
    /** The agent's session that ran this (unique) command, once it exists. */
    const sessionOf = (command: string) =>
      until(`the agent's session running ${JSON.stringify(command)}`, async () => {
        const list = (await admin('GET', `/v1/sessions?per_page=100&principal=${agent.id}`)).json
          .sessions as SessionRow[];
        return list.find((s) => s.command === command);
      });
    const finished = (id: string) =>
      until(`the end of ${id}`, async () => {
        const s = await session(id);
        return s.status !== 'active' ? s : undefined;
      });
    const uploaded = (id: string) =>
      until(`the uploaded recording of ${id}`, async () => {
        const s = await session(id);
        return s.recording.status === 'uploaded' ? s : undefined;
      });
    const eventOf = (type: string, sessionId: string) =>
      until(`the ${type} event of ${sessionId}`, async () => (await events(type, `&session_id=${sessionId}`))[0]);
    const marker = (what: string) => `${what}-${randomBytes(4).toString('hex')}`;
    const castLines = async (id: string) => {
      const cast = await admin('GET', `/v1/sessions/${id}/recording`);
      assert.equal(cast.status, 200, cast.text);
      return cast.text
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => JSON.parse(l) as [number, string, string]);
    };
    const userRef = (u: { id: string }, name: string) => ({ kind: 'user', id: u.id, name });
    const TRAIL = ['session.start', 'session.command', 'session.end'] as const;
    /**
     * What names the user for a finished session: the record's on_behalf_of and each event's
     * data.on_behalf_of, in one object so that a failure shows every missing one at once.
     */
    const trailOf = async (s: SessionRow): Promise<Record<string, unknown>> => {
      const trail: Record<string, unknown> = { 'GET /v1/sessions/{id} on_behalf_of': s.on_behalf_of };
      for (const type of TRAIL) {
        const e = await eventOf(type, s.id);
        assert.equal(e.actor.id, agent.id, `${type}: the agent is the actor`);
        trail[`${type} data.on_behalf_of`] = e.data.on_behalf_of;
      }
      return trail;
    };
    const expectedTrail = (ref: Ref) => ({
      'GET /v1/sessions/{id} on_behalf_of': ref,
      ...Object.fromEntries(TRAIL.map((type) => [`${type} data.on_behalf_of`, ref])),
    });

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gh-ssh-delegated-'));
      sshd = await startSshd();
      login = sshd.login;
      gh = await startTestServer({
        'recordings.session_max_bytes': RECORDING_BOUND,
        'login_throttle.max_failures': 100_000,
      });
      // Two servers on the same sshd: dev-1 (everyone here may reach it), prod-1 (only the agent).
      for (const [name, env] of [
        ['dev-1', 'dev'],
        ['prod-1', 'prod'],
      ] as const) {
        const srv = await admin('POST', '/v1/resources', {
          kind: 'server',
          name,
          address: `127.0.0.1:${sshd.port}`,
          labels: { env },
        });
        assert.equal(srv.status, 201, srv.text);
        sshd.authorize(srv.json.ssh_public_key);
      }
      const sessionsRule = { resources: ['sessions'], verbs: ['list', 'read', 'create'] };
      const roles = [
        {
          // The agent's own: every server, two logins, a long TTL, best_effort recording, no input.
          name: 'agent-wide',
          allow: { rules: [sessionsRule], resources: [{ kinds: ['server'] }], logins: [login, 'deploy'] },
          options: { max_session_ttl: '30s' },
        },
        {
          name: 'user-strict-short',
          allow: { rules: [sessionsRule], resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: [login] },
          options: { record_session: 'strict', max_session_ttl: '3s' },
        },
        {
          name: 'user-input',
          allow: { rules: [sessionsRule], resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: [login] },
          options: { record_input: true },
        },
      ];
      for (const role of roles) {
        const res = await admin('POST', '/v1/roles', role);
        assert.equal(res.status, 201, res.text);
      }
      // The owner is an admin whose logins (root and its traits) cover the agent's.
      const owner = await admin('POST', '/v1/users', {
        name: 'olga',
        roles: ['admin'],
        traits: { logins: [login, 'deploy'] },
      });
      assert.equal(owner.status, 201, owner.text);
      const created = await admin('POST', '/v1/agents', {
        name: 'ops-bot',
        roles: ['agent-wide'],
        owner: owner.json.id,
      });
      assert.equal(created.status, 201, created.text);
      agent = { id: created.json.id, name: created.json.name };
      const credential = await admin('POST', `/v1/agents/${agent.id}/credentials`, {});
      assert.equal(credential.status, 201, credential.text);
      agentToken = credential.json.access_token;

      ursula = await userWithRoles(gh, 'ursula', ['user-strict-short']);
      ingrid = await userWithRoles(gh, 'ingrid', ['user-input']);
      for (const u of [ursula, ingrid]) {
        const consent = await as(u.token, 'POST', `/v1/agents/${agent.id}/delegations`, {});
        assert.equal(consent.status, 201, consent.text);
      }
      forUrsula = await exchange(ursula.token);
      forIngrid = await exchange(ingrid.token);
    });

    after(async () => {
      await gh?.stop();
      await sshd?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    describe('positive controls (pass today)', () => {
      test('the agent on its own reaches what its rights allow, with its own options and no on_behalf_of', async () => {
        // A ticket for prod-1 (the user may not see it) and for login deploy (the user may not use it).
        assert.equal((await ticketFor(agentToken, 'dev-1', 'deploy')).status, 201, 'the agent may use login deploy');
        const ticket = await ticketFor(agentToken, 'prod-1', login);
        assert.equal(ticket.status, 201, ticket.text);
        const viaTicket = marker('agent-ticket');
        const run = await ssh(`echo ${viaTicket}`, ticket.json.ticket, `${login}@prod-1`);
        assert.equal(run.stdout, `${viaTicket}\n`, run.stderr);
        assert.equal(run.code, 0);

        // Its token as the password: prod-1 again, and a session longer than ursula's 3 s TTL lives on.
        const longer = `sleep 4; echo ${marker('agent-outlives-3s')}`;
        const started = Date.now();
        const run2 = await ssh(longer, agentToken, `${login}@prod-1`);
        assert.equal(run2.code, 0, run2.stderr);
        assert.match(run2.stdout, /agent-outlives-3s/);
        assert.ok(Date.now() - started >= 3_900);

        for (const command of [`echo ${viaTicket}`, longer]) {
          const s = await finished((await sessionOf(command)).id);
          assert.equal(s.status, 'ended');
          assert.equal(s.resource.name, 'prod-1');
          assert.equal(s.principal.id, agent.id);
          assert.equal(s.on_behalf_of, undefined, 'no delegation, no on_behalf_of on the record');
          for (const type of ['session.start', 'session.end']) {
            const e = await eventOf(type, s.id);
            assert.equal(e.actor.id, agent.id);
            assert.equal(e.data.on_behalf_of, undefined, `${type} of an undelegated agent names nobody`);
          }
        }
      });

      test("the user's allowed server works through the delegated path (ticket and token)", async () => {
        const ticket = await ticketFor(forUrsula, 'dev-1', login);
        assert.equal(ticket.status, 201, ticket.text);
        assert.equal(ticket.json.ssh_username, `${login}@dev-1`);
        const a = marker('delegated-ticket-ok');
        const viaTicket = await ssh(`echo ${a}`, ticket.json.ticket, `${login}@dev-1`);
        assert.equal(viaTicket.stdout, `${a}\n`, viaTicket.stderr);
        assert.equal(viaTicket.code, 0);
        const b = marker('delegated-token-ok');
        const viaToken = await ssh(`echo ${b}`, forIngrid, `${login}@dev-1`);
        assert.equal(viaToken.stdout, `${b}\n`, viaToken.stderr);
        assert.equal(viaToken.code, 0);
      });
    });

    describe('one-time ticket asked for with a delegated token', () => {
      test("a server or login the user may not reach gets no ticket (the agent's own rights are wider)", async () => {
        const hidden = await ticketFor(forUrsula, 'prod-1', login);
        assert.equal(hidden.status, 404, `prod-1 does not exist for ursula: ${hidden.text}`);
        assert.equal(hidden.json.ticket, undefined);
        const badLogin = await ticketFor(forUrsula, 'dev-1', 'deploy');
        assert.equal(badLogin.status, 403, badLogin.text);
        assert.match(badLogin.json.detail, /login deploy is not allowed on dev-1/);
        assert.equal(badLogin.json.ticket, undefined);
      });

      test('the ticket is redeemed with the user’s rights: consent withdrawn after issuance refuses it', async () => {
        const walt = await userWithRoles(gh, 'walt', ['user-input']);
        assert.equal((await as(walt.token, 'POST', `/v1/agents/${agent.id}/delegations`, {})).status, 201);
        const forWalt = await exchange(walt.token);
        const ticket = await ticketFor(forWalt, 'dev-1', login);
        assert.equal(ticket.status, 201, ticket.text);
        const withdrawn = await as(walt.token, 'DELETE', `/v1/agents/${agent.id}/delegations/${walt.id}`);
        assert.equal(withdrawn.status, 200, withdrawn.text);
        const m = marker('after-withdrawal');
        const run = await ssh(`echo ${m}`, ticket.json.ticket, `${login}@dev-1`);
        assert.doesNotMatch(run.stdout, new RegExp(m), 'the agent acted for walt after walt withdrew consent');
        assert.equal(run.code, 255, run.stderr);
      });

      test("the session ends at the user's max_session_ttl (3 s; the agent's is 30 s)", async () => {
        const ticket = await ticketFor(forUrsula, 'dev-1', login);
        assert.equal(ticket.status, 201, ticket.text);
        const command = `sleep 12; echo ${marker('ticket-ttl')}`;
        const started = Date.now();
        const run = await ssh(command, ticket.json.ticket, `${login}@dev-1`);
        const took = Date.now() - started;
        assert.ok(took < 8_000, `the session lasted ${took} ms: the user's 3 s max_session_ttl was not applied`);
        assert.notEqual(run.code, 0);
        assert.match(run.stderr, /max_session_ttl/);
        const s = await finished((await sessionOf(command)).id);
        assert.equal(s.status, 'terminated');
        assert.match(s.end_reason ?? '', /max_session_ttl/);
      });

      test("recording is strict, as the user's role says: the session ends at the recording bound", async () => {
        const ticket = await ticketFor(forUrsula, 'dev-1', login);
        assert.equal(ticket.status, 201, ticket.text);
        const command = `head -c 300000 /dev/zero | tr "\\0" s; echo ${marker('ticket-strict')}`;
        const run = await ssh(command, ticket.json.ticket, `${login}@dev-1`);
        assert.doesNotMatch(run.stdout, /ticket-strict/, 'the session ran past the recording bound (best_effort)');
        assert.notEqual(run.code, 0);
        assert.match(run.stderr, /session ended at the recording limit/);
        const s = await finished((await sessionOf(command)).id);
        assert.equal(s.status, 'terminated');
        assert.match(s.end_reason ?? '', /recording limit/);
      });

      test("input is recorded, as the user's role (record_input) says", async () => {
        const ticket = await ticketFor(forIngrid, 'dev-1', login);
        assert.equal(ticket.status, 201, ticket.text);
        const m = marker('typed');
        const run = await ssh(undefined, ticket.json.ticket, `${login}@dev-1`, {
          tty: true,
          stdin: `echo ${m}; exit 0\n`,
        });
        assert.equal(run.code, 0, run.stderr);
        const s = await until('the shell session of the ticket', async () => {
          const list = (await admin('GET', `/v1/sessions?per_page=100&principal=${agent.id}&type=shell`)).json
            .sessions as SessionRow[];
          return list[0];
        });
        const lines = await castLines((await uploaded(s.id)).id);
        assert.ok(
          lines.some((e) => e[1] === 'o' && e[2].includes(m)),
          'positive control: the output is recorded',
        );
        const input = lines
          .filter((e) => e[1] === 'i')
          .map((e) => e[2])
          .join('');
        assert.ok(input.includes(`echo ${m}; exit 0`), `no input recorded (record_input of the user): ${input}`);
      });

      test('session.start, session.command, session.end and the session record name the user (on_behalf_of)', async () => {
        const ticket = await ticketFor(forUrsula, 'dev-1', login);
        assert.equal(ticket.status, 201, ticket.text);
        const command = `echo ${marker('ticket-obo')}`;
        const run = await ssh(command, ticket.json.ticket, `${login}@dev-1`);
        assert.equal(run.code, 0, run.stderr);
        const s = await finished((await sessionOf(command)).id);
        assert.equal(s.principal.id, agent.id, 'the agent is the principal');
        assert.deepEqual(await trailOf(s), expectedTrail(userRef(ursula, 'ursula')), 'the user is named everywhere');
      });
    });

    describe('the delegated access token as the SSH password', () => {
      test('a server or login the user may not reach is refused on the terminal', async () => {
        const m = marker('should-not-run');
        const hidden = await ssh(`echo ${m}`, forUrsula, `${login}@prod-1`);
        assert.notEqual(hidden.code, 0);
        assert.doesNotMatch(hidden.stdout, new RegExp(m));
        assert.match(hidden.stderr, /no server named prod-1 that ops-bot may reach/);
        const badLogin = await ssh(`echo ${m}`, forUrsula, `deploy@dev-1`);
        assert.notEqual(badLogin.code, 0);
        assert.doesNotMatch(badLogin.stdout, new RegExp(m));
        assert.match(badLogin.stderr, /login deploy is not allowed on dev-1 \(allowed: /);
      });

      test("the session ends at the user's max_session_ttl (3 s; the agent's is 30 s)", async () => {
        const command = `sleep 12; echo ${marker('token-ttl')}`;
        const started = Date.now();
        const run = await ssh(command, forUrsula, `${login}@dev-1`);
        const took = Date.now() - started;
        assert.ok(took < 8_000, `the session lasted ${took} ms: the user's 3 s max_session_ttl was not applied`);
        assert.notEqual(run.code, 0);
        assert.match(run.stderr, /max_session_ttl/);
        const s = await finished((await sessionOf(command)).id);
        assert.equal(s.status, 'terminated');
        assert.match(s.end_reason ?? '', /max_session_ttl/);
      });

      test("recording is strict, as the user's role says: the session ends at the recording bound", async () => {
        const command = `head -c 300000 /dev/zero | tr "\\0" t; echo ${marker('token-strict')}`;
        const run = await ssh(command, forUrsula, `${login}@dev-1`);
        assert.doesNotMatch(run.stdout, /token-strict/, 'the session ran past the recording bound (best_effort)');
        assert.notEqual(run.code, 0);
        assert.match(run.stderr, /session ended at the recording limit/);
        const s = await finished((await sessionOf(command)).id);
        assert.equal(s.status, 'terminated');
      });

      test('session.rejected, session.start, session.command, session.end and the session record name the user (on_behalf_of)', async () => {
        const refused = await ssh('true', forIngrid, 'deploy@prod-1');
        assert.notEqual(refused.code, 0);
        const rejected = await until('the rejection of deploy@prod-1', async () =>
          (await events('session.rejected')).find(
            (e) => e.actor.id === agent.id && e.data.login === 'deploy' && e.data.server === 'prod-1',
          ),
        );
        const command = `echo ${marker('token-obo')}`;
        const run = await ssh(command, forIngrid, `${login}@dev-1`);
        assert.equal(run.code, 0, run.stderr);
        const s = await finished((await sessionOf(command)).id);
        assert.equal(s.principal.id, agent.id, 'the agent is the principal');
        const ingridRef = userRef(ingrid, 'ingrid');
        assert.deepEqual(
          { 'session.rejected data.on_behalf_of': rejected.data.on_behalf_of, ...(await trailOf(s)) },
          { 'session.rejected data.on_behalf_of': ingridRef, ...expectedTrail(ingridRef) },
          'the user is named everywhere',
        );
      });
    });
  });
}
