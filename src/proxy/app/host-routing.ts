// Host routing on the web listener: a request whose Host names an app (or a host under the apps
// domain) goes to the app door before Fastify sees it, so no console or API route is ever reachable
// on an app host, and an app host never answers with the console. Everything else goes on to the
// console and the API unchanged. WebSocket upgrades are the app door's only (the console has none).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ResourceRecord } from '../../resources/resource-service.js';
import type { AppDoor } from './app-door.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** An MCP server's requests (an app with protocol mcp) go to the MCP gateway (proxy/mcp) instead. */
type McpHandler = { handle(req: IncomingMessage, res: ServerResponse, app: ResourceRecord): void };

export function routeAppHosts(
  server: Server,
  door: Pick<AppDoor, 'match' | 'handle' | 'upgrade'>,
  mcp?: McpHandler,
): void {
  const web = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const match = door.match(req.headers.host);
    if (match?.app?.protocol === 'mcp' && mcp) mcp.handle(req, res, match.app);
    else if (match) door.handle(req, res, match.app);
    else for (const listener of web) listener.call(server, req, res);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const match = door.match(req.headers.host);
    if (match && !(match.app?.protocol === 'mcp' && mcp)) door.upgrade(req, socket, head, match.app);
    else {
      socket.on('error', () => socket.destroy());
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    }
  });
}
