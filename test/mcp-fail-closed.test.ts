// The MCP gateway fails closed: when it cannot evaluate a call's policy or cannot open the server's
// own credential, the call is refused with a JSON-RPC error and never forwarded. The failures are
// the ones a store can really hold: a role record written past the role API's checks (by an older
// version, a restore, a hand edit of etcd) with an argument schema whose regexp does not compile or
// a deny list holding a null, and an upstream credential that will not open (a sealed value
// moved onto another server's record: it is bound to the server it was sealed for). The official SDK
// v2 client and server on loopback; the server counts the calls and records the requests it gets.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { keys } from '../src/auth/records.js';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { mcpClient } from './helpers/mcp-client.js';
import { mcpAppBody, startTestMcpServer, type TestMcpServer } from './helpers/mcp-upstream.js';

let gh: TestServer;
let upstream: TestMcpServer;
const { admin } = requestsTo(() => gh);
const served = (tool: string) => upstream.calls.get(tool) ?? 0;
const textOf = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]?.text;

before(async () => {
  upstream = await startTestMcpServer();
  gh = await startTestServer();
});

after(async () => {
  await gh?.stop();
  await upstream?.close();
});

/** Rewrites a stored record in place, as a restore or a hand edit of the store would. */
async function rewrite<T>(key: string, change: (value: T) => T): Promise<void> {
  const state = gh.gatehouse.services.state;
  const item = state.get<T>(key);
  assert.ok(item, `no record at ${key}`);
  await state.replace(key, item.revision, change(structuredClone(item.value)));
}

// biome-ignore lint/suspicious/noExplicitAny: events are inspected field by field
type Event = Record<string, any>;

/** The newest mcp.tool.call event that `pick` finds, waiting for the batch it went out in. */
async function eventWhere(pick: (e: Event) => boolean): Promise<Event | undefined> {
  for (let i = 0; i < 40; i++) {
    const found = ((await admin('GET', '/v1/events?type=mcp.tool.call&per_page=100')).json.events as Event[]).find(
      pick,
    );
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

const roleKey = (name: string) => {
  const ref = gh.gatehouse.services.state.get<{ ref: string }>(keys.roleName(name))?.value.ref;
  assert.ok(ref, `no role ${name}`);
  return ref;
};

async function appFor(name: string, team: string, token: string) {
  const created = await admin('POST', '/v1/resources', mcpAppBody(name, upstream.url, team, token));
  assert.equal(created.status, 201, created.text);
  return created.json as { id: string; mcp_url: string };
}

test('an argument schema whose regexp does not compile refuses the call; it is never forwarded', async () => {
  const app = await appFor('rules-mcp', 'rules', 'rules-token');
  const role = {
    name: 'mcp-rules',
    allow: {
      resources: [{ kinds: ['app'], labels: { team: 'rules' } }],
      mcp_tools: ['create_issue', 'echo'],
      mcp_tool_arguments: [{ tool: 'create_issue', schema: { properties: { repo: { pattern: '^acme/' } } } }],
    },
  };
  assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  // The role API refuses such a schema (positive control for the seam: it has to come from the store).
  const refused = await admin('POST', '/v1/roles', {
    ...role,
    name: 'mcp-rules-bad',
    allow: { ...role.allow, mcp_tool_arguments: [{ tool: 'create_issue', schema: { pattern: '(' } }] },
  });
  assert.equal(refused.status, 400, refused.text);
  const user = await userWithRoles(gh, 'rules-user', ['mcp-rules']);
  const client = await mcpClient(app.mcp_url, user.token);
  try {
    const ok = await client.callTool({ name: 'create_issue', arguments: { repo: 'acme/web', title: 't' } });
    assert.equal(textOf(ok), 'created in acme/web: t', 'positive control: the rule evaluates and passes');
    const before = served('create_issue');

    type Role = { allow: { mcp_tool_arguments: Array<{ schema: Record<string, unknown> }> } };
    await rewrite<Role>(roleKey('mcp-rules'), (r) => {
      r.allow.mcp_tool_arguments[0] = {
        ...r.allow.mcp_tool_arguments[0],
        schema: { properties: { repo: { pattern: '(' } } },
      } as never;
      return r;
    });
    await assert.rejects(
      client.callTool({ name: 'create_issue', arguments: { repo: 'acme/web', title: 't' } }),
      (e: Error & { code?: number }) =>
        e.code === -32003 && /the argument policy for create_issue cannot be evaluated/.test(e.message),
    );
    assert.equal(served('create_issue'), before, 'the call never reached the server');
    // A tool the broken rule does not govern still passes.
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } })), 'echo: x');
  } finally {
    await client.close();
  }
});

test('a role record the policy cannot read refuses every call and lists nothing', async () => {
  const app = await appFor('broken-mcp', 'broken', 'broken-token');
  const role = {
    name: 'mcp-broken',
    allow: { resources: [{ kinds: ['app'], labels: { team: 'broken' } }], mcp_tools: ['echo'] },
  };
  assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  const user = await userWithRoles(gh, 'broken-user', ['mcp-broken']);
  const client = await mcpClient(app.mcp_url, user.token);
  try {
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'a' } })), 'echo: a');
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['echo'],
    );
    const before = served('echo');
    // A deny list holding a null (a hand-edited record): no tool name can be judged against it.
    await rewrite<Record<string, unknown>>(roleKey('mcp-broken'), (r) => ({ ...r, deny: { mcp_tools: [null] } }));
    await assert.rejects(
      client.callTool({ name: 'echo', arguments: { text: 'b' } }),
      (e: Error & { code?: number }) => e.code === -32003 && /the tool policy cannot be evaluated/.test(e.message),
    );
    assert.equal(served('echo'), before, 'the call never reached the server');
    assert.deepEqual((await client.listTools()).tools, [], 'a policy that cannot be evaluated shows nothing');
  } finally {
    await client.close();
  }
});

test('an upstream credential that cannot be opened refuses the call; nothing is forwarded', async () => {
  const app = await appFor('sealed-mcp', 'sealed', 'sealed-token-1');
  const other = await appFor('other-mcp', 'other', 'other-token-2');
  const role = {
    name: 'mcp-sealed',
    allow: { resources: [{ kinds: ['app'], labels: { team: 'sealed' } }], mcp_tools: ['echo'] },
  };
  assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  const user = await userWithRoles(gh, 'sealed-user', ['mcp-sealed']);
  const client = await mcpClient(app.mcp_url, user.token);
  try {
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'a' } })), 'echo: a');
    assert.equal(upstream.seen.at(-1)?.authorization, 'Bearer sealed-token-1', 'positive control');
    const before = { calls: served('echo'), requests: upstream.seen.length };
    // The other server's sealed credential on this one's record: bound to the other, it will not open.
    const sealed = gh.gatehouse.services.state.get<{ sealed: string }>(keys.mcpSecret(other.id))?.value.sealed;
    await rewrite<{ sealed: string }>(keys.mcpSecret(app.id), () => ({ sealed: sealed as string }));
    // The door keeps an opened credential for a minute (sessions/upstream-credentials.ts): past that.
    gh.clockOffset.ms += 61_000;

    await assert.rejects(
      client.callTool({ name: 'echo', arguments: { text: 'b' } }),
      (e: Error & { code?: number }) =>
        e.code === -32603 && /credential for sealed-mcp cannot be opened/.test(e.message),
    );
    const failed = await eventWhere((e) => e.data.decision === 'failed' && e.target.name === 'sealed-mcp');
    assert.equal(failed?.success, false, 'the call that was not sent is audited');
    assert.match(failed?.data.reason, /cannot be opened/);
    await assert.rejects(client.listTools(), /credential for sealed-mcp cannot be opened/);
    assert.equal(served('echo'), before.calls, 'the call never reached the server');
    assert.equal(upstream.seen.length, before.requests, 'no request reached the server at all');
    assert.ok(!upstream.seen.some((h) => h.authorization === 'Bearer other-token-2'));
  } finally {
    await client.close().catch(() => {});
  }
});
