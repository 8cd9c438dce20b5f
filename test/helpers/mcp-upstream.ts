// A real MCP server of the official SDK v2 on loopback (createMcpHandler behind node:http) for the
// gateway's tests: it counts the calls each tool received (and each resource read, subscription
// and prompt got: `read <uri>`, `subscribe <uri>`, `prompt <name>`), remembers every request's headers, and
// can hold a call open (slow) until it is released or its connection goes away.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, type McpHttpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** An app resource for an MCP server at `uri`, labelled team=`team`, with a sealed upstream bearer token. */
export const mcpAppBody = (name: string, uri: string, team: string, bearerToken: string) => ({
  kind: 'app',
  name,
  uri,
  protocol: 'mcp',
  labels: { team },
  mcp: { bearer_token: bearerToken },
});

export interface TestMcpServer {
  url: string;
  calls: Map<string, number>;
  seen: IncomingHttpHeaders[];
  /** Resolves once a slow call has started. */
  slowStarted: () => Promise<void>;
  /** How many slow calls saw their request aborted (the client or the gateway went away). */
  aborted: () => number;
  close(): Promise<void>;
}

export async function startTestMcpServer(opts: { nested?: boolean } = {}): Promise<TestMcpServer> {
  const calls = new Map<string, number>();
  let aborted = 0;
  const seen: IncomingHttpHeaders[] = [];
  let started: () => void = () => {};
  let startedPromise = new Promise<void>((r) => (started = r));
  const count = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
  const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
  const factory = () => {
    const server = new McpServer(
      { name: 'test-upstream', version: '1.0.0' },
      { capabilities: { resources: { subscribe: true } } },
    );
    server.registerTool(
      'echo',
      { description: 'Echo', inputSchema: z.object({ text: z.string() }) },
      async ({ text: t }) => {
        count('echo');
        return text(`echo: ${t}`);
      },
    );
    server.registerTool(
      'create_issue',
      { description: 'Create an issue', inputSchema: z.object({ repo: z.string(), title: z.string() }) },
      async ({ repo, title }) => {
        count('create_issue');
        return text(`created in ${repo}: ${title}`);
      },
    );
    server.registerTool(
      'delete_repo',
      { description: 'Delete', inputSchema: z.object({ repo: z.string() }) },
      async () => {
        count('delete_repo');
        return text('deleted');
      },
    );
    server.registerTool(
      'deploy',
      { description: 'Deploy', inputSchema: z.object({ env: z.string() }) },
      async ({ env }) => {
        count('deploy');
        return text(`deployed to ${env}`);
      },
    );
    // Nested arguments, for approvals bound to the exact call (test/mcp-approvals-binding.test.ts);
    // only on request, so the other suites' tool lists and hidden counts stay as they are.
    if (opts.nested)
      server.registerTool(
        'configure',
        {
          description: 'Configure',
          inputSchema: z.object({
            target: z.object({ env: z.string(), replicas: z.number(), tags: z.record(z.string(), z.string()) }),
            flags: z.array(z.string()),
          }),
        },
        async ({ target }) => {
          count('configure');
          return text(`configured ${target.env} with ${target.replicas}`);
        },
      );
    server.registerTool('slow', { description: 'Waits', inputSchema: z.object({}) }, async (_args, ctx) => {
      count('slow');
      started();
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 30_000);
        ctx.mcpReq.signal.addEventListener('abort', () => {
          aborted++;
          clearTimeout(t);
          resolve();
        });
      });
      return text('slow done');
    });
    for (const uri of ['docs://public/readme', 'docs://public/secret-plan', 'docs://alice/notes', 'docs://bob/notes'])
      server.registerResource(uri, uri, { mimeType: 'text/plain' }, async () => {
        count(`read ${uri}`);
        return { contents: [{ uri, mimeType: 'text/plain', text: `contents of ${uri}` }] };
      });
    for (const name of ['summarize', 'summarize_secret', 'triage'])
      server.registerPrompt(name, { description: name }, async () => {
        count(`prompt ${name}`);
        return { messages: [{ role: 'user', content: { type: 'text', text: `prompt ${name}` } }] };
      });
    server.server.setRequestHandler('resources/subscribe', async ({ params }) => {
      count(`subscribe ${params.uri}`);
      return {};
    });
    return server;
  };
  const handler = createMcpHandler(factory);
  const { http, url } = await serveMcpHandler(handler, (req) => void seen.push(req.headers));
  return {
    url,
    calls,
    seen,
    slowStarted: () => startedPromise,
    aborted: () => aborted,
    async close() {
      startedPromise = new Promise<void>((r) => (started = r));
      await closeServed(http, handler);
    },
  };
}

/** An SDK handler (fetch-shaped) behind node:http on a loopback port, its answer streamed as it comes. */
export async function serveMcpHandler(
  handler: Pick<McpHttpHandler, 'fetch'>,
  onRequest: (req: IncomingMessage) => void = () => {},
): Promise<{ http: Server; url: string }> {
  const http: Server = createServer(async (req, res) => {
    onRequest(req);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method ?? 'GET',
      headers: Object.entries(req.headers).flatMap(([k, v]) =>
        v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x) => [k, x] as [string, string]),
      ),
      ...(body.length ? { body } : {}),
    });
    const answer = await handler.fetch(request);
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (!answer.body) return void res.end();
    const reader = answer.body.getReader();
    res.on('close', () => void reader.cancel().catch(() => {}));
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      res.write(value);
    }
    res.end();
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return { http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` };
}

export async function closeServed(http: Server, handler: Pick<McpHttpHandler, 'close'>): Promise<void> {
  http.closeAllConnections();
  await new Promise<void>((r) => http.close(() => r()));
  await handler.close();
}
