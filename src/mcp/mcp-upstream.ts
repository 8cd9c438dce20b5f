// An MCP server's upstream credential: what Gatehouse sends the server (a bearer token, or headers
// such as an API key) in place of the client's own token, which never leaves Gatehouse (the MCP
// specification forbids token passthrough). Sealed with the data dir's key, bound to the app's id,
// kept apart from the resource record; the API answers which kind is set and the header names only.
import { type Static, Type } from '@sinclair/typebox';
import { invalidField } from '../lib/errors.js';
import type { SecretBox } from '../lib/secret-box.js';

/** Header names Gatehouse sets itself or that steer the protocol: never taken from a registration. */
const RESERVED = /^(host|content-length|content-type|accept|connection|transfer-encoding|mcp-.*|gatehouse-.*|cookie)$/i;

/** Protocol "mcp" apps only: how Gatehouse authenticates to the MCP server. Sealed at rest, never answered. */
export const McpInput = Type.Object(
  {
    bearer_token: Type.Optional(
      Type.String({ minLength: 1, maxLength: 8192, description: 'Sent as Authorization: Bearer <token>' }),
    ),
    headers: Type.Optional(
      Type.Record(
        Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" }),
        Type.String({ maxLength: 8192, pattern: '^[\\t\\x20-\\x7e\\x80-\\xff]*$' }),
        { maxProperties: 16, description: 'Headers sent on every upstream request (an API key header, …)' },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: "The MCP server's own credential; the client's Gatehouse token never reaches the server",
  },
);

/** What the API says of it: which kind is set and the header names, never a value. */
export const McpSummary = Type.Object(
  {
    credential: Type.Union([Type.Literal('bearer'), Type.Literal('headers'), Type.Literal('none')]),
    header_names: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

export interface McpSecret {
  sealed: string;
}

const sealContext = (appId: string) => `mcp-upstream:${appId}`;

export function sealMcpUpstream(
  box: Pick<SecretBox, 'seal'>,
  appId: string,
  input: Static<typeof McpInput>,
): { secret: McpSecret; summary: Static<typeof McpSummary> } {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (RESERVED.test(name)) throw invalidField(`/body/mcp/headers/${name}`, 'is set by Gatehouse itself');
    if (input.bearer_token !== undefined && name.toLowerCase() === 'authorization')
      throw invalidField(`/body/mcp/headers/${name}`, 'give bearer_token or an Authorization header, not both');
    headers[name.toLowerCase()] = value;
  }
  if (input.bearer_token !== undefined) headers.authorization = `Bearer ${input.bearer_token}`;
  const names = Object.keys(headers).sort();
  return {
    secret: { sealed: box.seal(JSON.stringify(headers), sealContext(appId)) },
    summary: {
      credential: input.bearer_token !== undefined ? 'bearer' : names.length ? 'headers' : 'none',
      header_names: names,
    },
  };
}

/** The headers to send the MCP server (opened here only). */
export function openMcpUpstream(
  box: Pick<SecretBox, 'open'>,
  appId: string,
  secret: McpSecret,
): Record<string, string> {
  return JSON.parse(box.open(secret.sealed, sealContext(appId))) as Record<string, string>;
}
