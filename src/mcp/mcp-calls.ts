// What an MCP tool call is, for audit and approvals: the canonical JSON of {tool, arguments,
// principal} (object keys sorted at every depth, as RFC 8785 orders them; the values serialised by
// JSON.stringify, which is what RFC 8785 uses for numbers and strings), its SHA-256, and what an
// event may carry of the arguments: their names only, unless a role asks for them
// (options.mcp_record_arguments), and even then each string cut to a bound.
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The call an approval is bound to: same tool, same arguments, same principal, nothing else. */
export function callDigest(call: { tool: string; arguments: unknown; principal: string }): string {
  return sha256Hex(canonicalJson({ tool: call.tool, arguments: call.arguments ?? {}, principal: call.principal }));
}

/** The hash of the arguments alone, as mcp.tool.call events carry it. */
export const argumentsHash = (args: unknown): string => sha256Hex(canonicalJson(args ?? {}));

const MAX_STRING = 256;
const MAX_DEPTH = 6;

function bounded(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.slice(0, 32).map((v) => bounded(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .slice(0, 64)
      .map(([k, v]) => [k, bounded(v, depth + 1)]),
  );
}

/** What an event carries of a call's arguments. */
export function recordedArguments(args: unknown, record: boolean): Record<string, unknown> {
  const names = args && typeof args === 'object' && !Array.isArray(args) ? Object.keys(args).slice(0, 64) : [];
  return record ? { arguments: bounded(args ?? {}, 0) } : { argument_names: names };
}
