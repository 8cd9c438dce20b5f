// An official SDK v2 MCP client reaching an MCP server through Gatehouse: app hosts are
// <name>.localhost, which this fetch resolves to loopback (as browsers do) without DNS.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Agent, fetch as undiciFetch } from 'undici';

type Lookup = (host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => void;
const lookup: Lookup = (_host, opts, cb) =>
  opts?.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4);
export const loopback = new Agent({ connect: { lookup } as never });

export const loopbackFetch = ((url: string | URL, init?: RequestInit) =>
  undiciFetch(url, { ...(init as object), dispatcher: loopback } as never)) as unknown as typeof fetch;

export async function mcpClient(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'gatehouse-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: loopbackFetch,
      requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
    }),
  );
  return client;
}
