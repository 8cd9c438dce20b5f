// Nobody grants MCP rights they do not hold: a role manager creating or extending a role (or giving
// a user roles) cannot grant a tool it may not call (mcp_tools), drop an argument schema it works
// under (mcp_tool_arguments) or an approval it needs (mcp_require_approval). Each refusal names what
// the manager lacks and changes nothing; beside each, the positive control: what it holds, it may
// grant. The last test calls the granted tool through the gateway, to show what the ceiling protects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { mcpClient } from './helpers/mcp-client.js';
import { mcpAppBody, startTestMcpServer, type TestMcpServer } from './helpers/mcp-upstream.js';

let gh: TestServer;
let upstream: TestMcpServer;
let mcpUrl: string;
let managerToken: string;
const { admin, as } = requestsTo(() => gh);

const DEV = { kinds: ['app'], labels: { team: 'dev' } };
const ACME_ONLY = { type: 'object', properties: { repo: { pattern: '^acme/' } }, required: ['repo'] };
const ARGS = [{ tool: 'create_issue', schema: ACME_ONLY }];
const APPROVAL = { mcp_require_approval: ['deploy'] };

/** A role on the dev server with these MCP fields; the manager's own restrictions unless replaced. */
const role = (name: string, mcp: Record<string, unknown>, options: Record<string, unknown> = APPROVAL) => ({
  name,
  allow: { resources: [DEV], mcp_tool_arguments: ARGS, ...mcp },
  options,
});

before(async () => {
  upstream = await startTestMcpServer();
  gh = await startTestServer();
  const created = await admin('POST', '/v1/resources', mcpAppBody('ceiling-mcp', upstream.url, 'dev', 'upstream-t'));
  assert.equal(created.status, 201, created.text);
  mcpUrl = created.json.mcp_url;
  // The manager writes roles and users, may call echo, create_* (create_issue only in acme/) and
  // deploy (only once approved) on the dev server, and nothing else.
  const manager = {
    name: 'mcp-role-manager',
    allow: {
      rules: [{ resources: ['roles', 'users'], verbs: ['create', 'read', 'update'] }],
      resources: [DEV],
      mcp_tools: ['echo', 'create_*', 'deploy'],
      mcp_tool_arguments: ARGS,
    },
    options: APPROVAL,
  };
  assert.equal((await admin('POST', '/v1/roles', manager)).status, 201);
  managerToken = (await userWithRoles(gh, 'manager', ['mcp-role-manager'])).token;
});

after(async () => {
  await gh?.stop();
  await upstream?.close();
});

const create = (body: unknown) => as(managerToken, 'POST', '/v1/roles', body);

describe('mcp_tools', () => {
  test('a tool the manager may not call cannot be granted; a held one can', async () => {
    for (const [tools, lacking] of [
      [['delete_repo'], /mcp_tool delete_repo/],
      [['*'], /mcp_tool \*/],
      [['create_*', 'delete_*'], /mcp_tool delete_\*/],
    ] as const) {
      const refused = await create(role('wider-tools', { mcp_tools: tools }));
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.json.detail, lacking);
    }
    const elsewhere = await create({
      ...role('tools-elsewhere', { mcp_tools: ['echo'] }),
      allow: {
        resources: [{ kinds: ['app'], labels: { team: 'prod' } }],
        mcp_tools: ['echo'],
        mcp_tool_arguments: ARGS,
      },
    });
    assert.equal(elsewhere.status, 403, 'a tool held on dev is not held on prod');
    assert.equal((await admin('GET', '/v1/roles/wider-tools')).status, 404, 'nothing was created');
    // Positive control: what the manager holds (a narrower glob too), it may grant.
    const held = await create(role('held-tools', { mcp_tools: ['echo', 'create_issue'] }));
    assert.equal(held.status, 201, held.text);
  });

  test('a role cannot be extended to a tool the manager lacks; within its rights it can', async () => {
    const made = await create(role('extend-me', { mcp_tools: ['echo'] }));
    assert.equal(made.status, 201, made.text);
    const wider = await as(
      managerToken,
      'PUT',
      '/v1/roles/extend-me',
      role('extend-me', { mcp_tools: ['echo', 'delete_repo'] }),
    );
    assert.equal(wider.status, 403, wider.text);
    assert.match(wider.json.detail, /mcp_tool delete_repo/);
    assert.deepEqual((await admin('GET', '/v1/roles/extend-me')).json.allow.mcp_tools, ['echo'], 'unchanged');
    const ok = await as(
      managerToken,
      'PUT',
      '/v1/roles/extend-me',
      role('extend-me', { mcp_tools: ['echo', 'create_issue'] }),
    );
    assert.equal(ok.status, 200, ok.text);
  });
});

describe('mcp_tool_arguments', () => {
  test('the manager’s argument schema must stay in a grant: dropped or loosened, refused', async () => {
    const dropped = await create(role('no-schema', { mcp_tools: ['create_issue'], mcp_tool_arguments: [] }));
    assert.equal(dropped.status, 403, dropped.text);
    assert.match(dropped.json.detail, /mcp_tool_arguments for create_issue as yours/);
    const looser = await create(
      role('looser-schema', {
        mcp_tools: ['create_issue'],
        mcp_tool_arguments: [{ tool: 'create_issue', schema: { type: 'object' } }],
      }),
    );
    assert.equal(looser.status, 403, looser.text);
    assert.match(looser.json.detail, /mcp_tool_arguments for create_issue as yours/);
    // Positive control: the same schema, and one more of the grant's own on top.
    const kept = await create(
      role('kept-schema', {
        mcp_tools: ['create_issue'],
        mcp_tool_arguments: [...ARGS, { tool: 'create_issue', schema: { required: ['title'] } }],
      }),
    );
    assert.equal(kept.status, 201, kept.text);
  });

  // Before the fix, rbac/coverage.ts (mcpGaps) found the manager's schema anywhere in the grant, while
  // the gateway applies only the schemas of the roles that select the server (rbac/mcp-tools.ts).
  test('a schema kept in a role that selects no server binds nothing: a user given both is refused', async () => {
    // The split: one role grants create_issue on dev with no schema (written by an administrator), a
    // second carries the manager's schema but selects no server, so no call is ever checked against it.
    const bare = { name: 'bare-create', allow: { resources: [DEV], mcp_tools: ['create_issue'] } };
    assert.equal((await admin('POST', '/v1/roles', bare)).status, 201);
    const carrier = { name: 'schema-carrier', allow: { mcp_tool_arguments: ARGS }, options: APPROVAL };
    assert.equal((await create(carrier)).status, 201);
    const split = await as(managerToken, 'POST', '/v1/users', {
      name: 'split-user',
      roles: ['bare-create', 'schema-carrier'],
    });
    assert.equal(split.status, 403, `the grant is wider than the manager: ${split.text}`);
    // Positive control: the schema in the role that grants the tool on the server.
    const bound = {
      name: 'bound-create',
      allow: { resources: [DEV], mcp_tools: ['create_issue'], mcp_tool_arguments: ARGS },
    };
    assert.equal((await admin('POST', '/v1/roles', bound)).status, 201);
    const ok = await as(managerToken, 'POST', '/v1/users', {
      name: 'bound-user',
      roles: ['bound-create', 'schema-carrier'],
    });
    assert.equal(ok.status, 201, ok.text);
  });
});

describe('mcp_require_approval', () => {
  test('a tool the manager may call only once approved cannot be granted without approval', async () => {
    const free = await create(role('free-deploy', { mcp_tools: ['deploy'] }, {}));
    assert.equal(free.status, 403, free.text);
    assert.match(free.json.detail, /option mcp_require_approval deploy/);
    const narrower = await create(
      role('narrow-approval', { mcp_tools: ['deploy'] }, { mcp_require_approval: ['deploy_*'] }),
    );
    assert.equal(narrower.status, 403, 'an approval glob that does not cover deploy');
    // Positive controls: the same approval, or a wider one.
    assert.equal((await create(role('held-deploy', { mcp_tools: ['deploy'] }))).status, 201);
    const wider = await create(role('wider-approval', { mcp_tools: ['deploy'] }, { mcp_require_approval: ['*'] }));
    assert.equal(wider.status, 201, wider.text);
  });

  test('what the ceiling protects: a grant the manager may make still holds deploy and checks create_issue', async () => {
    const user = await as(managerToken, 'POST', '/v1/users', {
      name: 'granted',
      roles: ['held-deploy', 'kept-schema'],
    });
    assert.equal(user.status, 201, user.text);
    const key = await admin('POST', `/v1/users/${user.json.id}/api-keys`, {});
    const token = (await requestsTo(() => gh).as('', 'POST', '/v1/auth/token', { api_key: key.json.api_key })).json;
    const client = await mcpClient(mcpUrl, token.access_token);
    try {
      await assert.rejects(client.callTool({ name: 'deploy', arguments: { env: 'prod' } }), /holds this call/);
      await assert.rejects(
        client.callTool({ name: 'create_issue', arguments: { repo: 'evil/x', title: 't' } }),
        /arguments\/repo must match pattern/,
      );
      const ok = await client.callTool({ name: 'create_issue', arguments: { repo: 'acme/x', title: 't' } });
      assert.ok(ok);
      assert.equal(upstream.calls.get('deploy') ?? 0, 0);
      assert.equal(upstream.calls.get('create_issue'), 1);
    } finally {
      await client.close();
    }
  });
});
