// Watching a live SSH session (GET /v1/sessions/{id}/stream) with a real sshd and OpenSSH client:
// the viewer gets the header and what was recorded before it joined, then each line as it happens,
// then `event: end`; it is read-only, recorded as session.observed, and needs recordings:read. And the
// sessions list's server-side search by command and by recorded text.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { sshExec } from './helpers/ssh-client.js';
import { requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

interface SseMessage {
  event: string;
  data: string;
}

/** Reads server-sent events until `stop` says enough (or the stream ends). */
async function readEvents(res: Response, stop: (messages: SseMessage[]) => boolean): Promise<SseMessage[]> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const messages: SseMessage[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut = buffer.indexOf('\n\n');
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf('\n\n');
      if (block.startsWith(':')) continue;
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      messages.push({ event, data: /^data: (.*)$/m.exec(block)?.[1] ?? '' });
    }
    if (stop(messages)) break;
  }
  await reader.cancel().catch(() => undefined);
  return messages;
}

if (requireSshd('live session view')) {
  describe('live session stream', () => {
    let gh: TestServer;
    let sshd: Sshd;
    let login: string;
    const ssh = (command: string) =>
      sshExec(command, {
        port: gh.gatehouse.sshAddr?.port as number,
        user: `${login}@web-1`,
        password: gh.adminToken,
        timeoutMs: 30_000,
      });
    const liveSession = (command: string) =>
      until('the session to be live with output', async () => {
        const list = await api(gh.url, 'GET', '/v1/sessions?status=active', { token: gh.adminToken });
        const s = list.json.sessions.find((x: { command?: string }) => x.command === command);
        return s && s.bytes_out > 0 ? (s.id as string) : undefined;
      });

    before(async () => {
      sshd = await startSshd();
      login = sshd.login;
      gh = await startTestServer();
      const srv = await api(gh.url, 'POST', '/v1/resources', {
        token: gh.adminToken,
        body: { kind: 'server', name: 'web-1', address: `127.0.0.1:${sshd.port}` },
      });
      assert.equal(srv.status, 201, srv.text);
      sshd.authorize(srv.json.ssh_public_key);
    });
    after(async () => {
      await gh?.stop();
      await sshd?.stop();
    });

    test('a viewer sees what came before it joined, then each line live, then the end', async () => {
      const command = 'echo before-the-viewer; sleep 1.5; echo while-watched; sleep 0.5; echo last-line';
      const running = ssh(command);
      const id = await liveSession(command);
      const res = await fetch(`${gh.webUrl}/v1/sessions/${id}/stream`, {
        headers: { authorization: `Bearer ${gh.adminToken}` },
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      const messages = await readEvents(res, (m) => m.some((x) => x.event === 'end'));
      const data = messages.filter((m) => m.event === 'message').map((m) => JSON.parse(m.data));
      assert.equal(data[0].version, 2, 'the asciicast header comes first');
      const output = data
        .slice(1)
        .filter((e) => e[1] === 'o')
        .map((e) => e[2])
        .join('');
      assert.match(output, /before-the-viewer[\s\S]*while-watched[\s\S]*last-line/);
      assert.deepEqual(JSON.parse(messages.at(-1)?.data ?? '{}'), { reason: 'ended' });
      const run = await running;
      assert.match(run.stdout, /last-line/, 'watching changed nothing for the user');
      assert.equal(run.code, 0);

      const observed = await api(gh.url, 'GET', `/v1/events?type=session.observed&session_id=${id}`, {
        token: gh.adminToken,
      });
      assert.equal(observed.json.events.length, 1);
      assert.equal(observed.json.events[0].actor.name, 'admin');
    });

    test('needs recordings:read (an access-only user is 403; the admin above is the control); ended sessions are 409', async () => {
      const user = await userWithRoles(gh, 'no-recordings', ['access']);
      const command = 'echo hi; sleep 2';
      const running = ssh(command);
      const id = await liveSession(command);
      const denied = await api(gh.url, 'GET', `/v1/sessions/${id}/stream`, { token: user.token });
      assert.equal(denied.status, 403);
      await running;
      await until('the session to end', async () => {
        const r = await api(gh.url, 'GET', `/v1/sessions/${id}`, { token: gh.adminToken });
        return r.json.status === 'ended' ? true : undefined;
      });
      const ended = await api(gh.url, 'GET', `/v1/sessions/${id}/stream`, { token: gh.adminToken });
      assert.equal(ended.status, 409);
      assert.match(ended.json.detail, /play its recording/);
      const unknown = await api(gh.url, 'GET', '/v1/sessions/sess_00000000000000000000000000/stream', {
        token: gh.adminToken,
      });
      assert.equal(unknown.status, 404);
    });

    test('sessions are found by the text of their command, any case, on the server', async () => {
      const search = async (text: string) =>
        (await api(gh.url, 'GET', `/v1/sessions?command=${encodeURIComponent(text)}`, { token: gh.adminToken })).json
          .sessions as Array<{ command: string }>;
      const found = await search('WHILE-watched');
      assert.equal(found.length, 1);
      assert.match(found[0]?.command ?? '', /echo while-watched/);
      assert.equal((await search('no command has this')).length, 0);
      assert.ok((await search('echo')).length >= 2);
    });

    test('sessions are found by what their recording shows, any case, through the text index', async () => {
      const search = async (text: string) =>
        api(gh.url, 'GET', `/v1/sessions?text=${encodeURIComponent(text)}`, { token: gh.adminToken });
      // Indexed when the recording closes, a moment after the session ends.
      const found = await until('the recording to be indexed', async () => {
        const r = await search('LAST-LINE');
        return r.json.sessions.length > 0 ? r.json.sessions : undefined;
      });
      assert.equal(found.length, 1);
      assert.match(found[0].command, /echo last-line/);
      // The output, not the command line: "before-the-viewer" was printed, "sleep 1.5" was not.
      assert.equal((await search('before-the-viewer')).json.sessions.length, 1);
      assert.equal((await search('sleep 1.5')).json.sessions.length, 0);
      assert.equal((await search('nothing printed this')).json.sessions.length, 0);
      const short = await search('ab');
      assert.equal(short.status, 400);
      assert.equal(short.json.errors[0].path, '/query/text');
    });

    test('a viewer that goes away stops being fed; the session goes on', async () => {
      const command = 'echo one; sleep 1; echo two';
      const running = ssh(command);
      const id = await liveSession(command);
      const controller = new AbortController();
      const res = await fetch(`${gh.url}/v1/sessions/${id}/stream`, {
        headers: { authorization: `Bearer ${gh.adminToken}` },
        signal: controller.signal,
      });
      assert.equal(res.status, 200);
      await readEvents(res, (m) => m.length >= 2);
      controller.abort();
      const run = await running;
      assert.match(run.stdout, /two/);
      assert.equal(run.code, 0);
    });
  });
}
