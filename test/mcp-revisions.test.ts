// The MCP gateway on both revisions the SDK v2 speaks: 2026-07-28 (stateless: server/discover, no
// session, Mcp-Method/Mcp-Name headers, an input-required result for a held call) and 2025-11-25
// (initialize, sessions, error -32042). The official SDK v2 client, pinned to 2026-07-28 or left on
// its default (2025-11-25), and server on loopback; the server counts calls and records headers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { loopbackFetch, mcpClient } from './helpers/mcp-client.js';
import { startTestMcpServer, type TestMcpServer } from './helpers/mcp-upstream.js';

const MODERN = '2026-07-28';
let gh: TestServer;
let upstream: TestMcpServer;
let mcpUrl: string;
let token: string;
const { admin } = requestsTo(() => gh);
const served = (tool: string) => upstream.calls.get(tool) ?? 0;
const textOf = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]?.text;

before(async () => {
  upstream = await startTestMcpServer();
  gh = await startTestServer();
  const created = await admin('POST', '/v1/resources', {
    kind: 'app',
    name: 'rev-mcp',
    uri: upstream.url,
    protocol: 'mcp',
  });
  assert.equal(created.status, 201, created.text);
  mcpUrl = created.json.mcp_url;
  const role = {
    name: 'mcp-rev',
    allow: { resources: [{ kinds: ['app'] }], mcp_tools: ['echo', 'deploy'] },
    options: { mcp_require_approval: ['deploy'] },
  };
  assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  token = (await userWithRoles(gh, 'rita', ['mcp-rev'])).token;
});

after(async () => {
  await gh?.stop();
  await upstream?.close();
});

/** An SDK v2 client pinned to 2026-07-28; `onUrl` answers a URL elicitation (as a person would). */
async function modernClient(onUrl?: (params: { url: string; elicitationId?: string }) => Promise<void>) {
  const client = new Client(
    { name: 'gatehouse-modern', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      capabilities: onUrl ? { elicitation: { url: {} } } : {},
    },
  );
  if (onUrl)
    client.setRequestHandler('elicitation/create', async (req) => {
      const params = req.params as { mode?: string; url: string; elicitationId?: string };
      assert.equal(params.mode, 'url');
      await onUrl(params);
      return { action: 'accept' };
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      fetch: loopbackFetch,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** A raw 2026-07-28 tools/call, envelope and headers as the SDK sends them; `header`: its Mcp-Name. */
const post = (name: string, header: string, args: Record<string, unknown>) =>
  loopbackFetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': header,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });

describe('2026-07-28', () => {
  test('server/discover passes; tools are listed and called as on 2025-11-25, without a session', async () => {
    const seenBefore = upstream.seen.length;
    const client = await modernClient();
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['deploy', 'echo']);
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'new' } })), 'echo: new');
      const before = served('delete_repo');
      await assert.rejects(
        client.callTool({ name: 'delete_repo', arguments: { repo: 'r' } }),
        (e: Error & { code?: number }) => e.code === -32003 && /tool delete_repo is not allowed/.test(e.message),
      );
      assert.equal(served('delete_repo'), before);
      const seen = upstream.seen.slice(seenBefore);
      assert.ok(seen.length >= 3);
      for (const h of seen) {
        assert.equal(h['mcp-protocol-version'], MODERN, 'the server is spoken to in the revision the client chose');
        assert.equal(h['mcp-session-id'], undefined, 'no session on 2026-07-28');
        assert.ok(h['mcp-method'], 'the Mcp-Method header reaches the server');
      }
      assert.ok(seen.some((h) => h['mcp-method'] === 'server/discover'));
      assert.ok(seen.some((h) => h['mcp-method'] === 'tools/call' && h['mcp-name'] === 'echo'));
    } finally {
      await client.close();
    }
  });

  test('a held call answers input-required with a URL elicitation; approved from it, the retry passes once', async () => {
    let asked = '';
    const client = await modernClient(async ({ url, elicitationId }) => {
      // 2026-07-28 has no elicitationId: the approval is the URL's last segment.
      assert.equal(elicitationId, undefined);
      asked = /\/approvals\/(apr_[0-9a-z]+)$/.exec(url)?.[1] ?? '';
      assert.equal(served('deploy'), 0, 'held: the server has not seen the call');
      // The person opens the URL and approves; the SDK then retries the call.
      const approved = await admin('POST', `/v1/approvals/${asked}/approve`);
      assert.equal(approved.status, 200, approved.text);
    });
    try {
      assert.equal(textOf(await client.callTool({ name: 'deploy', arguments: { env: 'prod' } })), 'deployed to prod');
      assert.match(asked, /^apr_/);
      assert.equal(served('deploy'), 1, 'the retry after the approval passed, once');
      assert.equal((await admin('GET', `/v1/approvals/${asked}`)).json.status, 'used');
    } finally {
      await client.close();
    }
    // Without a way to answer the elicitation, the client is told and nothing is sent.
    const plain = await modernClient();
    try {
      await assert.rejects(plain.callTool({ name: 'deploy', arguments: { env: 'prod' } }));
      assert.equal(served('deploy'), 1);
    } finally {
      await plain.close();
    }
  });

  test('a held call is answered with the revision’s input-required result, as it defines it', async () => {
    const res = await post('deploy', 'deploy', { env: 'raw' });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { result?: { resultType: string; inputRequests: Record<string, unknown> } };
    assert.equal(body.result?.resultType, 'input_required', JSON.stringify(body));
    const ask = body.result?.inputRequests.gatehouse_approval as { method: string; params: Record<string, string> };
    assert.equal(ask.method, 'elicitation/create');
    assert.deepEqual(Object.keys(ask.params).sort(), ['message', 'mode', 'url'], 'no elicitationId on 2026-07-28');
    assert.equal(ask.params.mode, 'url');
    assert.match(ask.params.url ?? '', /\/approvals\/apr_[0-9a-z]+$/);
    assert.equal(served('deploy'), 1, 'held, not sent (the one call so far is the approved one)');
  });

  test('an Mcp-Name header naming another tool than the body is refused; a matching one passes', async () => {
    const before = served('delete_repo');
    const smuggled = await post('delete_repo', 'echo', { repo: 'r' });
    assert.equal(smuggled.status, 400, await smuggled.clone().text());
    assert.equal(served('delete_repo'), before);
    const echoes = served('echo');
    const ok = await post('echo', 'echo', { text: 'raw' });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.match(await ok.text(), /echo: raw/);
    assert.equal(served('echo'), echoes + 1);
  });
});

describe('2025-11-25', () => {
  test('the default client speaks 2025-11-25 (initialize, no Mcp-Method); a held call is error -32042', async () => {
    const client = await mcpClient(mcpUrl, token);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'old' } })), 'echo: old');
      assert.equal(upstream.seen.at(-1)?.['mcp-protocol-version'], '2025-11-25');
      assert.equal(upstream.seen.at(-1)?.['mcp-method'], undefined, 'no Mcp-Method header before 2026-07-28');
      await assert.rejects(
        client.callTool({ name: 'deploy', arguments: { env: 'legacy' } }),
        (e: Error & { code?: number; data?: { elicitations?: Array<{ url: string }> } }) => {
          assert.equal(e.code, -32042);
          assert.match(e.data?.elicitations?.[0]?.url ?? '', /\/approvals\/apr_/);
          return true;
        },
      );
    } finally {
      await client.close();
    }
  });
});
