// Approvals bound to the exact call, end to end with the official SDK v2 client and server: a call
// under mcp_require_approval is held (never reaches the server) with a URL elicitation naming the
// approval; the requester cannot approve it; a covering principal approves; the same call passes
// once; a repeat is held again; other arguments are never covered by it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { mcpClient } from './helpers/mcp-client.js';
import { startTestMcpServer, type TestMcpServer } from './helpers/mcp-upstream.js';

let gh: TestServer;
let upstream: TestMcpServer;
let client: Client;
const { admin, as } = requestsTo(() => gh);
let alice: Awaited<ReturnType<typeof userWithRoles>>;

before(async () => {
  upstream = await startTestMcpServer();
  gh = await startTestServer();
  const created = await admin('POST', '/v1/resources', {
    kind: 'app',
    name: 'ops-mcp',
    uri: upstream.url,
    protocol: 'mcp',
  });
  assert.equal(created.status, 201, created.text);
  const role = {
    name: 'mcp-ops',
    allow: { resources: [{ kinds: ['app'] }], mcp_tools: ['deploy', 'echo'] },
    options: { mcp_require_approval: ['deploy'] },
  };
  assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  alice = await userWithRoles(gh, 'alice', ['mcp-ops']);
  client = await mcpClient(created.json.mcp_url, alice.token);
});

after(async () => {
  await client?.close();
  await gh?.stop();
  await upstream?.close();
});

/** Calls deploy; the approval id when held, 'passed' when it went through. */
async function deploy(env: string): Promise<string> {
  try {
    const result = (await client.callTool({ name: 'deploy', arguments: { env } })) as {
      content?: Array<{ text: string }>;
      resultType?: string;
      inputRequests?: Record<string, { params: { url: string; elicitationId: string } }>;
    };
    if (result.content?.[0]?.text === `deployed to ${env}`) return 'passed';
    const held = Object.values(result.inputRequests ?? {})[0];
    assert.ok(held, `neither a result nor a held answer: ${JSON.stringify(result)}`);
    assert.match(held.params.url, /\/approvals\/apr_/);
    return held.params.elicitationId;
  } catch (error) {
    const data = (error as { data?: { elicitations?: Array<{ url: string; elicitationId: string }> } }).data;
    const elicitation = data?.elicitations?.[0];
    assert.ok(elicitation, `not a held call: ${(error as Error).message}`);
    assert.equal((error as { code?: number }).code, -32042);
    assert.match(elicitation.url, /\/approvals\/apr_/);
    return elicitation.elicitationId;
  }
}

test('held → approved by a covering principal → passes once → the repeat is held again', async () => {
  assert.equal((await client.callTool({ name: 'echo', arguments: { text: 'x' } })) !== undefined, true);
  const first = await deploy('prod');
  assert.match(first, /^apr_/);
  assert.equal(upstream.calls.get('deploy') ?? 0, 0, 'a held call never reaches the server');
  assert.equal(await deploy('prod'), first, 'the same call waits on the same approval');

  const pending = await admin('GET', '/v1/approvals?status=pending');
  const listed = pending.json.approvals.find((a: { id: string }) => a.id === first);
  assert.equal(listed.tool, 'deploy');
  assert.equal(listed.requester.name, 'alice');
  assert.deepEqual(listed.shown, { argument_names: ['env'] });
  assert.match(listed.digest, /^[0-9a-f]{64}$/);

  // One by id: to the requester (hers) and the admin (may decide); not to bob, whom it does not concern.
  const byId = await admin('GET', `/v1/approvals/${first}`);
  assert.equal(byId.status, 200, byId.text);
  assert.deepEqual(byId.json, listed);
  assert.equal((await as(alice.token, 'GET', `/v1/approvals/${first}`)).status, 200);
  const bob = await userWithRoles(gh, 'bob', ['mcp-ops']);
  const hidden = await as(bob.token, 'GET', `/v1/approvals/${first}`);
  assert.equal(hidden.status, 404, hidden.text);
  assert.equal((await admin('GET', '/v1/approvals/apr_doesnotexist00000')).status, 404);

  const self = await as(alice.token, 'POST', `/v1/approvals/${first}/approve`);
  assert.equal(self.status, 403, self.text);
  const approved = await admin('POST', `/v1/approvals/${first}/approve`);
  assert.equal(approved.status, 200, approved.text);
  assert.equal(approved.json.status, 'approved');
  assert.equal((await admin('POST', `/v1/approvals/${first}/approve`)).status, 409);

  assert.equal(await deploy('dev'), (await deploy('dev')) as string, 'other arguments: an approval of their own');
  assert.equal(upstream.calls.get('deploy') ?? 0, 0);
  assert.equal(await deploy('prod'), 'passed');
  assert.equal(upstream.calls.get('deploy'), 1);
  const again = await deploy('prod');
  assert.notEqual(again, 'passed', 'an approval passes one call');
  assert.notEqual(again, first);
  assert.equal(upstream.calls.get('deploy'), 1);
});

test('a denied approval lets nothing through; an unknown one is 404', async () => {
  const id = await deploy('staging');
  const denied = await admin('POST', `/v1/approvals/${id}/deny`);
  assert.equal(denied.status, 200, denied.text);
  assert.equal(denied.json.status, 'denied');
  assert.equal((await admin('POST', `/v1/approvals/${id}/approve`)).status, 409);
  assert.equal((await admin('POST', '/v1/approvals/apr_doesnotexist00000/approve')).status, 404);
  assert.equal(upstream.calls.get('deploy') ?? 0, 1);
});
