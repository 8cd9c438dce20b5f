// `gatehouse mcp connect <app>` as a stdio-only MCP client uses it: the official SDK Client spawns the
// command (StdioClientTransport) and lists and calls tools through Gatehouse's gateway as the logged-in
// user: a tool the role hides is absent (the allowed one present), the upstream sees only its own
// credential, never the user's token; a login that ends (before or mid-session) is one line on stderr
// and exit 1.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type CliHome, cliHome } from './helpers/cli.js';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { mcpAppBody, startTestMcpServer, type TestMcpServer } from './helpers/mcp-upstream.js';

const UPSTREAM_SECRET = 'cli-upstream-secret-456';

let server: TestServer;
let upstream: TestMcpServer;
const h: CliHome = cliHome();
const { admin } = requestsTo(() => server);

describe('gatehouse mcp connect', () => {
  before(async () => {
    [server, upstream] = await Promise.all([startTestServer(), startTestMcpServer()]);
    const created = await admin(
      'POST',
      '/v1/resources',
      mcpAppBody('cli-mcp', upstream.url, 'mcp-cli', UPSTREAM_SECRET),
    );
    assert.equal(created.status, 201, created.text);
    const role = await admin('POST', '/v1/roles', {
      name: 'cli-mcp-user',
      allow: { resources: [{ kinds: ['app'], labels: { team: 'mcp-cli' } }], mcp_tools: ['echo'] },
    });
    assert.equal(role.status, 201, role.text);
    const user = await userWithRoles(server, 'cli-mcpuser', ['cli-mcp-user']);
    const login = await h.run(['login', '--proxy', server.webUrl], { env: { GATEHOUSE_API_KEY: user.apiKey } });
    assert.equal(login.code, 0, login.stderr);
  });
  after(async () => {
    h.remove();
    await server?.stop();
    await upstream?.close();
  });

  const spawnClient = async () => {
    let stderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/gatehouse.mjs', 'mcp', 'connect', 'cli-mcp'],
      env: h.env,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d) => {
      stderr += d;
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    return { client, transport, stderr: () => stderr };
  };

  test('a stdio client lists the allowed tools only and calls one; the upstream never sees the token', async () => {
    const { client, transport, stderr } = await spawnClient();
    try {
      await client.connect(transport).catch((e) => assert.fail(`${e} ${stderr()}`));
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      assert.ok(names.includes('echo'), `the allowed tool is listed: ${names} ${stderr()}`);
      assert.ok(!names.includes('delete_repo'), 'a tool the role does not allow is hidden');
      assert.deepEqual(names, ['echo']);
      const before = upstream.calls.get('echo') ?? 0;
      const answer = (await client.callTool({ name: 'echo', arguments: { text: 'over stdio' } })) as {
        content: Array<{ text: string }>;
      };
      assert.equal(answer.content[0]?.text, 'echo: over stdio');
      assert.equal(upstream.calls.get('echo'), before + 1);
      const token = JSON.parse(readFileSync(join(h.env.GATEHOUSE_HOME as string, 'default.json'), 'utf8')).tokens
        .access_token as string;
      assert.ok(upstream.seen.length > 0);
      for (const headers of upstream.seen) {
        assert.equal(headers.authorization, `Bearer ${UPSTREAM_SECRET}`);
        assert.ok(!JSON.stringify(headers).includes(token), 'the user token never reaches the upstream');
      }
    } finally {
      await client.close();
    }
  });

  test('mcp config prints the block a client spawns, and that block reaches the tools; a plain app is refused', async () => {
    const printed = await h.run(['mcp', 'config', 'cli-mcp']);
    assert.equal(printed.code, 0, printed.stderr);
    const block = JSON.parse(printed.stdout) as { mcpServers: Record<string, { command: string; args: string[] }> };
    assert.deepEqual(block, {
      mcpServers: { 'cli-mcp': { command: 'gatehouse', args: ['mcp', 'connect', 'cli-mcp'] } },
    });
    const token = JSON.parse(readFileSync(join(h.env.GATEHOUSE_HOME as string, 'default.json'), 'utf8')).tokens
      .access_token as string;
    assert.ok(!printed.stdout.includes(token), 'no token in the configuration');
    // The block as a client runs it (`gatehouse` is src/main.ts in a checkout).
    const entry = block.mcpServers['cli-mcp'] as { args: string[] };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/gatehouse.mjs', ...entry.args],
      env: h.env,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'config-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['echo'],
      );
    } finally {
      await client.close();
    }
    // An app that is not an MCP server, which the user may reach: refused with one line, nothing printed.
    const plain = await admin('POST', '/v1/resources', {
      kind: 'app',
      name: 'cli-plain-app',
      uri: 'http://127.0.0.1:9',
      labels: { team: 'mcp-cli' },
    });
    assert.equal(plain.status, 201, plain.text);
    const refused = await h.run(['mcp', 'config', 'cli-plain-app']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.equal(refused.stderr, 'gatehouse: cli-plain-app is not an MCP server (gatehouse apps ls; docs/mcp.md)\n');
    // With another profile the block names it, so the spawned command uses that login.
    const named = await h.run(['--profile', 'work', 'login', '--proxy', server.webUrl], {
      env: { GATEHOUSE_API_KEY: (await userWithRoles(server, 'cli-mcpuser3', ['cli-mcp-user'])).apiKey },
    });
    assert.equal(named.code, 0, named.stderr);
    const other = await h.run(['--profile', 'work', 'mcp', 'config', 'cli-mcp']);
    assert.deepEqual(JSON.parse(other.stdout).mcpServers['cli-mcp'].args, [
      '--profile',
      'work',
      'mcp',
      'connect',
      'cli-mcp',
    ]);
  });

  test('the login ended mid-session: the next call ends the bridge, exit 1, one line naming gatehouse login', async () => {
    // A second login of the same user, so the revocation below leaves the other tests' login alone.
    const other = cliHome();
    const key = await userWithRoles(server, 'cli-mcpuser2', ['cli-mcp-user']);
    try {
      const login = await other.run(['login', '--proxy', server.webUrl], { env: { GATEHOUSE_API_KEY: key.apiKey } });
      assert.equal(login.code, 0, login.stderr);
      const child = other.spawn(['mcp', 'connect', 'cli-mcp']);
      let stdout = '';
      let stderr = '';
      const waiting = new Map<number, (m: { result?: unknown; error?: unknown }) => void>();
      child.stdout?.on('data', (d) => {
        stdout += d;
        for (let nl = stdout.indexOf('\n'); nl >= 0; nl = stdout.indexOf('\n')) {
          const message = JSON.parse(stdout.slice(0, nl));
          stdout = stdout.slice(nl + 1);
          waiting.get(message.id)?.(message);
        }
      });
      child.stderr?.on('data', (d) => {
        stderr += d;
      });
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      const rpc = (id: number, method: string, params: unknown) =>
        new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
          waiting.set(id, resolve);
          child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
        });
      const init = await rpc(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw-stdio-test', version: '1.0.0' },
      });
      assert.ok(init.result, `initialized: ${JSON.stringify(init)} ${stderr}`);
      child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const listed = (await rpc(2, 'tools/list', {})) as { result?: { tools: Array<{ name: string }> } };
      assert.deepEqual(
        listed.result?.tools.map((t) => t.name),
        ['echo'],
        'the bridge works before the login ends (the control)',
      );

      // The login ends on the server (as `gatehouse logout` elsewhere, or an admin ending it).
      const token = JSON.parse(readFileSync(join(other.env.GATEHOUSE_HOME as string, 'default.json'), 'utf8')).tokens
        .access_token as string;
      const revoked = await api(server.url, 'DELETE', '/v1/auth/revoke', { token });
      assert.equal(revoked.status, 200, revoked.text);

      const echoes = upstream.calls.get('echo') ?? 0;
      child.stdin?.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } })}\n`,
      );
      assert.equal(await closed, 1, stderr);
      assert.equal(stderr, 'gatehouse: your login has expired or was ended: run gatehouse login\n');
      assert.equal(upstream.calls.get('echo') ?? 0, echoes, 'the call after the end never reached the upstream');
    } finally {
      other.remove();
    }
  });

  test('an ended login: one line on stderr naming gatehouse login, exit non-zero', async () => {
    const file = join(h.env.GATEHOUSE_HOME as string, 'default.json');
    const profile = JSON.parse(readFileSync(file, 'utf8'));
    profile.tokens = { ...profile.tokens, access_token: 'x', refresh_token: 'ended', expires_at: 0 };
    writeFileSync(file, JSON.stringify(profile));
    const run = await h.run(['mcp', 'connect', 'cli-mcp']);
    assert.notEqual(run.code, 0);
    assert.equal(run.stdout, '', 'nothing but JSON-RPC on stdout');
    assert.match(run.stderr, /^gatehouse: .*run gatehouse login\n$/);
  });
});
