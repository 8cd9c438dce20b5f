// "Nobody grants what they do not hold", tried as a hostile user would: the four escalation paths a
// narrow permission used to have, the declaration every mutating route makes, and a matrix of every
// granting route × {user, agent, delegated agent} × {a target the caller covers, one it does not}.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateEd25519 } from '../src/lib/ssh-keygen.js';
import { api, type Reply, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const STAR = { resources: ['*'], verbs: ['*'] };
const DEV = {
  rules: [
    { resources: ['resources'], verbs: ['list', 'read'] },
    { resources: ['sessions'], verbs: ['list', 'read', 'create'] },
  ],
  resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
  logins: ['ubuntu'],
};

let server: TestServer;
const { admin, as } = requestsTo(() => server);
let adminId: string;
let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}`;

async function created(res: Reply | Promise<Reply>, status = 201): Promise<Reply> {
  const r = await res;
  assert.equal(r.status, status, r.text);
  return r;
}

/** A user (by the admin) with roles; its id and token. */
const user = (roles: string[], traits?: Record<string, string[]>) => userWithRoles(server, unique('u'), roles, traits);

/** An agent (by the admin, so owned by the admin) with roles; its id and an access token. */
async function agent(roles: string[]) {
  const a = (await created(admin('POST', '/v1/agents', { name: unique('agent'), roles }))).json;
  const token = (await created(admin('POST', `/v1/agents/${a.id}/credentials`, {}))).json.access_token as string;
  return { id: a.id as string, token };
}

interface Caller {
  label: string;
  token: string;
  id: string;
  kind: 'user' | 'agent';
}

let callers: Caller[];

before(async () => {
  server = await startTestServer({ 'login_throttle.max_failures': 100_000 });
  adminId = (await admin('GET', '/v1/users?name=admin')).json.users[0].id;
  await created(admin('POST', '/v1/roles', { name: 'dev', allow: DEV }));
  // A manager of dev: every API collection it needs, dev servers, login ubuntu. It covers `dev`, not `admin`.
  await created(
    admin('POST', '/v1/roles', {
      name: 'mgr',
      allow: {
        rules: [
          { resources: ['users', 'roles', 'agents', 'resources', 'webhooks', 'connectors'], verbs: ['*'] },
          { resources: ['sessions'], verbs: ['list', 'read', 'create'] },
          { resources: ['events'], verbs: ['list', 'read'] },
        ],
        resources: [{ kinds: ['*'], labels: { env: 'dev' } }],
        logins: ['ubuntu'],
      },
    }),
  );
  const mgrUser = await user(['mgr']);
  const mgrAgent = await agent(['mgr']);
  // An admin agent acting for the manager: it holds only what both hold.
  const adminAgent = await agent(['admin']);
  await created(as(mgrUser.token, 'POST', `/v1/agents/${adminAgent.id}/delegations`, {}));
  const exchanged = await api(server.url, 'POST', '/v1/auth/token', {
    body: { grant_type: EXCHANGE, subject_token: mgrUser.token, actor_token: adminAgent.token },
  });
  assert.equal(exchanged.status, 200, exchanged.text);
  callers = [
    { label: 'user', token: mgrUser.token, id: mgrUser.id, kind: 'user' },
    { label: 'agent', token: mgrAgent.token, id: mgrAgent.id, kind: 'agent' },
    { label: 'delegated agent', token: exchanged.json.access_token, id: adminAgent.id, kind: 'agent' },
  ];
});
after(() => server.stop());

async function assertDenied(
  res: Reply,
  caller: Caller,
  detail: RegExp,
  context: string,
  lacking?: string,
): Promise<void> {
  assert.equal(res.status, 403, `${context}: ${res.status} ${res.text}`);
  assert.equal(res.json.code, 'forbidden');
  assert.match(res.json.detail, detail, context);
  const events = (await admin('GET', `/v1/events?type=access.denied&actor=${caller.id}&per_page=1`)).json.events;
  assert.equal(events[0]?.data?.reason, 'not_covered', `${context}: the refusal is an access.denied event`);
  assert.ok(events[0].data.lacking.length > 0);
  if (lacking) assert.ok(events[0].data.lacking.includes(lacking), `${context}: ${events[0].data.lacking}`);
}

describe('the four reported escalations answer 403, each beside its allowed twin', () => {
  test('1. users:update cannot mint an API key for the admin (it can for a user it covers)', async () => {
    const updater = await created(
      admin('POST', '/v1/roles', {
        name: 'key-minter',
        allow: { rules: [{ resources: ['users'], verbs: ['read', 'update'] }] },
      }),
    );
    const me = await user([updater.json.name]);
    const caller = { label: 'user', token: me.token, id: me.id, kind: 'user' as const };
    const refused = await as(me.token, 'POST', `/v1/users/${adminId}/api-keys`, {});
    await assertDenied(refused, caller, /API key for user admin: it needs .*users:delete/, 'mint for admin');
    const peer = await user([updater.json.name]);
    await created(as(me.token, 'POST', `/v1/users/${peer.id}/api-keys`, {}));
  });

  test('2. users:create cannot create an admin (it can create a user with roles it covers)', async () => {
    const me = await user(['mgr']);
    const caller = { label: 'user', token: me.token, id: me.id, kind: 'user' as const };
    const refused = await as(me.token, 'POST', '/v1/users', { name: unique('wannabe'), roles: ['admin'] });
    await assertDenied(refused, caller, /create user .* with roles \[admin\]/, 'create admin');
    // Traits count: `{{traits.logins}}` of a covered role may not expand to a login the caller lacks.
    await created(
      admin('POST', '/v1/roles', { name: 'trait-access', allow: { ...DEV, logins: ['{{traits.logins}}'] } }),
    );
    const rootTrait = await as(me.token, 'POST', '/v1/users', {
      name: unique('rooty'),
      roles: ['trait-access'],
      traits: { logins: ['root'] },
    });
    await assertDenied(rootTrait, caller, /login root/, 'traits beyond the caller');
    await created(
      as(me.token, 'POST', '/v1/users', {
        name: unique('ok'),
        roles: ['trait-access'],
        traits: { logins: ['ubuntu'] },
      }),
    );
    await created(as(me.token, 'POST', '/v1/users', { name: unique('dev'), roles: ['dev'] }));
  });

  test('3. roles:update cannot widen its own role to *:*; roles:create cannot create *:*', async () => {
    const own = unique('self-made');
    await created(
      admin('POST', '/v1/roles', {
        name: own,
        allow: { rules: [{ resources: ['roles'], verbs: ['create', 'update', 'read'] }] },
      }),
    );
    const me = await user([own]);
    const caller = { label: 'user', token: me.token, id: me.id, kind: 'user' as const };
    const widened = await as(me.token, 'PUT', `/v1/roles/${own}`, { name: own, allow: { rules: [STAR] } });
    await assertDenied(widened, caller, /change role .*: it needs users:list/, 'widen own role', 'events:list');
    assert.equal((await as(me.token, 'GET', '/v1/events')).status, 403, 'still no events');
    const star = await as(me.token, 'POST', '/v1/roles', { name: unique('star'), allow: { rules: [STAR] } });
    await assertDenied(star, caller, /create role/, 'create *:*');
    // Positive controls: a change and a new role within what it holds.
    await created(
      as(me.token, 'PUT', `/v1/roles/${own}`, {
        name: own,
        description: 'narrower',
        allow: { rules: [{ resources: ['roles'], verbs: ['create', 'update', 'read'] }] },
      }),
      200,
    );
    await created(
      as(me.token, 'POST', '/v1/roles', {
        name: unique('reader'),
        allow: { rules: [{ resources: ['roles'], verbs: ['read'] }] },
      }),
    );
  });

  test('4. agents:update cannot attach a key to an admin agent; editor cannot to an admin user', async () => {
    const editor = await user(['editor']);
    const caller = { label: 'user', token: editor.token, id: editor.id, kind: 'user' as const };
    const adminAgent = await agent(['admin']);
    const onAgent = await as(editor.token, 'POST', `/v1/agents/${adminAgent.id}/ssh-keys`, {
      public_key: generateEd25519().public,
    });
    await assertDenied(onAgent, caller, /SSH key for agent/, 'key on admin agent', 'login root');
    assert.equal(onAgent.json.detail.includes('which you do not hold'), true);
    const onAdmin = await as(editor.token, 'POST', `/v1/users/${adminId}/ssh-keys`, {
      public_key: generateEd25519().public,
    });
    await assertDenied(onAdmin, caller, /SSH key for user admin/, 'key on admin user');
    const auditorAgent = await agent(['auditor']);
    await created(
      as(editor.token, 'POST', `/v1/agents/${auditorAgent.id}/ssh-keys`, { public_key: generateEd25519().public }),
    );
  });
});

/** Every mutating route and what it declares it hands out. A new one fails here until it is added. */
const DECLARED: Record<string, string[]> = {
  'POST /v1/auth/token': ['self'],
  'POST /v1/auth/refresh': ['self'],
  'DELETE /v1/auth/revoke': [],
  'POST /v1/auth/introspect': [],
  'POST /v1/users': ['assigned-roles'],
  'PATCH /v1/users/:id': ['assigned-roles', 'target-principal'],
  'DELETE /v1/users/:id': ['target-principal'],
  'POST /v1/users/:id/api-keys': ['target-principal'],
  'DELETE /v1/users/:id/api-keys/:key_id': ['target-principal'],
  'POST /v1/users/:id/ssh-keys': ['target-principal'],
  'DELETE /v1/users/:id/ssh-keys/:key_id': ['target-principal'],
  // A person's own keys: what the caller already holds, for the caller (the same checks as above).
  'POST /v1/users/me/api-keys': ['self'],
  'DELETE /v1/users/me/api-keys/:key_id': ['self'],
  'POST /v1/users/me/ssh-keys': ['self'],
  'DELETE /v1/users/me/ssh-keys/:key_id': ['self'],
  // Ending one's own logins gives nothing: it revokes the caller's own tokens only.
  'DELETE /v1/users/me/logins/:login_id': [],
  'DELETE /v1/users/me/logins': [],
  // Ending one's own session gives nothing: only sessions whose principal is the caller are found.
  'DELETE /v1/users/me/sessions/:id': [],
  // A person's own security keys (docs/mfa.md): registering one gives nobody anything; rename and
  // remove act on the caller's own; an administrator's removal covers the person.
  'POST /v1/users/me/mfa/devices/options': ['self'],
  'POST /v1/users/me/mfa/devices': ['self'],
  'PATCH /v1/users/me/mfa/devices/:device_id': [],
  'DELETE /v1/users/me/mfa/devices/:device_id': [],
  'DELETE /v1/users/:id/mfa/devices': ['target-principal'],
  'POST /v1/roles': ['role-definition'],
  'PUT /v1/roles/:id': ['role-definition'],
  // A preview saves nothing and grants nothing; it shows only principals and resources the caller may see.
  'POST /v1/roles/:id/preview': [],
  'DELETE /v1/roles/:id': [],
  'POST /v1/resources': ['resource-visible'],
  'PATCH /v1/resources/:id': ['resource-visible'],
  'DELETE /v1/resources/:id': [],
  'DELETE /v1/resources/:id/ssh-host-key': [],
  'POST /v1/agents': ['assigned-roles'],
  'PATCH /v1/agents/:id': ['assigned-roles', 'target-principal'],
  'DELETE /v1/agents/:id': [],
  'POST /v1/agents/:id/credentials': ['credential-roles'],
  'DELETE /v1/agents/:id/credentials/:credential_id': [],
  'POST /v1/agents/:id/delegations': ['target-principal'],
  'DELETE /v1/agents/:id/delegations/:user_id': [],
  'POST /v1/agents/:id/ssh-keys': ['target-principal'],
  'DELETE /v1/agents/:id/ssh-keys/:key_id': ['target-principal'],
  'POST /v1/webhooks': ['events-readable'],
  'PATCH /v1/webhooks/:id': ['events-readable'],
  'DELETE /v1/webhooks/:id': [],
  'POST /v1/sessions': ['self'],
  // A launch code opens an app the caller may already reach, as the caller.
  'POST /v1/apps/launch': ['self'],
  'POST /v1/ssh/certificates': ['self'],
  'DELETE /v1/sessions/:id': [],
  // A proxy identity is no principal's right: only holders of cluster:create make join tokens.
  'POST /v1/cluster/join-tokens': [],
  'DELETE /v1/cluster/instances/:id': [],
  'POST /v1/auth/connectors': ['connector-roles'],
  'PUT /v1/auth/connectors/:id': ['connector-roles'],
  'DELETE /v1/auth/connectors/:id': ['connector-roles'],
  // Deciding a held MCP tool call: the service requires covering the requester, never the requester itself.
  'POST /v1/approvals/:id/approve': [],
  'POST /v1/approvals/:id/deny': [],
};

describe('route walk', () => {
  test('every POST, PUT, PATCH and DELETE route declares what it grants, exactly as listed', () => {
    const mutating = server.gatehouse.routes.filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method));
    const live = Object.fromEntries(mutating.map((r) => [`${r.method} ${r.url}`, r.grants]));
    for (const [route, grants] of Object.entries(live)) assert.ok(Array.isArray(grants), `${route} declares nothing`);
    assert.deepEqual(live, DECLARED);
  });

  test('a mutating route without a grants declaration cannot be registered', async () => {
    const { default: Fastify } = await import('fastify');
    const { installSecurity } = await import('../src/api/plugins/security.js');
    const app = Fastify();
    installSecurity(app, server.gatehouse.services);
    assert.throws(
      () => app.post('/v1/x', { config: { permission: { resource: 'users', verb: 'create' } } }, async () => ({})),
      /declares no grants/,
    );
    // Positive control: the same route with its declaration registers.
    app.post('/v1/y', { config: { permission: { resource: 'users', verb: 'create' }, grants: [] } }, async () => ({}));
  });
});

interface Attempt {
  res: Reply;
  /** Who made the call, when a case needs a caller of its own (else the matrix's caller). */
  by?: Caller;
}
interface Case {
  route: string;
  /** Only users speak for users: agents are refused whatever the target. */
  usersOnly?: boolean;
  attempt(caller: Caller, covered: boolean): Promise<Attempt>;
}

const lowUser = async () => (await user(['dev'])).id;
const lowAgent = async () => (await agent(['dev'])).id;
const highAgent = async () => (await agent(['admin'])).id;
const call = async (c: Caller, method: string, path: string, body?: unknown): Promise<Attempt> => ({
  res: await as(c.token, method, path, body),
});
const sshKey = () => ({ public_key: generateEd25519().public });

const CASES: Case[] = [
  {
    route: 'POST /v1/users',
    attempt: (c, ok) => call(c, 'POST', '/v1/users', { name: unique('m'), roles: [ok ? 'dev' : 'admin'] }),
  },
  {
    route: 'PATCH /v1/users/:id',
    attempt: async (c, ok) => call(c, 'PATCH', `/v1/users/${await lowUser()}`, { roles: [ok ? 'dev' : 'admin'] }),
  },
  {
    route: 'PATCH /v1/users/:id',
    // Changing a user one does not cover, even to fewer rights, is refused too.
    attempt: async (c, ok) =>
      call(c, 'PATCH', `/v1/users/${ok ? await lowUser() : (await user(['admin'])).id}`, { roles: ['dev'] }),
  },
  {
    route: 'DELETE /v1/users/:id',
    attempt: async (c, ok) => call(c, 'DELETE', `/v1/users/${ok ? await lowUser() : adminId}`),
  },
  {
    route: 'POST /v1/users/:id/api-keys',
    attempt: async (c, ok) => call(c, 'POST', `/v1/users/${ok ? await lowUser() : adminId}/api-keys`, {}),
  },
  {
    route: 'DELETE /v1/users/:id/api-keys/:key_id',
    attempt: async (c, ok) => {
      const id = ok ? await lowUser() : adminId;
      const key = await created(admin('POST', `/v1/users/${id}/api-keys`, { name: unique('k') }));
      return call(c, 'DELETE', `/v1/users/${id}/api-keys/${key.json.id}`);
    },
  },
  {
    route: 'POST /v1/users/:id/ssh-keys',
    attempt: async (c, ok) => call(c, 'POST', `/v1/users/${ok ? await lowUser() : adminId}/ssh-keys`, sshKey()),
  },
  {
    route: 'DELETE /v1/users/:id/ssh-keys/:key_id',
    attempt: async (c, ok) => {
      const id = ok ? await lowUser() : adminId;
      const key = await created(admin('POST', `/v1/users/${id}/ssh-keys`, sshKey()));
      return call(c, 'DELETE', `/v1/users/${id}/ssh-keys/${key.json.id}`);
    },
  },
  {
    // Removing a person's security keys leaves them one factor: only for someone the caller covers.
    route: 'DELETE /v1/users/:id/mfa/devices',
    attempt: async (c, ok) => call(c, 'DELETE', `/v1/users/${ok ? await lowUser() : adminId}/mfa/devices`),
  },
  {
    route: 'POST /v1/agents/:id/ssh-keys',
    attempt: async (c, ok) =>
      call(c, 'POST', `/v1/agents/${ok ? await lowAgent() : await highAgent()}/ssh-keys`, sshKey()),
  },
  {
    route: 'DELETE /v1/agents/:id/ssh-keys/:key_id',
    attempt: async (c, ok) => {
      const id = ok ? await lowAgent() : await highAgent();
      const key = await created(admin('POST', `/v1/agents/${id}/ssh-keys`, sshKey()));
      return call(c, 'DELETE', `/v1/agents/${id}/ssh-keys/${key.json.id}`);
    },
  },
  {
    route: 'POST /v1/roles',
    attempt: (c, ok) => call(c, 'POST', '/v1/roles', { name: unique('r'), allow: ok ? DEV : { rules: [STAR] } }),
  },
  {
    route: 'PUT /v1/roles/:id',
    attempt: async (c, ok) => {
      const name = unique('empty');
      await created(admin('POST', '/v1/roles', { name, allow: {} }));
      return call(c, 'PUT', `/v1/roles/${name}`, { name, allow: ok ? DEV : { ...DEV, logins: ['root'] } });
    },
  },
  {
    route: 'POST /v1/resources',
    attempt: (c, ok) =>
      call(c, 'POST', '/v1/resources', {
        kind: 'server',
        name: unique('srv'),
        address: '10.0.0.1:22',
        labels: { env: ok ? 'dev' : 'prod' },
      }),
  },
  {
    route: 'PATCH /v1/resources/:id',
    attempt: async (c, ok) => {
      const srv = await created(
        admin('POST', '/v1/resources', {
          kind: 'server',
          name: unique('srv'),
          address: '10.0.0.1:22',
          labels: { env: 'dev' },
        }),
      );
      return call(c, 'PATCH', `/v1/resources/${srv.json.id}`, { labels: { env: ok ? 'dev' : 'prod', team: 'x' } });
    },
  },
  {
    route: 'POST /v1/agents',
    attempt: (c, ok) => call(c, 'POST', '/v1/agents', { name: unique('a'), roles: [ok ? 'dev' : 'admin'] }),
  },
  {
    route: 'PATCH /v1/agents/:id',
    attempt: async (c, ok) => call(c, 'PATCH', `/v1/agents/${(await agent([])).id}`, { roles: [ok ? 'dev' : 'admin'] }),
  },
  {
    route: 'PATCH /v1/agents/:id',
    attempt: async (c, ok) => {
      // Suspending is open to agents:update (the kill switch); waking one up needs cover.
      const id = ok ? await lowAgent() : await highAgent();
      await created(
        call(c, 'PATCH', `/v1/agents/${id}`, { status: 'suspended' }).then((a) => a.res),
        200,
      );
      return call(c, 'PATCH', `/v1/agents/${id}`, { status: 'active' });
    },
  },
  {
    route: 'POST /v1/agents/:id/credentials',
    attempt: async (c, ok) =>
      call(c, 'POST', `/v1/agents/${ok ? await lowAgent() : await highAgent()}/credentials`, {}),
  },
  {
    route: 'POST /v1/agents/:id/delegations',
    usersOnly: true,
    attempt: async (c, ok) =>
      call(c, 'POST', `/v1/agents/${await lowAgent()}/delegations`, { user: ok ? await lowUser() : adminId }),
  },
  {
    route: 'POST /v1/webhooks',
    attempt: async (c, ok) => {
      const body = { name: unique('hook'), url: 'https://hooks.example.com/in', event_types: ['user.created'] };
      if (ok) return call(c, 'POST', '/v1/webhooks', body);
      // Not covered: a caller who may manage webhooks but not read events.
      const roleName = unique('hooker');
      await created(
        admin('POST', '/v1/roles', { name: roleName, allow: { rules: [{ resources: ['webhooks'], verbs: ['*'] }] } }),
      );
      const hooker = await user([roleName]);
      const by: Caller = { label: 'webhooks-only user', token: hooker.token, id: hooker.id, kind: 'user' };
      return { res: await as(hooker.token, 'POST', '/v1/webhooks', body), by };
    },
  },
  {
    route: 'PATCH /v1/webhooks/:id',
    attempt: async (c, ok) => {
      // Pointing an existing feed somewhere else is creating one: a caller who may manage webhooks
      // but not read events may not (the same grant as POST).
      const made = await created(
        admin('POST', '/v1/webhooks', {
          name: unique('hook'),
          url: 'https://hooks.example.com/in',
          event_types: ['user.created'],
        }),
      );
      const body = { url: 'https://elsewhere.example.com/in' };
      if (ok) return call(c, 'PATCH', `/v1/webhooks/${made.json.id}`, body);
      const roleName = unique('hooker');
      await created(
        admin('POST', '/v1/roles', { name: roleName, allow: { rules: [{ resources: ['webhooks'], verbs: ['*'] }] } }),
      );
      const hooker = await user([roleName]);
      const by: Caller = { label: 'webhooks-only user', token: hooker.token, id: hooker.id, kind: 'user' };
      return { res: await as(hooker.token, 'PATCH', `/v1/webhooks/${made.json.id}`, body), by };
    },
  },
  {
    route: 'POST /v1/auth/connectors',
    attempt: (c, ok) => call(c, 'POST', '/v1/auth/connectors', connectorBody(unique('idp'), ok ? 'dev' : 'admin')),
  },
  {
    route: 'PUT /v1/auth/connectors/:id',
    attempt: async (c, ok) => {
      const name = unique('idp');
      const made = await created(admin('POST', '/v1/auth/connectors', connectorBody(name, 'dev')));
      return call(c, 'PUT', `/v1/auth/connectors/${made.json.id}`, connectorBody(name, ok ? 'dev' : 'admin'));
    },
  },
  {
    route: 'DELETE /v1/auth/connectors/:id',
    attempt: async (c, ok) => {
      const made = await created(
        admin('POST', '/v1/auth/connectors', connectorBody(unique('idp'), ok ? 'dev' : 'admin')),
      );
      return call(c, 'DELETE', `/v1/auth/connectors/${made.json.id}`);
    },
  },
];

/** A single sign-on connector whose claims map to one role. */
function connectorBody(name: string, role: string) {
  return {
    kind: 'oidc',
    name,
    display_name: name,
    issuer: 'https://idp.example.com',
    client_id: 'c',
    client_secret: 's',
    claims_to_roles: [{ claim: 'groups', value: '*', roles: [role] }],
  };
}

describe('escalation matrix: every granting route × caller × target', () => {
  test('every route that grants something other than to the caller itself has a case', () => {
    const granting = Object.entries(DECLARED)
      .filter(([, g]) => g.some((check) => check !== 'self'))
      .map(([route]) => route);
    for (const route of granting)
      assert.ok(
        CASES.some((c) => c.route === route),
        `no matrix case for ${route}`,
      );
  });

  for (const [i, testCase] of CASES.entries()) {
    test(`${testCase.route} (#${i})`, async () => {
      for (const caller of callers) {
        const context = `${testCase.route} by ${caller.label}`;
        const allowed = await testCase.attempt(caller, true);
        if (testCase.usersOnly && caller.kind === 'agent') {
          assert.equal(allowed.res.status, 403, `${context}: agents never speak for users`);
          continue;
        }
        assert.ok(
          allowed.res.status >= 200 && allowed.res.status < 300,
          `${context}, covered target: ${allowed.res.status} ${allowed.res.text}`,
        );
        const refused = await testCase.attempt(caller, false);
        await assertDenied(
          refused.res,
          refused.by ?? caller,
          /you cannot .*which you do not hold/,
          `${context}, uncovered`,
        );
      }
    });
  }
});

describe('the kill switch takes back what an agent created for others', () => {
  test('API keys, SSH keys and credentials it minted are listed with it as creator, and end with it', async () => {
    const minter = await agent(['mgr']);
    const target = await user(['dev']);
    const key = await created(as(minter.token, 'POST', `/v1/users/${target.id}/api-keys`, { name: 'minted' }));
    const listed = (await admin('GET', `/v1/users/${target.id}/api-keys`)).json.api_keys;
    const minted = listed.find((k: { id: string }) => k.id === key.json.id);
    assert.deepEqual(minted.created_by, { kind: 'agent', id: minter.id });
    const ssh = await created(as(minter.token, 'POST', `/v1/users/${target.id}/ssh-keys`, sshKey()));
    assert.deepEqual(ssh.json.created_by, { kind: 'agent', id: minter.id });
    const other = await agent(['dev']);
    const cred = await created(as(minter.token, 'POST', `/v1/agents/${other.id}/credentials`, {}));
    const credList = (await admin('GET', `/v1/agents/${other.id}/credentials`)).json.credentials;
    assert.deepEqual(credList.find((c: { id: string }) => c.id === cred.json.id).created_by, {
      kind: 'agent',
      id: minter.id,
    });
    // Positive controls: what it minted works while it is active.
    const login = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } });
    assert.equal(login.status, 200, login.text);
    assert.equal((await as(cred.json.access_token, 'GET', '/v1/servers')).status, 200);

    const suspended = await created(admin('PATCH', `/v1/agents/${minter.id}`, { status: 'suspended' }), 200);
    assert.deepEqual(suspended.json.revoked_issued_for_others, { api_keys: 1, ssh_keys: 1, credentials: 1, tokens: 3 });
    assert.equal(
      (await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } })).status,
      401,
      'the API key it minted is gone',
    );
    assert.equal((await as(login.json.access_token, 'GET', '/v1/servers')).status, 401, 'and its tokens');
    assert.equal((await as(cred.json.access_token, 'GET', '/v1/servers')).status, 401, 'the credential is revoked');
    const keys = (await admin('GET', `/v1/users/${target.id}/ssh-keys`)).json.ssh_keys;
    assert.equal(keys.length, 0, 'the SSH key is gone');
    const [event] = (await admin('GET', `/v1/events?type=agent.suspended&target=${minter.id}`)).json.events;
    assert.deepEqual(event.data.revoked_issued_for_others, suspended.json.revoked_issued_for_others);
  });
});

describe('Kubernetes rights join the rule', () => {
  test('kube_resources and kube_users wider than the caller’s are refused; narrower ones are granted', async () => {
    const mine = unique('kube-mgr');
    const see = { resources: [{ kinds: ['kube_cluster'] }] };
    await created(
      admin('POST', '/v1/roles', {
        name: mine,
        allow: {
          ...see,
          rules: [{ resources: ['roles'], verbs: ['create', 'read'] }],
          kube_groups: ['ops'],
          kube_users: ['deployer'],
          kube_resources: [{ kind: 'pods', namespace: 'dev', verbs: ['get', 'list', 'exec'] }],
        },
        deny: { kube_resources: [{ kind: 'pods', namespace: 'dev', name: 'secret-*', verbs: ['*'] }] },
      }),
    );
    const me = await user([mine]);
    const caller = { label: 'user', token: me.token, id: me.id, kind: 'user' as const };
    const role = (allow: Record<string, unknown>, deny?: Record<string, unknown>) =>
      as(me.token, 'POST', '/v1/roles', {
        name: unique('kube'),
        allow: { ...see, ...allow },
        ...(deny ? { deny } : {}),
      });
    const prod = [{ kind: 'pods', namespace: 'prod', verbs: ['get'] }];
    await assertDenied(
      await role({ kube_groups: ['ops'], kube_resources: prod }),
      caller,
      /create role/,
      'prod',
      'kube_resource pods prod/* [get]',
    );
    // No kube_resources with a Kubernetes identity means every object: more than the caller holds.
    await assertDenied(
      await role({ kube_groups: ['ops'] }),
      caller,
      /create role/,
      'implicit all',
      'kube_resource * */* [*]',
    );
    const wider = [{ kind: 'pods', namespace: 'dev', verbs: ['delete'] }];
    await assertDenied(
      await role({ kube_resources: wider }),
      caller,
      /create role/,
      'verb',
      'kube_resource pods dev/* [delete]',
    );
    // What the caller is denied (secret-*) must stay denied in what it grants.
    const devAll = [{ kind: 'pods', namespace: 'dev', verbs: ['get'] }];
    await assertDenied(
      await role({ kube_resources: devAll }),
      caller,
      /create role/,
      'deny',
      'kube_resource pods dev/* [get]',
    );
    await assertDenied(
      await role({ kube_users: ['root'], kube_resources: [] }),
      caller,
      /create role/,
      'user',
      'kube_user root',
    );
    // Positive controls: within what the caller holds, its deny carried over.
    await created(
      role(
        {
          kube_groups: ['ops'],
          kube_users: ['deployer'],
          kube_resources: [{ kind: 'pods', namespace: 'dev', name: 'api-*', verbs: ['get'] }],
        },
        { kube_resources: [{ kind: 'pods', namespace: 'dev', name: 'secret-*', verbs: ['*'] }] },
      ),
    );
    await created(
      role(
        { kube_groups: ['ops'], kube_resources: devAll },
        { kube_resources: [{ kind: 'pods', namespace: 'dev', name: 'secret-*', verbs: ['*'] }] },
      ),
    );
  });
});

describe('database session options join the rule', () => {
  test('a caller whose database sessions are read-only cannot create a role without db_read_only; with it, it can', async () => {
    const mine = unique('db-ro-mgr');
    const allow = {
      resources: [{ kinds: ['database'], labels: { env: 'dev' } }],
      db_users: ['app'],
      db_names: ['orders'],
    };
    await created(
      admin('POST', '/v1/roles', {
        name: mine,
        allow: { ...allow, rules: [{ resources: ['roles'], verbs: ['create', 'read'] }] },
        options: { db_read_only: true },
      }),
    );
    const me = await user([mine]);
    const caller = { label: 'user', token: me.token, id: me.id, kind: 'user' as const };
    const unset = await as(me.token, 'POST', '/v1/roles', { name: unique('db-rw'), allow });
    await assertDenied(unset, caller, /create role/, 'db_read_only unset', 'option db_read_only: true');
    const off = await as(me.token, 'POST', '/v1/roles', {
      name: unique('db-rw'),
      allow,
      options: { db_read_only: false },
    });
    await assertDenied(off, caller, /create role/, 'db_read_only false', 'option db_read_only: true');
    // Positive controls: the same role read-only; a role that connects nowhere needs no option.
    await created(as(me.token, 'POST', '/v1/roles', { name: unique('db-ro'), allow, options: { db_read_only: true } }));
    await created(
      as(me.token, 'POST', '/v1/roles', {
        name: unique('roles-reader'),
        allow: { rules: [{ resources: ['roles'], verbs: ['read'] }] },
      }),
    );
  });
});
