// The children of npm run bench:mcp, one event loop each: `upstream` (an SDK v2 MCP server, the
// tests' own) and `forwarder <upstream url>` (a minimal Node forwarder: node:http in, pooled
// node:http out, bodies piped, nothing else — the reference Gatehouse is measured against).
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestMcpServer } from '../test/helpers/mcp-upstream.js';
import { READY_PREFIX } from './child-protocol.js';

async function main(): Promise<void> {
  const [role, target] = process.argv.slice(2);
  process.stdin.on('close', () => process.exit(0));
  process.stdin.resume();
  if (role === 'upstream') {
    const server = await startTestMcpServer();
    process.stdout.write(`${READY_PREFIX}${JSON.stringify({ url: server.url })}\n`);
    return;
  }
  const up = new URL(target as string);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const server = createServer((req, res) => {
    const out = request(
      { host: up.hostname, port: up.port, path: up.pathname, method: req.method, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${READY_PREFIX}${JSON.stringify({ url: `http://127.0.0.1:${port}${up.pathname}` })}\n`);
  });
}

void main();
