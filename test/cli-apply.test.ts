// `gatehouse apply -f` and `gatehouse get` as an administrator runs them against a real Gatehouse:
// several kinds in one file created, then unchanged, then updated; what get prints applies back
// unchanged (every role, built-ins included); secrets are never printed; the first refused document
// stops the run with the server's reason and exit 1, the ones after it untouched. A change someone
// else makes between apply's read and its write is a conflict for that object, never overwritten;
// --dry-run shows what would change and writes nothing.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type CliHome, cliHome } from './helpers/cli.js';
import { ADMIN_KEY, requestsTo, startTestServer, type TestServer } from './helpers/gatehouse.js';

let server: TestServer;
let h: CliHome;
const { admin } = requestsTo(() => server);
const SECRET = 'connector-secret-never-printed-0123456789';

const FILE = `kind: role
name: apply-ops
spec:
  description: operators
  allow:
    rules:
      - resources: [events]
        verbs: [list]
---
kind: user
name: apply-bob
spec:
  roles: [apply-ops]
  traits:
    logins: [bob]
---
kind: resource
name: apply-web
spec:
  kind: server
  address: 127.0.0.1:2222
  labels:
    env: dev
---
kind: connector
name: apply-idp
spec:
  kind: oidc
  display_name: Apply IdP
  issuer: https://idp.example.com
  client_id: gatehouse
  client_secret: ${SECRET}
  claims_to_roles:
    - claim: groups
      value: ops
      roles: [apply-ops]
`;

const write = (name: string, text: string) => {
  const file = join(h.dir, name);
  writeFileSync(file, text);
  return file;
};

before(async () => {
  server = await startTestServer();
  h = cliHome();
  const login = await h.run(['login', '--proxy', server.webUrl], { env: { GATEHOUSE_API_KEY: ADMIN_KEY } });
  assert.equal(login.code, 0, login.stderr);
});
after(async () => {
  h?.remove();
  await server?.stop();
});

test('apply creates each kind, then finds them unchanged; a document with a secret is always sent', async () => {
  const file = write('all.yaml', FILE);
  const first = await h.run(['apply', '-f', file]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(
    first.stdout,
    'role/apply-ops created\nuser/apply-bob created\nresource/apply-web created\nconnector/apply-idp created\n',
  );
  const bob = await admin('GET', '/v1/users/apply-bob');
  assert.deepEqual(bob.json.roles, ['apply-ops']);
  assert.deepEqual(bob.json.traits, { logins: ['bob'] });

  const again = await h.run(['apply', '-f', file, '--format', 'json']);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(
    JSON.parse(again.stdout).map((r: { result: string }) => r.result),
    ['unchanged', 'unchanged', 'unchanged', 'updated'],
    'the connector carries its client secret, which Gatehouse never answers back: it is sent again',
  );

  const changed = write('changed.yaml', FILE.replace('description: operators', 'description: on call'));
  const third = await h.run(['apply', '-f', changed]);
  assert.equal(third.code, 0, third.stderr);
  assert.match(third.stdout, /^role\/apply-ops updated\nuser\/apply-bob unchanged\n/);
  assert.equal((await admin('GET', '/v1/roles/apply-ops')).json.description, 'on call');
});

test('get -o yaml applies back unchanged, for one object and for every role; secrets are never printed', async () => {
  for (const [kind, name] of [
    ['role', 'apply-ops'],
    ['user', 'apply-bob'],
    ['resource', 'apply-web'],
    ['connector', 'apply-idp'],
  ] as const) {
    const got = await h.run(['get', kind, name, '-o', 'yaml']);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, new RegExp(`^kind: ${kind}\nname: ${name}\nspec:\n`));
    assert.ok(!got.stdout.includes(SECRET), 'no secret in get');
    assert.ok(!/client_secret|created_at|\bid:/.test(got.stdout), got.stdout);
    const back = await h.run(['apply', '-f', write(`${kind}.yaml`, got.stdout)]);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(back.stdout, `${kind}/${name} unchanged\n`);
  }
  const roles = await h.run(['get', 'roles', '-o', 'yaml']);
  assert.equal(roles.code, 0, roles.stderr);
  const count = roles.stdout.split(/^---$/m).length;
  assert.ok(count >= 3, 'the built-in roles and apply-ops');
  const back = await h.run(['apply', '-f', write('roles.yaml', roles.stdout)]);
  assert.equal(back.code, 0, back.stderr);
  assert.equal(back.stdout.split('\n').filter((l) => l.endsWith(' unchanged')).length, count, back.stdout);

  const json = await h.run(['get', 'connector', 'apply-idp', '-o', 'json']);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.spec.issuer, 'https://idp.example.com');
  assert.equal(doc.spec.client_secret, undefined);
  const table = await h.run(['get', 'resources']);
  assert.match(table.stdout, /^KIND +NAME +DETAILS\n/);
  assert.match(table.stdout, /resource +apply-web +server 127\.0\.0\.1:2222/);
  const missing = await h.run(['get', 'role', 'no-such-role']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no role named no-such-role/);
});

test('apply stops at the first refused document with the server’s reason (exit 1); later ones untouched', async () => {
  const file = write(
    'refused.yaml',
    `kind: role
name: apply-before
spec: {allow: {rules: [{resources: [events], verbs: [list]}]}}
---
kind: role
name: admin
spec: {description: mine now, allow: {}}
---
kind: role
name: apply-after
spec: {allow: {rules: [{resources: [events], verbs: [list]}]}}
`,
  );
  const r = await h.run(['apply', '-f', file]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, 'role/apply-before created\n');
  assert.match(r.stderr, /^gatehouse: role\/admin: \w+: .*built-in.*\(request [^)]+\)\n$/);
  assert.equal((await admin('GET', '/v1/roles/apply-after')).status, 404, 'nothing after the refusal');
  assert.equal((await admin('GET', '/v1/roles/apply-before')).status, 200);
});

test('a malformed file applies nothing: the document and the field are named', async () => {
  const file = write(
    'bad.yaml',
    'kind: role\nname: apply-never\nspec: {allow: {}}\n---\nkind: widget\nname: x\nspec: {}\n',
  );
  const r = await h.run(['apply', '-f', file]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /bad\.yaml: document 2: unknown kind "widget": one of role, user, resource, connector, agent, webhook/,
  );
  assert.equal((await admin('GET', '/v1/roles/apply-never')).status, 404);
  const ro = await h.run(['apply', '-f', write('ro.yaml', 'kind: user\nname: x\nspec: {status: active}\n')]);
  assert.equal(ro.code, 1);
  assert.match(ro.stderr, /document 1: user x: status is set by Gatehouse/);
  assert.equal((await h.run(['apply'])).code, 2);
});

/**
 * A front between the CLI and Gatehouse that passes everything through, but runs `meanwhile` once
 * before it passes the first request matching `when`: a change someone else makes in the instant
 * between apply's read and its write, made to happen every time.
 */
const HOP_BY_HOP = ['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'expect', 'upgrade'];

async function frontWith(
  when: (method: string, url: string) => boolean,
  meanwhile: () => Promise<void>,
): Promise<{ url: string; close: () => Promise<void> }> {
  let pending = true;
  const front: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (pending && when(req.method ?? '', req.url ?? '')) {
        pending = false;
        await meanwhile();
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && !HOP_BY_HOP.includes(k)),
      ) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const answer = await fetch(server.webUrl + req.url, { method: req.method, headers, body });
      const out = Object.fromEntries(
        [...answer.headers].filter(([k]) => !['content-encoding', 'content-length', 'transfer-encoding'].includes(k)),
      );
      res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
    close: () => new Promise((r) => front.close(() => r())),
  };
}

test('a change someone else makes between apply’s read and its write is a conflict, never overwritten', async () => {
  const file = write(
    'race.yaml',
    `kind: role
name: apply-race
spec: {description: first, allow: {rules: [{resources: [events], verbs: [list]}]}}
---
kind: user
name: apply-race-user
spec: {roles: [], traits: {logins: [first]}}
`,
  );
  assert.equal((await h.run(['apply', '-f', file])).code, 0);
  const role = (await admin('GET', '/v1/roles/apply-race')).json;
  const user = (await admin('GET', '/v1/users/apply-race-user')).json;

  // Another administrator changes each object after apply has read it, before its write arrives.
  for (const [path, theirs, mine, read] of [
    [
      `/v1/roles/${role.id}`,
      { name: 'apply-race', description: 'theirs', allow: role.allow },
      'role/apply-race',
      (o: { description: string }) => o.description,
    ],
    [
      `/v1/users/${user.id}`,
      { traits: { logins: ['theirs'] } },
      'user/apply-race-user',
      (o: { traits: { logins: string[] } }) => o.traits.logins[0],
    ],
  ] as const) {
    const method = path.startsWith('/v1/roles') ? 'PUT' : 'PATCH';
    const front = await frontWith(
      (m, url) => m === method && url === path,
      async () => {
        const r = await admin(method, path, theirs);
        assert.equal(r.status, 200, r.text);
      },
    );
    const other = cliHome();
    try {
      const login = await other.run(['login', '--proxy', front.url], { env: { GATEHOUSE_API_KEY: ADMIN_KEY } });
      assert.equal(login.code, 0, login.stderr);
      const mineFile = write('race-mine.yaml', readFileSync(file, 'utf8').replaceAll('first', 'mine'));
      const r = await other.run(['apply', '-f', mineFile]);
      assert.equal(r.code, 1, `${r.stdout}${r.stderr}`);
      assert.equal(
        r.stderr,
        `gatehouse: ${mine}: changed by someone else since it was read; run apply again\n`,
        'one line naming the object',
      );
      const now = await admin('GET', path);
      assert.equal((read as (o: unknown) => unknown)(now.json), 'theirs', 'their change stands');
    } finally {
      other.remove();
      await front.close();
    }
  }
  // Read again, the same file applies over their change: the conflict was only about what was read.
  const again = await h.run([
    'apply',
    '-f',
    write('race-again.yaml', readFileSync(file, 'utf8').replaceAll('first', 'mine')),
  ]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal((await admin('GET', '/v1/roles/apply-race')).json.description, 'mine');
});

test('apply --dry-run shows what each document would create or change (secrets masked) and writes nothing', async () => {
  const before = {
    role: (await admin('GET', '/v1/roles/apply-ops')).json,
    user: (await admin('GET', '/v1/users/apply-bob')).json,
    resource: (await admin('GET', '/v1/resources?name=apply-web')).json.resources[0],
    connector: (await admin('GET', '/v1/auth/connectors/apply-idp')).json,
  };
  const file = write(
    'dry.yaml',
    `${FILE.replace('description: operators', 'description: night shift').replace(
      'env: dev',
      'env: prod\n    team: ops',
    )}---
kind: role
name: apply-dry-new
spec: {allow: {rules: [{resources: [events], verbs: [list]}]}}
`,
  );
  const r = await h.run(['apply', '-f', file, '--dry-run']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    [
      'role/apply-ops updated (dry run)',
      '  ~ description: "on call" → "night shift"',
      'user/apply-bob unchanged (dry run)',
      'resource/apply-web updated (dry run)',
      '  ~ labels.env: "dev" → "prod"',
      '  + labels.team: "ops"',
      'connector/apply-idp updated (dry run)',
      '  ~ client_secret: (write-only: sent again, not shown)',
      'role/apply-dry-new created (dry run)',
      'dry run: nothing was written',
      '',
    ].join('\n'),
  );
  assert.ok(!r.stdout.includes(SECRET));
  const json = await h.run(['apply', '-f', file, '--dry-run', '--format', 'json']);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout)[0], {
    kind: 'role',
    name: 'apply-ops',
    result: 'updated',
    changes: ['~ description: "on call" → "night shift"'],
    dry_run: true,
  });

  // Nothing was written: every object as it was (updated_at included), and no new role.
  assert.equal((await admin('GET', '/v1/roles/apply-dry-new')).status, 404);
  const after = {
    role: (await admin('GET', '/v1/roles/apply-ops')).json,
    user: (await admin('GET', '/v1/users/apply-bob')).json,
    resource: (await admin('GET', '/v1/resources?name=apply-web')).json.resources[0],
    connector: (await admin('GET', '/v1/auth/connectors/apply-idp')).json,
  };
  assert.deepEqual(after, before);
});

test('agents apply and get round-trip: created, unchanged, updated; an owner cannot change', async () => {
  const file = write(
    'agent.yaml',
    `kind: agent
name: apply-agent
spec:
  description: nightly reports
  roles: [apply-ops]
  labels: {team: ops}
`,
  );
  const created = await h.run(['apply', '-f', file]);
  assert.equal(created.code, 0, created.stderr);
  assert.equal(created.stdout, 'agent/apply-agent created\n');
  assert.equal((await h.run(['apply', '-f', file])).stdout, 'agent/apply-agent unchanged\n');
  const changed = await h.run([
    'apply',
    '-f',
    write('agent2.yaml', readFileSync(file, 'utf8').replace('nightly', 'weekly')),
  ]);
  assert.equal(changed.stdout, 'agent/apply-agent updated\n', changed.stderr);
  const page = await admin('GET', '/v1/agents?name=apply-agent');
  assert.equal(page.json.agents[0].description, 'weekly reports');

  const got = await h.run(['get', 'agent', 'apply-agent', '-o', 'yaml']);
  assert.equal(got.code, 0, got.stderr);
  assert.match(got.stdout, /^kind: agent\nname: apply-agent\nspec:\n/);
  assert.ok(!/status|last_used_at|created_by|\bid:/.test(got.stdout), got.stdout);
  const back = await h.run(['apply', '-f', write('agent-back.yaml', got.stdout)]);
  assert.equal(back.stdout, 'agent/apply-agent unchanged\n', back.stderr);

  const owner = await h.run([
    'apply',
    '-f',
    write('agent-owner.yaml', got.stdout.replace(/owner: \S+/, 'owner: user_someoneelse1')),
  ]);
  assert.equal(owner.code, 1);
  assert.match(owner.stderr, /agent\/apply-agent: is owned by user_\w+; an agent's owner cannot change/);
});

test('webhooks apply and get round-trip: created with its secret shown once, unchanged, updated; get never shows the secret', async () => {
  const file = write(
    'webhook.yaml',
    `kind: webhook
name: apply-hook
spec:
  url: https://hooks.example.com/in
  event_types: [user.created]
  description: to the SIEM
`,
  );
  const created = await h.run(['apply', '-f', file]);
  assert.equal(created.code, 0, created.stderr);
  const secret = /signing secret \(shown this once: keep it now\): (whsec_\S+)\n$/.exec(created.stdout)?.[1];
  assert.ok(secret, created.stdout);
  assert.match(created.stdout, /^webhook\/apply-hook created\n/);
  assert.equal((await h.run(['apply', '-f', file])).stdout, 'webhook/apply-hook unchanged\n');

  const changed = await h.run([
    'apply',
    '-f',
    write('webhook2.yaml', readFileSync(file, 'utf8').replace('[user.created]', '[user.created, user.deleted]')),
  ]);
  assert.equal(changed.stdout, 'webhook/apply-hook updated\n', changed.stderr);
  const listed = await admin('GET', '/v1/webhooks?per_page=100');
  const hook = (listed.json.webhooks as Array<{ name: string; event_types: string[]; description: string }>).find(
    (w) => w.name === 'apply-hook',
  );
  assert.deepEqual(hook?.event_types, ['user.created', 'user.deleted']);
  assert.equal(hook?.description, 'to the SIEM');

  const got = await h.run(['get', 'webhook', 'apply-hook', '-o', 'yaml']);
  assert.equal(got.code, 0, got.stderr);
  assert.match(got.stdout, /^kind: webhook\nname: apply-hook\nspec:\n/);
  assert.ok(!got.stdout.includes(secret.slice(6)) && !got.stdout.includes('whsec_'), 'no secret in get');
  const back = await h.run(['apply', '-f', write('webhook-back.yaml', got.stdout)]);
  assert.equal(back.stdout, 'webhook/apply-hook unchanged\n', back.stderr);
});
