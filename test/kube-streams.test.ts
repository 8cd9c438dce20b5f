// Streams through the Kubernetes proxy with the real kubectl: `get -w` (narrowed by kube_resources,
// interrupted), `logs -f` (lines as they come, and backpressure from a reader that stops reading
// all the way to the API server), `exec -it` on a terminal with a resize, and `cp` both ways — each
// checked as the user sees it (kubectl's output and exit code) and as the auditor does (events,
// sessions, recordings).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type FakeKube, startFakeKube } from './helpers/fake-kube-apiserver.js';
import { kubectl, kubectlTty } from './helpers/fake-kube-apiserver-kubectl.js';
import { startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { kubeClusterClient, SEE, type UserKubeconfig } from './helpers/kube-cluster.js';
import { until } from './helpers/until.js';

let gh: TestServer;
let fake: FakeKube;
let kc: UserKubeconfig;
const { admin, home, events, registerCluster, kubeconfigFor, removeHome } = kubeClusterClient(
  () => gh,
  'kube-streams-',
);
type Session = { id: string; status: string; command: string; exit_code?: number };
const sessionOf = (command: string) =>
  until(`the ended session of ${command}`, async () => {
    const list = (await admin('GET', '/v1/sessions?per_page=100')).json.sessions as Session[];
    const s = list.find((x) => x.command.endsWith(command));
    return s && s.status !== 'active' ? s : undefined;
  });
const castOf = async (id: string) => {
  const cast = await until('the recording', async () => {
    const r = await admin('GET', `/v1/sessions/${id}/recording`);
    return r.status === 200 ? r.text : undefined;
  });
  return cast
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as [number, string, string]);
};

before(async () => {
  fake = await startFakeKube({
    rbac: { ops: '*' },
    pods: [
      ['default', 'web-1'],
      ['default', 'chatty'],
      ['default', 'secret-1'],
    ],
  });
  gh = await startTestServer();
  await registerCluster(fake, 'stream-cluster');
  const role = await admin('POST', '/v1/roles', {
    name: 'kube-streams',
    allow: {
      ...SEE,
      kube_groups: ['ops'],
      kube_resources: [{ kind: 'pods', namespace: 'default', verbs: ['*'] }],
    },
    deny: { kube_resources: [{ kind: 'pods', name: 'secret-*', verbs: ['*'] }] },
  });
  assert.equal(role.status, 201, role.text);
  const sam = await userWithRoles(gh, 'sam', ['kube-streams']);
  kc = await kubeconfigFor(sam.token, 'sam');
});

after(async () => {
  await gh?.stop();
  await fake?.close();
  removeHome();
});

describe('watch and logs', () => {
  test('get -w streams what the role reaches as it happens; Ctrl-C ends it upstream too', async () => {
    let seen = '';
    const watching = kubectl(['get', 'pods', '-w', '-o', 'name'], {
      ...kc,
      onStdout: (s) => {
        seen = s;
      },
    });
    await until('the initial list', async () => (seen.includes('pod/web-1') ? true : undefined));
    // kubectl prints the list, then opens its watch: on a loaded machine the second comes a moment later.
    await until('the upstream watch to open', async () => (fake.openWatches() === 1 ? true : undefined));
    fake.addPod('default', 'secret-2');
    fake.addPod('default', 'web-2');
    await until('the new pod to stream', async () => (seen.includes('pod/web-2') ? true : undefined));
    watching.kill();
    const run = await watching;
    assert.equal(run.stdout, 'pod/web-1\npod/chatty\npod/web-2\n', 'secret-* never shown');
    await until('the upstream watch to close', async () => (fake.openWatches() === 0 ? true : undefined));
    const event = await until('the watch event', async () =>
      (await events('kube.request')).find((e) => e.data.verb === 'watch'),
    );
    assert.deepEqual([event.actor.name, event.data.resource, event.data.namespace], ['sam', 'pods', 'default']);
  });

  test('logs -f streams line by line; a denied pod’s log is refused', async () => {
    let seen = '';
    const following = kubectl(['logs', '-f', 'web-1'], {
      ...kc,
      onStdout: (s) => {
        seen = s;
      },
    });
    await until('followed lines', async () => (seen.includes('log line 4\n') ? true : undefined));
    following.kill();
    assert.match((await following).stdout, /^log line 1\nlog line 2\nlog line 3\nlog line 4\n/);
    const refused = await kubectl(['logs', 'secret-1'], kc);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Forbidden.*sam may not get pods secret-1 in namespace default/);
  });

  test('backpressure: a reader that stops reading stops the API server writing; reading again resumes it', async () => {
    const following = kubectl(['logs', '-f', 'chatty'], { ...kc, timeoutMs: 60_000 });
    following.pauseStdout();
    await until('the log to start', async () => (fake.chattyLogBytes() > 0 ? true : undefined));
    await sleep(3000);
    const stalled = fake.chattyLogBytes();
    await sleep(1500);
    const later = fake.chattyLogBytes();
    // Bounded by socket and pipe buffers (a few MiB), not by how fast the fake could write.
    assert.ok(stalled < 48 * 2 ** 20, `wrote ${stalled} bytes to a reader that reads nothing`);
    assert.ok(later - stalled < 2 ** 20, `kept writing: ${later - stalled} bytes in 1.5 s`);
    following.resumeStdout();
    await until('writing to resume', async () => (fake.chattyLogBytes() > later + 8 * 2 ** 20 ? true : undefined));
    following.kill();
    await following;
  });
});

describe('exec on a terminal, and cp', () => {
  test('exec -it: a shell on a pty, resized while it runs; exit code, recording with the resize', async () => {
    const run = await kubectlTty(['exec', '-it', 'web-1', '--', 'sh'], {
      ...kc,
      cols: 90,
      rows: 30,
      steps: [
        { wait: '$ ' },
        { send: 'size\r' },
        { wait: '90x30' },
        { resize: [132, 43] },
        // kubectl sends the new size on its own schedule after SIGWINCH.
        { sleep: 700 },
        { send: 'size\r' },
        { wait: '132x43' },
        { send: 'exit 7\r' },
      ],
    });
    assert.equal(run.code, 7, run.stdout + run.stderr);
    assert.match(run.stdout, /90x30[\s\S]*132x43/);
    const session = await sessionOf('default/web-1: sh');
    assert.deepEqual([session.status, session.exit_code], ['ended', 7]);
    const cast = await castOf(session.id);
    assert.ok(
      cast.some(([, type, data]) => type === 'r' && data === '132x43'),
      JSON.stringify(cast),
    );
    const text = cast
      .filter(([, type]) => type === 'o')
      .map(([, , d]) => d)
      .join('');
    assert.match(text, /\$ size\r\n90x30\r\n\$ size\r\n132x43\r\n/);
  });

  test('cp into the pod and back out: the same bytes, each direction a recorded exec of tar', async () => {
    const local = join(home, 'report.txt');
    const content = `line one\n${'x'.repeat(700)}\nend\n`;
    writeFileSync(local, content);
    const put = await kubectl(['cp', local, 'web-1:/tmp/report.txt'], kc);
    assert.equal(put.code, 0, put.stderr);
    assert.equal(fake.files.get('default/web-1:/tmp/report.txt')?.toString(), content);
    const back = join(home, 'back.txt');
    const get = await kubectl(['cp', 'web-1:/tmp/report.txt', back], kc);
    assert.equal(get.code, 0, get.stderr);
    assert.equal(readFileSync(back, 'utf8'), content);
    const sessions = (await admin('GET', '/v1/sessions?per_page=100')).json.sessions as Session[];
    assert.ok(sessions.some((s) => s.command.startsWith('default/web-1: tar') && s.command.includes('-xmf')));
    assert.ok(sessions.some((s) => s.command === 'default/web-1: tar cf - /tmp/report.txt'));
    // Control: a denied pod is refused before any tar runs.
    const refused = await kubectl(['cp', local, 'secret-1:/tmp/x'], kc);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Forbidden.*sam may not (get|exec) pods secret-1/);
  });
});
