// `gatehouse mcp connect <app>`: a stdio MCP server for clients that only spawn commands (Claude
// Desktop's `command`/`args`), bridged message for message to the app's `mcp_url` on Gatehouse's MCP
// gateway (docs/mcp.md) with the login's access token, renewed before it runs out. stdout carries
// JSON-RPC and nothing else; every diagnostic goes to stderr. `gatehouse mcp config <app>` prints the
// block such a client takes to spawn it.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Command } from 'commander';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { appUrl } from './apps.js';
import { type CliContext, CliError, failure, freshAccessToken, LOGIN_EXPIRED, type Runner } from './context.js';
import { reachable } from './reach.js';

/**
 * The app's `mcp_url`, as its RFC 9728 metadata on the app host names it (a user need not hold
 * resources:read to learn it); only a resource on that same host is taken.
 */
async function mcpUrlOf(send: typeof fetch, origin: URL, name: string): Promise<URL> {
  const answer = await send(new URL('/.well-known/oauth-protected-resource', origin));
  const body = answer.ok ? ((await answer.json().catch(() => ({}))) as { resource?: unknown }) : {};
  const resource = typeof body.resource === 'string' ? new URL(body.resource) : undefined;
  if (!resource || resource.origin !== origin.origin)
    throw new CliError(`${name} is not an MCP server (gatehouse apps ls; docs/mcp.md)`);
  return resource;
}

/**
 * A fetch that reaches the app host (`<app>.<domain>`, which need not resolve: `*.localhost`) at the
 * web listener the login names, as `proxy app` does: the URL keeps the app host for Host and SNI.
 */
function toWebListener(web: URL): typeof fetch {
  const connect = buildConnector({});
  const port = web.port || (web.protocol === 'https:' ? '443' : '80');
  const dispatcher = new Agent({
    connect: (opts, cb) => connect({ ...opts, hostname: web.hostname, port }, cb),
  });
  return ((url: string | URL, init?: RequestInit) =>
    undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
}

/** An MCP app the login may reach: its name, its `mcp_url`, and the fetch that reaches the web listener. */
async function mcpApp(ctx: CliContext, name: string) {
  const [app] = await reachable(ctx, 'app', name);
  if (!app) throw new CliError(`no app named ${name} that you may reach (gatehouse apps ls)`);
  const send = toWebListener(new URL(ctx.client().profile.proxy));
  return { name: app.name, send, mcpUrl: await mcpUrlOf(send, await appUrl(ctx, app.name), name) };
}

export function registerMcpCommands(program: Command, run: Runner): void {
  const mcp = program.command('mcp').description('MCP servers through the gateway');
  mcp
    .command('config')
    .description('print the mcpServers block an MCP client takes to reach an MCP app through gatehouse mcp connect')
    .argument('<app>', 'the MCP app resource (name)')
    .action(
      run(async (ctx: CliContext, name: string) => {
        // Checked now, not when the client first spawns it: an app that is not an MCP server fails here.
        const app = await mcpApp(ctx, name);
        // No token in it: the spawned command uses this login (its profile), renewed as it goes.
        const args = [
          ...(ctx.profileName === 'default' ? [] : ['--profile', ctx.profileName]),
          'mcp',
          'connect',
          app.name,
        ];
        ctx.out.stdout(`${JSON.stringify({ mcpServers: { [app.name]: { command: 'gatehouse', args } } }, null, 2)}\n`);
      }),
    );
  mcp
    .command('connect')
    .description('a stdio MCP server (for clients that spawn a command) bridged to an MCP app, as you')
    .argument('<app>', 'the MCP app resource (name)')
    .action(
      run(async (ctx: CliContext, name: string) => {
        const { send, mcpUrl } = await mcpApp(ctx, name);
        const { gh } = ctx.client();
        // Each request asks for a token with a minute left, so a long session outlives any one token.
        const authorized: typeof fetch = async (url, init) => {
          const { token } = await freshAccessToken(gh);
          const headers = new Headers(init?.headers);
          headers.set('authorization', `Bearer ${token}`);
          return send(url, { ...init, headers });
        };
        const remote = new StreamableHTTPClientTransport(mcpUrl, { fetch: authorized });
        const local = new StdioServerTransport();
        let ended: (code: number) => void = () => {};
        const done = new Promise<number>((resolve) => {
          ended = resolve;
        });
        let over = false;
        const fail = (e: unknown) => {
          // The transport reports one refusal both to the sender and to onerror: the end is said once.
          if (over) return;
          // Gone: the renewal was refused (the SDK's 401 problem), or the gateway answered 401 (the SDK's HTTP error).
          const line = failure(e).line;
          const gone = line === LOGIN_EXPIRED || (e as { data?: { status?: number } })?.data?.status === 401;
          ctx.out.stderr(`gatehouse: ${gone ? LOGIN_EXPIRED : line}\n`);
          if (gone) {
            over = true;
            ended(1);
          }
        };
        local.onmessage = (message) => {
          remote.send(message).catch(fail);
        };
        remote.onmessage = (message) => {
          // The protocol version header rides on every later request, as the SDK's Client does.
          const result = (message as { result?: { protocolVersion?: unknown } }).result;
          if (typeof result?.protocolVersion === 'string') remote.setProtocolVersion?.(result.protocolVersion);
          local.send(message).catch(fail);
        };
        remote.onerror = fail;
        local.onclose = () => ended(0);
        remote.onclose = () => ended(0);
        await remote.start();
        await local.start();
        const code = await done;
        await Promise.allSettled([remote.close(), local.close()]);
        ctx.exitCode = code;
      }),
    );
}
