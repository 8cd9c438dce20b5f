// Approvals on a proxy-only instance: an auth instance on etcd and one joined proxy-only instance
// (no store credentials). A tool call under mcp_require_approval made through the proxy is held —
// the auth tier, asked over the internal API, checks the call again and writes the approval — a
// covering principal approves it on the auth tier, and the same call through the proxy passes once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { Gatehouse } from '../src/server.js';
import { joinToken } from './helpers/cluster-join.js';
import { clusterScene, TEST_REDIS_URL } from './helpers/cluster-scene.js';
import { type EtcdCluster, startEtcd } from './helpers/etcd.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { mcpClient } from './helpers/mcp-client.js';
import { mcpAppBody, startTestMcpServer, type TestMcpServer } from './helpers/mcp-upstream.js';

const scene = clusterScene('gatehouse-mcp-cluster-');
const shared = () => ({
  seal_key_file: scene.sealKey,
  redis_url: TEST_REDIS_URL,
  web_public_url: 'http://localhost:18299',
});

let etcd: EtcdCluster;
let auth: TestServer;
let proxy: Gatehouse;
let upstream: TestMcpServer;
let client: Client;
const admin = (method: string, path: string, body?: unknown) =>
  api(auth.url, method, path, { token: auth.adminToken, ...(body ? { body } : {}) });

before(async () => {
  upstream = await startTestMcpServer();
  etcd = await startEtcd(1);
  auth = await startTestServer({ ...shared(), backend_url: etcd.url('/mcp-cluster/'), roles: ['auth'] });
  const token = await joinToken(auth, { uses: 1 });
  ({ gatehouse: proxy } = await scene.startProxy(
    auth.url,
    { trusted_proxies: ['127.0.0.0/8'], 'cluster.join_token': token, ...shared() },
    { logLevel: process.env.MCP_CLUSTER_LOG ?? 'silent' },
  ));
  assert.equal(
    (await admin('POST', '/v1/resources', mcpAppBody('deploy-mcp', upstream.url, 'ops', 'up-t'))).status,
    201,
  );
  const role = {
    name: 'mcp-deployer',
    allow: { resources: [{ kinds: ['app'], labels: { team: 'ops' } }], mcp_tools: ['deploy', 'echo'] },
    options: { mcp_require_approval: ['deploy'] },
  };
  assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  const person = await userWithRoles(auth, 'dora', ['mcp-deployer']);
  const port = new URL(proxy.webUrl as string).port;
  // Through the proxy-only instance: its cache follows auth's watch, so the app may take a moment.
  for (let i = 0; ; i++) {
    try {
      client = await mcpClient(`http://deploy-mcp.localhost:${port}/mcp`, person.token);
      break;
    } catch (error) {
      if (i > 40) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
});

after(async () => {
  await client?.close();
  await Promise.allSettled([proxy?.close(), auth?.stop()]);
  await etcd?.close();
  await upstream?.close();
  scene.remove();
});

async function deploy(): Promise<string> {
  try {
    const result = (await client.callTool({ name: 'deploy', arguments: { env: 'prod' } })) as {
      content?: Array<{ text: string }>;
      inputRequests?: Record<string, { params: { elicitationId: string } }>;
    };
    if (result.content?.[0]?.text === 'deployed to prod') return 'passed';
    const held = Object.values(result.inputRequests ?? {})[0];
    assert.ok(held, `neither a result nor a held answer: ${JSON.stringify(result)}`);
    return held.params.elicitationId;
  } catch (error) {
    const data = (error as { data?: { elicitations?: Array<{ elicitationId: string }> } }).data;
    assert.ok(data?.elicitations?.[0], `not a held call: ${(error as Error).message}`);
    return data.elicitations[0].elicitationId;
  }
}

test('through a proxy-only instance: held, approved on the auth tier, then passes once', async () => {
  // Positive control: a call needing no approval goes straight through the proxy.
  const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  assert.equal((echoed as { content: Array<{ text: string }> }).content[0]?.text, 'echo: hi');

  const id = await deploy();
  assert.match(id, /^apr_/);
  assert.equal(upstream.calls.get('deploy') ?? 0, 0, 'a held call never reaches the server');
  const pending = await admin('GET', '/v1/approvals?status=pending');
  assert.ok(
    pending.json.approvals.some((a: { id: string }) => a.id === id),
    pending.text,
  );
  const approved = await admin('POST', `/v1/approvals/${id}/approve`);
  assert.equal(approved.status, 200, approved.text);

  assert.equal(await deploy(), 'passed');
  assert.equal(upstream.calls.get('deploy'), 1);
  const again = await deploy();
  assert.match(again, /^apr_/);
  assert.notEqual(again, id, 'used once: the repeat waits on a new approval');
  assert.equal(upstream.calls.get('deploy'), 1);

  const events = await admin('GET', '/v1/events?type=mcp.approval.used&per_page=10');
  assert.ok(
    events.json.events.some((e: { data: { approval_id: string } }) => e.data.approval_id === id),
    events.text,
  );
});
