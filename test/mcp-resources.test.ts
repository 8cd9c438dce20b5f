// MCP resources and prompts under policy: roles' mcp_resources (URI globs) and mcp_prompts (name
// globs), deny wins, none = none, trait templates expanded per principal. The official SDK v2 client
// and server on loopback; the server counts every read, subscription and prompt it serves, so a
// refused one is seen never to reach it. Positive controls beside every refusal.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { mcpClient } from './helpers/mcp-client.js';
import { mcpAppBody, startTestMcpServer, type TestMcpServer } from './helpers/mcp-upstream.js';

let gh: TestServer;
let upstream: TestMcpServer;
let mcpUrl: string;
const { admin } = requestsTo(() => gh);
let alice: Client;
let toolsOnly: Client;

// biome-ignore lint/suspicious/noExplicitAny: events are inspected field by field
type Event = Record<string, any>;

async function eventWhere(type: string, pick: (e: Event) => boolean): Promise<Event | undefined> {
  for (let i = 0; i < 40; i++) {
    const found = ((await admin('GET', `/v1/events?type=${type}&per_page=100`)).json.events as Event[]).find(pick);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

const served = (what: string) => upstream.calls.get(what) ?? 0;

before(async () => {
  upstream = await startTestMcpServer();
  gh = await startTestServer();
  const created = await admin('POST', '/v1/resources', mcpAppBody('docs-mcp', upstream.url, 'docs', 'upstream-t'));
  assert.equal(created.status, 201, created.text);
  mcpUrl = created.json.mcp_url;
  const role = {
    name: 'mcp-docs',
    allow: {
      resources: [{ kinds: ['app'], labels: { team: 'docs' } }],
      // Trait templates expand per principal, as logins do (a whole value: trait values are names).
      mcp_tools: ['{{internal.mcp_tools}}'],
      mcp_resources: ['docs://public/*', 'docs://alice/*'],
      mcp_prompts: ['summarize*', '{{internal.prompts}}'],
    },
    deny: { mcp_resources: ['docs://public/secret*'], mcp_prompts: ['*_secret'] },
  };
  const made = await admin('POST', '/v1/roles', role);
  assert.equal(made.status, 201, made.text);
  const tools = {
    name: 'mcp-tools-only',
    allow: { resources: [{ kinds: ['app'], labels: { team: 'docs' } }], mcp_tools: ['*'] },
  };
  assert.equal((await admin('POST', '/v1/roles', tools)).status, 201);
  const a = await userWithRoles(gh, 'alice', ['mcp-docs'], { mcp_tools: ['echo'], prompts: ['triage'] });
  const t = await userWithRoles(gh, 'toolsonly', ['mcp-tools-only']);
  alice = await mcpClient(mcpUrl, a.token);
  toolsOnly = await mcpClient(mcpUrl, t.token);
});

after(async () => {
  await alice?.close();
  await toolsOnly?.close();
  await gh?.stop();
  await upstream?.close();
});

describe('resources', () => {
  test('resources/list shows the allowed URIs; the hidden count is recorded', async () => {
    const { resources } = await alice.listResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(), ['docs://alice/notes', 'docs://public/readme']);
    const listed = await eventWhere('mcp.resources.listed', (e) => e.actor.name === 'alice');
    assert.deepEqual({ shown: listed?.data.shown, hidden: listed?.data.hidden }, { shown: 2, hidden: 2 });
  });

  test('an allowed read works; a denied one is refused saying why, never reaches the server, and is audited', async () => {
    const ok = await alice.readResource({ uri: 'docs://public/readme' });
    assert.equal((ok.contents[0] as { text: string }).text, 'contents of docs://public/readme');
    const own = await alice.readResource({ uri: 'docs://alice/notes' });
    assert.equal((own.contents[0] as { text: string }).text, 'contents of docs://alice/notes');

    for (const uri of ['docs://bob/notes', 'docs://public/secret-plan']) {
      const before = served(`read ${uri}`);
      await assert.rejects(
        alice.readResource({ uri }),
        (e: Error & { code?: number }) =>
          e.code === -32003 && e.message.includes(`gatehouse: resource ${uri} is not allowed`),
      );
      assert.equal(served(`read ${uri}`), before, `${uri} reached the server`);
    }
    const denied = await eventWhere('mcp.resource.read', (e) => e.data.uri === 'docs://bob/notes');
    assert.equal(denied?.data.decision, 'denied');
    assert.equal(denied?.data.reason, 'resource docs://bob/notes is not allowed');
    assert.equal(denied?.success, false);
    assert.equal(denied?.actor.name, 'alice');
    const allowed = await eventWhere('mcp.resource.read', (e) => e.data.uri === 'docs://public/readme');
    assert.equal(allowed?.data.decision, 'allowed');
    assert.equal(allowed?.success, true);
  });

  test('subscribing follows the same rule', async () => {
    await alice.subscribeResource({ uri: 'docs://public/readme' });
    assert.equal(served('subscribe docs://public/readme'), 1);
    await assert.rejects(
      alice.subscribeResource({ uri: 'docs://bob/notes' }),
      /resource docs:\/\/bob\/notes is not allowed/,
    );
    assert.equal(served('subscribe docs://bob/notes'), 0);
  });

  test('no mcp_resources: no resources listed and none readable', async () => {
    assert.deepEqual((await toolsOnly.listResources()).resources, []);
    await assert.rejects(toolsOnly.readResource({ uri: 'docs://public/readme' }), /is not allowed/);
    // Positive control: the same principal's tools still work.
    const echoed = await toolsOnly.callTool({ name: 'echo', arguments: { text: 'x' } });
    assert.equal((echoed as { content: Array<{ text: string }> }).content[0]?.text, 'echo: x');
  });
});

describe('prompts', () => {
  test('prompts/list shows the allowed names (a trait template expanded); a denied get is refused and audited', async () => {
    const { prompts } = await alice.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['summarize', 'triage']);
    const got = await alice.getPrompt({ name: 'summarize' });
    assert.equal(
      JSON.stringify(got.messages),
      JSON.stringify([{ role: 'user', content: { type: 'text', text: 'prompt summarize' } }]),
    );
    const fromTrait = await alice.getPrompt({ name: 'triage' });
    assert.equal(
      JSON.stringify(fromTrait.messages),
      JSON.stringify([{ role: 'user', content: { type: 'text', text: 'prompt triage' } }]),
    );
    for (const name of ['summarize_secret']) {
      await assert.rejects(alice.getPrompt({ name }), new RegExp(`gatehouse: prompt ${name} is not allowed`));
      assert.equal(served(`prompt ${name}`), 0, `${name} reached the server`);
    }
    const denied = await eventWhere('mcp.prompt.get', (e) => e.data.prompt === 'summarize_secret');
    assert.equal(denied?.data.decision, 'denied');
    assert.equal(denied?.success, false);
    const listed = await eventWhere('mcp.prompts.listed', (e) => e.actor.name === 'alice');
    assert.deepEqual({ shown: listed?.data.shown, hidden: listed?.data.hidden }, { shown: 2, hidden: 1 });
  });

  test('a trait template in mcp_tools expands to the principal’s tools only', async () => {
    const { tools } = await alice.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['echo'],
    );
    await assert.rejects(alice.callTool({ name: 'deploy', arguments: { env: 'prod' } }), /tool deploy is not allowed/);
  });

  test('no mcp_prompts: none listed and none got', async () => {
    assert.deepEqual((await toolsOnly.listPrompts()).prompts, []);
    await assert.rejects(toolsOnly.getPrompt({ name: 'summarize' }), /prompt summarize is not allowed/);
  });
});

describe('granting', () => {
  test('nobody grants resources or prompts they do not hold', async () => {
    const body = (name: string, allow: Record<string, unknown>) => ({
      name,
      allow: { resources: [{ kinds: ['app'], labels: { team: 'docs' } }], ...allow },
    });
    // alice's role manager: may write roles, holds mcp-docs' resources and prompts only.
    const manager = {
      name: 'docs-role-manager',
      allow: {
        rules: [{ resources: ['roles'], verbs: ['create', 'read', 'update'] }],
        resources: [{ kinds: ['app'], labels: { team: 'docs' } }],
        mcp_resources: ['docs://public/*'],
        mcp_prompts: ['summarize*'],
      },
    };
    assert.equal((await admin('POST', '/v1/roles', manager)).status, 201);
    const m = await userWithRoles(gh, 'manager', ['docs-role-manager']);
    const as = (b: unknown) => requestsTo(() => gh).as(m.token, 'POST', '/v1/roles', b);
    const wider = await as(body('wider-resources', { mcp_resources: ['docs://*'] }));
    assert.equal(wider.status, 403, wider.text);
    assert.match(wider.text, /mcp_resource docs:\/\/\*/);
    const widerPrompts = await as(body('wider-prompts', { mcp_prompts: ['*'] }));
    assert.equal(widerPrompts.status, 403, widerPrompts.text);
    assert.match(widerPrompts.text, /mcp_prompt \*/);
    // Positive control: what the manager holds, it may grant.
    const same = await as(
      body('same-resources', { mcp_resources: ['docs://public/readme'], mcp_prompts: ['summarize'] }),
    );
    assert.equal(same.status, 201, same.text);
  });
});
