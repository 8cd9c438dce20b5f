// A reference MCP server of the official SDK v2 for the conformance comparison: the tools,
// resources and prompts the server scenarios of @modelcontextprotocol/conformance ask for by name,
// written with McpServer's own registration calls, behind node:http on loopback. 2025-era traffic
// (what the suite's client speaks) is served with sessions (WebStandardStreamableHTTPServerTransport,
// one server per Mcp-Session-Id) so a tool can ask the client for sampling or elicitation and get
// the answer back; 2026-07-28 traffic by createMcpHandler. Sampling and elicitation are asked on the
// tool call's own stream (ctx.mcpReq.send), not with requestSampling/elicitInput: those go to the
// session's standalone GET stream, and the transport drops a message silently when that stream is
// not open yet, so a client whose GET arrived after its tools/call (300 ms late suffices; a loaded
// gateway did) waited 60 s for nothing. It is what "directly" means in
// test/mcp-conformance.test.ts.
import { randomUUID } from 'node:crypto';
import {
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
  McpServer,
  ResourceTemplate,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { closeServed, serveMcpHandler } from './mcp-upstream.js';

// A 1×1 PNG and a minimal WAV file: content for the image and audio scenarios.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const text = (t: string) => ({ type: 'text' as const, text: t });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tools(server: McpServer) {
  const none = z.object({});
  server.registerTool('test_simple_text', { description: 'Simple text', inputSchema: none }, async () => ({
    content: [text('This is a simple text response for testing.')],
  }));
  server.registerTool('test_image_content', { description: 'An image', inputSchema: none }, async () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'Audio', inputSchema: none }, async () => ({
    content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
  }));
  server.registerTool('test_embedded_resource', { description: 'A resource', inputSchema: none }, async () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }));
  server.registerTool('test_multiple_content_types', { description: 'Mixed', inputSchema: none }, async () => ({
    content: [
      text('Multiple content types test:'),
      { type: 'image', data: PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        },
      },
    ],
  }));
  server.registerTool('test_tool_with_logging', { description: 'Logs', inputSchema: none }, async (_a, ctx) => {
    for (const line of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
      await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data: line } });
      await sleep(20);
    }
    return { content: [text('Tool with logging executed successfully')] };
  });
  server.registerTool('test_tool_with_progress', { description: 'Progress', inputSchema: none }, async (_a, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken ?? 0;
    for (const progress of [0, 50, 100]) {
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` },
      });
      await sleep(20);
    }
    return { content: [text(String(progressToken))] };
  });
  server.registerTool('test_error_handling', { description: 'Fails', inputSchema: none }, async () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  server.registerTool(
    'test_sampling',
    { description: 'Asks the client for a completion', inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const got = await ctx.mcpReq.send({
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: text(prompt) }], maxTokens: 100 },
      });
      const content = (got as { content?: { text?: string } }).content;
      return { content: [text(`LLM response: ${content?.text ?? 'No response'}`)] };
    },
  );
  server.registerTool(
    'test_elicitation',
    { description: 'Asks the user', inputSchema: z.object({ message: z.string() }) },
    async ({ message }, ctx) => {
      const got = await ctx.mcpReq.send({
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message,
          requestedSchema: { type: 'object', properties: { response: { type: 'string' } }, required: ['response'] },
        },
      });
      return { content: [text(`User response: action=${got.action}, content=${JSON.stringify(got.content ?? {})}`)] };
    },
  );
  // SEP-1034 (defaults for every primitive type) and SEP-1330 (the enum schema variants).
  const forms: Record<string, { message: string; properties: Record<string, unknown> }> = {
    test_elicitation_sep1034_defaults: {
      message: 'Please review and update the form fields with defaults',
      properties: {
        name: { type: 'string', default: 'John Doe' },
        age: { type: 'integer', default: 30 },
        score: { type: 'number', default: 95.5 },
        status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', default: true },
      },
    },
    test_elicitation_sep1330_enums: {
      message: 'Please select options from the enum fields',
      properties: {
        untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
        titledSingle: {
          type: 'string',
          oneOf: [
            { const: 'value1', title: 'First Option' },
            { const: 'value2', title: 'Second Option' },
            { const: 'value3', title: 'Third Option' },
          ],
        },
        legacyEnum: {
          type: 'string',
          enum: ['opt1', 'opt2', 'opt3'],
          enumNames: ['Option One', 'Option Two', 'Option Three'],
        },
        untitledMulti: {
          type: 'array',
          minItems: 1,
          maxItems: 3,
          items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
        },
        titledMulti: {
          type: 'array',
          minItems: 1,
          maxItems: 3,
          items: {
            anyOf: [
              { const: 'value1', title: 'First Choice' },
              { const: 'value2', title: 'Second Choice' },
              { const: 'value3', title: 'Third Choice' },
            ],
          },
        },
      },
    },
  };
  for (const [name, form] of Object.entries(forms))
    server.registerTool(name, { description: form.message, inputSchema: none }, async (_a, ctx) => {
      const got = await ctx.mcpReq.send({
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: form.message,
          requestedSchema: { type: 'object', properties: form.properties, required: [] } as never,
        },
      });
      return {
        content: [text(`Elicitation completed: action=${got.action}, content=${JSON.stringify(got.content ?? {})}`)],
      };
    });
  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'JSON Schema 2020-12',
      inputSchema: z.object({
        name: z.string().optional(),
        address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
      }),
    },
    async (args) => ({ content: [text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`)] }),
  );
}

function resources(server: McpServer) {
  server.registerResource(
    'static-text',
    'test://static-text',
    { title: 'Static Text Resource', description: 'Static text', mimeType: 'text/plain' },
    async () => ({
      contents: [
        { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
      ],
    }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { title: 'Static Binary Resource', description: 'An image', mimeType: 'image/png' },
    async () => ({ contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }] }),
  );
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { title: 'Resource Template', description: 'Parameter substitution', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.toString(),
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { title: 'Watched Resource', description: 'Watched', mimeType: 'text/plain' },
    async () => ({
      contents: [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' }],
    }),
  );
  server.server.setRequestHandler('resources/subscribe', async () => ({}));
  server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
}

function prompts(server: McpServer) {
  const user = (content: unknown) => ({ role: 'user' as const, content }) as never;
  server.registerPrompt(
    'test_simple_prompt',
    { title: 'Simple Test Prompt', description: 'No arguments' },
    async () => ({
      messages: [user(text('This is a simple prompt for testing.'))],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      title: 'Prompt With Arguments',
      description: 'Two arguments',
      argsSchema: z.object({ arg1: z.string(), arg2: z.string() }),
    },
    async ({ arg1, arg2 }) => ({ messages: [user(text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`))] }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      title: 'Prompt With Embedded Resource',
      description: 'A resource',
      argsSchema: z.object({ resourceUri: z.string() }),
    },
    async ({ resourceUri }) => ({
      messages: [
        user({
          type: 'resource',
          resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        }),
        user(text('Please process the embedded resource above.')),
      ],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_image',
    { title: 'Prompt With Image', description: 'An image' },
    async () => ({
      messages: [
        user({ type: 'image', data: PNG, mimeType: 'image/png' }),
        user(text('Please analyze the image above.')),
      ],
    }),
  );
}

export function conformanceServer(): McpServer {
  const server = new McpServer(
    { name: 'gatehouse-conformance-reference', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
    },
  );
  tools(server);
  resources(server);
  prompts(server);
  server.server.setRequestHandler('logging/setLevel', async () => ({}));
  server.server.setRequestHandler('completion/complete', async () => ({
    completion: { values: [], total: 0, hasMore: false },
  }));
  return server;
}

/** The SDK's pattern for a sessionful 2025 leg beside a strict modern endpoint (see isLegacyRequest). */
function sessionfulHandler(allowedHosts: string[]): Pick<McpHttpHandler, 'fetch' | 'close'> {
  const modern = createMcpHandler(conformanceServer, { legacy: 'reject' });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const refuse = (status: number, message: string) =>
    Response.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }, { status });
  return {
    async fetch(request: Request) {
      if (!(await isLegacyRequest(request))) return modern.fetch(request);
      const id = request.headers.get('mcp-session-id');
      const open = id ? sessions.get(id) : undefined;
      if (open) return open.handleRequest(request);
      if (id) return refuse(404, 'no such session');
      if (request.method !== 'POST') return refuse(400, 'no session');
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        enableDnsRebindingProtection: true,
        allowedHosts,
        onsessioninitialized: (sid) => void sessions.set(sid, transport),
        onsessionclosed: (sid) => void sessions.delete(sid),
      });
      await conformanceServer().connect(transport);
      return transport.handleRequest(request);
    },
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      await modern.close();
    },
  };
}

export async function startConformanceServer(): Promise<{ url: string; close(): Promise<void> }> {
  const hosts: string[] = []; // the Host a request must name (DNS rebinding): this listener's
  const handler = sessionfulHandler(hosts);
  const { http, url } = await serveMcpHandler(handler);
  const port = new URL(url).port;
  hosts.push(`127.0.0.1:${port}`, `localhost:${port}`);
  return { url, close: () => closeServed(http, handler) };
}
