// The MCP gateway with the official SDK v2 client and server on loopback: registration (mcp_url,
// the sealed upstream credential, RFC 9728 metadata), tools/list filtered by policy, denied calls and
// arguments outside the schema that never reach the server (its call counter), the server never
// seeing the client's token, a delegated agent's calls carrying on_behalf_of. Positive controls
// beside every refusal.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { loopbackFetch, mcpClient } from './helpers/mcp-client.js';
import { mcpAppBody, startTestMcpServer, type TestMcpServer } from './helpers/mcp-upstream.js';

let gh: TestServer;
let upstream: TestMcpServer;
let mcpUrl: string;
let appId: string;
const { admin, as } = requestsTo(() => gh);
let alice: Awaited<ReturnType<typeof userWithRoles>>;
let nobody: Awaited<ReturnType<typeof userWithRoles>>;
const UPSTREAM_SECRET = 'upstream-secret-token-123';

const textOf = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]?.text;

// biome-ignore lint/suspicious/noExplicitAny: events are inspected field by field
type Event = Record<string, any>;

/** The newest event of a type that `pick` finds, waiting for the batch it went out in (50 ms). */
async function eventWhere(type: string, pick: (e: Event) => boolean): Promise<Event | undefined> {
  for (let i = 0; i < 40; i++) {
    const found = ((await admin('GET', `/v1/events?type=${type}&per_page=100`)).json.events as Event[]).find(pick);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

before(async () => {
  upstream = await startTestMcpServer();
  gh = await startTestServer();
  const created = await admin('POST', '/v1/resources', mcpAppBody('github-mcp', upstream.url, 'dev', UPSTREAM_SECRET));
  assert.equal(created.status, 201, created.text);
  mcpUrl = created.json.mcp_url;
  appId = created.json.id;
  const role = {
    name: 'mcp-dev',
    allow: {
      resources: [{ kinds: ['app'], labels: { team: 'dev' } }],
      mcp_tools: ['echo', 'create_*', 'slow', 'delete_*'],
      mcp_tool_arguments: [
        {
          tool: 'create_issue',
          schema: { type: 'object', properties: { repo: { pattern: '^acme/' } }, required: ['repo'] },
        },
      ],
    },
    deny: { mcp_tools: ['delete_*'] },
  };
  assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  const noTools = { name: 'mcp-none', allow: { resources: [{ kinds: ['app'], labels: { team: 'dev' } }] } };
  assert.equal((await admin('POST', '/v1/roles', noTools)).status, 201);
  const elsewhere = {
    name: 'mcp-elsewhere',
    allow: { resources: [{ kinds: ['app'], labels: { team: 'ops' } }], mcp_tools: ['*'] },
  };
  assert.equal((await admin('POST', '/v1/roles', elsewhere)).status, 201);
  alice = await userWithRoles(gh, 'alice', ['mcp-dev']);
  nobody = await userWithRoles(gh, 'nobody', ['mcp-none']);
});

after(async () => {
  await gh?.stop();
  await upstream?.close();
});

describe('registration', () => {
  test('an MCP server answers mcp_url on its app host and its credential by kind only', async () => {
    const port = new URL(gh.webUrl).port;
    assert.equal(mcpUrl, `http://github-mcp.localhost:${port}/mcp`);
    const got = await admin('GET', `/v1/resources/${appId}`);
    assert.equal(got.json.protocol, 'mcp');
    assert.deepEqual(got.json.mcp, { credential: 'bearer', header_names: ['authorization'] });
    assert.ok(!got.text.includes(UPSTREAM_SECRET), 'the upstream token is never answered');
  });

  test('a database cannot be mcp, and the mcp credential needs protocol mcp', async () => {
    const bad = await admin('POST', '/v1/resources', {
      kind: 'app',
      name: 'plain',
      uri: upstream.url,
      mcp: { bearer_token: 'x' },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /protocol mcp/);
  });

  test('RFC 9728 metadata names the resource; without a token the answer points to it', async () => {
    const meta = await loopbackFetch(new URL('/.well-known/oauth-protected-resource/mcp', mcpUrl));
    assert.equal(meta.status, 200);
    const body = (await meta.json()) as { resource: string; bearer_methods_supported: string[] };
    assert.equal(body.resource, mcpUrl);
    assert.deepEqual(body.bearer_methods_supported, ['header']);
    const bare = await loopbackFetch(mcpUrl, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(bare.status, 401);
    assert.match(
      String(bare.headers.get('www-authenticate')),
      /resource_metadata="http:\/\/github-mcp\.localhost:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
  });
});

describe('policy', () => {
  let client: Client;
  before(async () => {
    client = await mcpClient(mcpUrl, alice.token);
  });
  after(async () => client?.close());

  test('tools/list shows exactly the allowed tools; the hidden count is recorded', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['create_issue', 'echo', 'slow']);
    const listed = await eventWhere('mcp.tools.listed', (e) => e.actor.name === 'alice');
    assert.deepEqual({ shown: listed?.data.shown, hidden: listed?.data.hidden }, { shown: 3, hidden: 2 });
  });

  test('an allowed call passes (positive control); a denied one never reaches the server', async () => {
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'echo: hi');
    const before = upstream.calls.get('delete_repo') ?? 0;
    await assert.rejects(
      client.callTool({ name: 'delete_repo', arguments: { repo: 'acme/x' } }),
      /tool delete_repo is not allowed/,
    );
    await assert.rejects(client.callTool({ name: 'deploy', arguments: { env: 'prod' } }), /tool deploy is not allowed/);
    assert.equal(upstream.calls.get('delete_repo') ?? 0, before);
    assert.equal(upstream.calls.get('deploy') ?? 0, 0);
    const denied = await eventWhere('mcp.tool.call', (e) => e.data.tool === 'delete_repo');
    assert.equal(denied?.data.decision, 'denied');
    assert.equal(denied?.success, false);
    assert.match(denied?.data.arguments_hash, /^[0-9a-f]{64}$/);
    assert.deepEqual(denied?.data.argument_names, ['repo']);
  });

  test('arguments outside the schema are refused before the server; inside, they pass', async () => {
    const before = upstream.calls.get('create_issue') ?? 0;
    await assert.rejects(
      client.callTool({ name: 'create_issue', arguments: { repo: 'evil/x', title: 't' } }),
      /arguments\/repo must match pattern/,
    );
    assert.equal(upstream.calls.get('create_issue') ?? 0, before);
    const ok = await client.callTool({ name: 'create_issue', arguments: { repo: 'acme/web', title: 'bug' } });
    assert.equal(textOf(ok), 'created in acme/web: bug');
    assert.equal(upstream.calls.get('create_issue'), before + 1);
  });

  test('no mcp_tools: no tools listed and none callable; the server is still reached for the rest', async () => {
    const c = await mcpClient(mcpUrl, nobody.token);
    try {
      assert.deepEqual((await c.listTools()).tools, []);
      await assert.rejects(c.callTool({ name: 'echo', arguments: { text: 'x' } }), /tool echo is not allowed/);
    } finally {
      await c.close();
    }
  });

  test('the server never sees the client token; it gets its own credential and the identity assertion', async () => {
    const recent = upstream.seen.slice(-5);
    assert.ok(recent.length > 0);
    for (const h of recent) {
      assert.equal(h.authorization, `Bearer ${UPSTREAM_SECRET}`);
      assert.ok(!JSON.stringify(h).includes(alice.token));
      assert.ok(h['gatehouse-jwt-assertion']);
    }
  });

  test('a bad token is refused; a principal without the app gets 403', async () => {
    await assert.rejects(mcpClient(mcpUrl, 'gha_notavalidtoken'), /malformed access token/);
    const outsider = await userWithRoles(gh, 'outsider', ['mcp-elsewhere']);
    await assert.rejects(mcpClient(mcpUrl, outsider.token), /outsider may not use github-mcp/);
  });
});

describe('wire', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    loopbackFetch(mcpUrl, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: {
        authorization: `Bearer ${alice.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
    });

  test('a batch smuggling a tool call behind an allowed one is refused whole', async () => {
    const before = upstream.calls.get('delete_repo') ?? 0;
    const res = await post([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'delete_repo', arguments: { repo: 'r' } } },
    ]);
    assert.equal(res.status, 400);
    assert.match(await res.text(), /batches are not accepted/);
    assert.equal(upstream.calls.get('delete_repo') ?? 0, before);
  });

  test('a tool call sent as a notification (no id) is refused; a real notification passes', async () => {
    for (const method of ['tools/call', 'resources/read', 'prompts/get']) {
      const res = await post({ jsonrpc: '2.0', method, params: { name: 'delete_repo', arguments: { repo: 'r' } } });
      assert.equal(res.status, 400, `${method}: ${await res.clone().text()}`);
      assert.match(await res.text(), /must be sent as a request, with an id/);
    }
    // Positive control: notifications/* still reach the server, which accepts them (202).
    const ok = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(ok.status, 202, await ok.clone().text());
  });

  test('an Mcp-Method or Mcp-Name header that does not match the body is refused', async () => {
    const before = upstream.calls.get('delete_repo') ?? 0;
    const call = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'delete_repo', arguments: { repo: 'r' } },
    };
    const byName = await post(call, { 'mcp-method': 'tools/call', 'mcp-name': 'echo' });
    assert.equal(byName.status, 400, await byName.clone().text());
    const byMethod = await post(call, { 'mcp-method': 'tools/list' });
    assert.equal(byMethod.status, 400);
    assert.equal(upstream.calls.get('delete_repo') ?? 0, before);
  });
});

describe('delegation and the kill switch', () => {
  test("a delegated agent's calls carry on_behalf_of; suspending it cuts its call in flight and refuses the next", async () => {
    // Its owner holds the tools too: an agent acts within its roles ∩ its owner's ∩ the delegator's.
    const owen = await userWithRoles(gh, 'owen', ['mcp-dev', 'editor']);
    const made = await as(owen.token, 'POST', '/v1/agents', { name: 'assistant', roles: ['mcp-dev'] });
    assert.equal(made.status, 201, made.text);
    const agent = made.json;
    const agentToken = (await as(owen.token, 'POST', `/v1/agents/${agent.id}/credentials`, {})).json.access_token;
    const delegated = await as(alice.token, 'POST', `/v1/agents/${agent.id}/delegations`, {});
    assert.equal(delegated.status, 201, delegated.text);
    const exchanged = await api(gh.url, 'POST', '/v1/auth/token', {
      body: {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: alice.token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        actor_token: agentToken,
        actor_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      },
    });
    assert.equal(exchanged.status, 200, exchanged.text);
    const c = await mcpClient(mcpUrl, exchanged.json.access_token);
    assert.equal(textOf(await c.callTool({ name: 'echo', arguments: { text: 'for alice' } })), 'echo: for alice');
    const call = await eventWhere('mcp.tool.call', (e) => e.actor.id === agent.id);
    assert.equal(call?.data.decision, 'allowed');
    assert.equal(call?.data.on_behalf_of?.name, 'alice');

    const slow = c.callTool({ name: 'slow', arguments: {} }).then(
      () => 'finished',
      () => 'cut',
    );
    await upstream.slowStarted();
    const t0 = Date.now();
    const suspended = await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'suspended' });
    assert.equal(suspended.status, 200, suspended.text);
    assert.equal(await slow, 'cut');
    assert.ok(Date.now() - t0 < 5000, 'the call in flight ends at once');
    await assert.rejects(c.callTool({ name: 'echo', arguments: { text: 'again' } }));
    await c.close().catch(() => {});
  });
});
