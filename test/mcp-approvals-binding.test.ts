// What an approval is bound to, and for how long: the SHA-256 of the canonical JSON of {tool,
// arguments, principal}. The same arguments in another key order are the same call; one nested
// value, an array's order, a value's type, an extra key or another principal make another call,
// held for an approval of its own. Approved, the call passes once (a replay, or two identical calls
// at once, pass one in all), and only within the TTL (10 minutes from the request): a held call not
// approved in time cannot be approved, an approved one not used in time passes nothing. The official
// SDK v2 client and server on loopback; the server counts the calls it receives.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { loopbackFetch, mcpClient } from './helpers/mcp-client.js';
import { startTestMcpServer, type TestMcpServer } from './helpers/mcp-upstream.js';

let gh: TestServer;
let upstream: TestMcpServer;
let mcpUrl: string;
let alice: Client;
let bob: Client;
let aliceToken: string;
const { admin } = requestsTo(() => gh);
const served = (tool: string) => upstream.calls.get(tool) ?? 0;
const TTL_MS = 10 * 60_000;

before(async () => {
  upstream = await startTestMcpServer({ nested: true });
  gh = await startTestServer();
  const created = await admin('POST', '/v1/resources', {
    kind: 'app',
    name: 'cfg-mcp',
    uri: upstream.url,
    protocol: 'mcp',
  });
  assert.equal(created.status, 201, created.text);
  mcpUrl = created.json.mcp_url;
  const role = {
    name: 'mcp-cfg',
    allow: { resources: [{ kinds: ['app'] }], mcp_tools: ['configure', 'deploy'] },
    options: { mcp_require_approval: ['configure', 'deploy'] },
  };
  assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  const a = await userWithRoles(gh, 'alice', ['mcp-cfg']);
  aliceToken = a.token;
  alice = await mcpClient(mcpUrl, a.token);
  bob = await mcpClient(mcpUrl, (await userWithRoles(gh, 'bob', ['mcp-cfg'])).token);
});

after(async () => {
  await alice?.close();
  await bob?.close();
  await gh?.stop();
  await upstream?.close();
});

/** Calls a tool; 'passed' when the server answered, else the id of the approval it is held for. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  try {
    const result = (await client.callTool({ name, arguments: args })) as { content?: Array<{ text: string }> };
    assert.match(result.content?.[0]?.text ?? '', /^(configured|deployed) /, JSON.stringify(result));
    return 'passed';
  } catch (error) {
    const e = error as { code?: number; data?: { elicitations?: Array<{ elicitationId: string }> } };
    assert.equal(e.code, -32042, `not a held call: ${(error as Error).message}`);
    const id = e.data?.elicitations?.[0]?.elicitationId;
    assert.match(id ?? '', /^apr_/);
    return id as string;
  }
}

const approve = (id: string) => admin('POST', `/v1/approvals/${id}/approve`);

test('the approval binds the exact arguments: key order does not matter, every value does', async () => {
  const exact = {
    target: { env: 'prod', replicas: 3, tags: { team: 'web', tier: '1' } },
    flags: ['canary', 'fast'],
  };
  const id = await call(alice, 'configure', exact);
  assert.equal((await approve(id)).status, 200);

  const variants: Array<[string, Record<string, unknown>]> = [
    ['a nested number', { ...exact, target: { ...exact.target, replicas: 4 } }],
    ['a value two levels down', { ...exact, target: { ...exact.target, tags: { team: 'web', tier: '2' } } }],
    ['an extra nested key', { ...exact, target: { ...exact.target, tags: { ...exact.target.tags, x: 'y' } } }],
    ['an array in another order', { ...exact, flags: ['fast', 'canary'] }],
    ['a number sent as a string', { ...exact, target: { ...exact.target, replicas: '3' } }],
    ['a missing key', { target: exact.target }],
  ];
  for (const [what, args] of variants) {
    const other = await call(alice, 'configure', args);
    assert.notEqual(other, 'passed', `${what}: not covered by the approval`);
    assert.notEqual(other, id, `${what}: an approval of its own`);
  }
  const byBob = await call(bob, 'configure', exact);
  assert.notEqual(byBob, 'passed', 'another principal with the same arguments is another call');
  assert.notEqual(byBob, id);
  assert.equal(served('configure'), 0, 'nothing reached the server');

  // The same call with every object's keys in another order on the wire: the approved call.
  const reordered = {
    flags: ['canary', 'fast'],
    target: { tags: { tier: '1', team: 'web' }, replicas: 3, env: 'prod' },
  };
  assert.notEqual(JSON.stringify(reordered), JSON.stringify(exact));
  assert.equal(await call(alice, 'configure', reordered), 'passed');
  assert.equal(served('configure'), 1);
  assert.equal((await admin('GET', `/v1/approvals/${id}`)).json.status, 'used');
});

test('an approval passes one call: a replay, or two identical calls at once, pass one in all', async () => {
  const id = await call(alice, 'deploy', { env: 'once' });
  assert.equal((await approve(id)).status, 200);
  const both = await Promise.all([call(alice, 'deploy', { env: 'once' }), call(alice, 'deploy', { env: 'once' })]);
  assert.deepEqual(
    both.filter((r) => r === 'passed'),
    ['passed'],
    `exactly one of two calls at once passes: ${both}`,
  );
  assert.equal(served('deploy'), 1);

  // The passed call's request replayed byte for byte, outside the SDK: held for a new approval.
  const replay = await loopbackFetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${aliceToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'deploy', arguments: { env: 'once' } },
    }),
  });
  const answer = (await replay.json()) as {
    error?: { code: number; data?: { elicitations: Array<{ elicitationId: string }> } };
  };
  assert.equal(answer.error?.code, -32042, JSON.stringify(answer));
  assert.notEqual(answer.error?.data?.elicitations[0]?.elicitationId, id);
  assert.equal(served('deploy'), 1, 'a replay never reaches the server');
});

test('within the TTL only: not approved in time, it cannot be; approved and not used in time, it passes nothing', async () => {
  try {
    // Held, and not approved within 10 minutes: the approval is gone; the call is held anew.
    const late = await call(alice, 'deploy', { env: 'ttl-pending' });
    gh.clockOffset.ms += TTL_MS + 1000;
    const tooLate = await approve(late);
    assert.equal(tooLate.status, 404, tooLate.text);
    const anew = await call(alice, 'deploy', { env: 'ttl-pending' });
    assert.notEqual(anew, 'passed');
    assert.notEqual(anew, late);

    // Approved but not used within 10 minutes of the request: the call is held anew, not sent.
    const unused = await call(alice, 'deploy', { env: 'ttl-approved' });
    assert.equal((await approve(unused)).status, 200);
    gh.clockOffset.ms += TTL_MS + 1000;
    const after = await call(alice, 'deploy', { env: 'ttl-approved' });
    assert.notEqual(after, 'passed', 'an approval past its TTL passes nothing');
    assert.notEqual(after, unused);
    assert.equal(served('deploy'), 1, 'no expired approval reached the server');

    // Positive control: approved and used just inside the TTL, it passes.
    assert.equal((await approve(after)).status, 200);
    gh.clockOffset.ms += TTL_MS - 60_000;
    assert.equal(await call(alice, 'deploy', { env: 'ttl-approved' }), 'passed');
    assert.equal(served('deploy'), 2);
  } finally {
    gh.clockOffset.ms = 0;
  }
});
