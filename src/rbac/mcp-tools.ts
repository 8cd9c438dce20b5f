// Which MCP tools a principal may call on one MCP server (an app with protocol "mcp"), and with which
// arguments: roles' allow/deny.mcp_tools globs (deny wins, no mcp_tools = no tools; the same for
// resources by URI, mcp_resources, and prompts by name, mcp_prompts; templates such as
// {{internal.logins}} expanded with the principal's traits, as for logins), their
// allow.mcp_tool_arguments (every entry whose tool glob matches must accept the arguments, a JSON
// Schema 2020-12 checked with ajv), options.mcp_require_approval (a matching glob in any role holds
// the call for an approval). Pure; a schema is compiled once per role version (the role objects are
// the cache's, replaced when the role changes) and a schema that does not compile refuses the call.
import { createRequire } from 'node:module';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { globMatch } from './glob.js';
import type { McpToolArguments, RoleSpec } from './types.js';

/** What a role names on an MCP server: tools and prompts by name, resources by URI. */
export type McpPrimitive = 'tool' | 'resource' | 'prompt';
const FIELD = { tool: 'mcp_tools', resource: 'mcp_resources', prompt: 'mcp_prompts' } as const;

/** One part of a principal's rights (an agent's: its roles', its owner's…), every one of which must allow. */
export interface McpRuleSet {
  /** Per primitive, the globs of each role that selects the server (per role: never pooled) and the denies of every role. */
  names: Record<McpPrimitive, { allow: string[][]; deny: string[] }>;
  /** allow.mcp_tool_arguments of the roles that select the server. */
  schemas: McpToolArguments[];
  /** options.mcp_require_approval of every role. */
  approval: string[];
  /** options.mcp_record_arguments of any role. */
  recordArguments: boolean;
}

export type McpCallVerdict =
  | { allowed: true; approval: boolean; recordArguments: boolean }
  | { allowed: false; reason: string };

// ajv-formats is CommonJS with a default export; require() gives the same function on every Node.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv2020) => Ajv2020;
// strict: false so that schemas using annotation keywords (title, examples, x-…) still compile.
const ajv = addFormats(new Ajv2020({ allErrors: false, strict: false, validateFormats: true }));
const compiled = new WeakMap<object, ValidateFunction | Error>();

/** Compiles once per schema object; an Error when it is not a valid JSON Schema 2020-12. */
export function compileToolSchema(schema: object): ValidateFunction | Error {
  let fn = compiled.get(schema);
  if (!fn) {
    try {
      fn = ajv.compile(schema);
    } catch (error) {
      fn = new Error(error instanceof Error ? error.message : 'invalid schema');
    }
    compiled.set(schema, fn);
  }
  return fn;
}

/** `expand` turns a role's values into the principal's (trait templates expanded). */
export function mcpRuleSet(
  selecting: readonly RoleSpec[],
  all: readonly RoleSpec[],
  expand: (values: string[]) => string[],
): McpRuleSet {
  const names = (kind: McpPrimitive) => ({
    allow: selecting.map((r) => expand(r.allow[FIELD[kind]] ?? [])),
    deny: all.flatMap((r) => expand(r.deny?.[FIELD[kind]] ?? [])),
  });
  return {
    names: { tool: names('tool'), resource: names('resource'), prompt: names('prompt') },
    schemas: selecting.flatMap((r) => r.allow.mcp_tool_arguments ?? []),
    approval: all.flatMap((r) => r.options?.mcp_require_approval ?? []),
    recordArguments: all.some((r) => r.options?.mcp_record_arguments === true),
  };
}

/** May the tool (resource, prompt) be seen and used at all: the lists show exactly these. */
export function mcpNameAllowed(sets: readonly McpRuleSet[], kind: McpPrimitive, name: string): boolean {
  return (
    sets.length > 0 &&
    sets.every((s) => {
      const { allow, deny } = s.names[kind];
      return !deny.some((d) => globMatch(d, name)) && allow.some((l) => l.some((p) => globMatch(p, name)));
    })
  );
}

export const mcpToolAllowed = (sets: readonly McpRuleSet[], tool: string): boolean =>
  mcpNameAllowed(sets, 'tool', tool);

/** The whole decision for a tools/call: name, then every matching argument schema, then approval. */
export function mcpCallVerdict(sets: readonly McpRuleSet[], tool: string, args: unknown): McpCallVerdict {
  if (!mcpToolAllowed(sets, tool)) return { allowed: false, reason: `tool ${tool} is not allowed` };
  for (const set of sets) {
    for (const entry of set.schemas) {
      if (!globMatch(entry.tool, tool)) continue;
      const validate = compileToolSchema(entry.schema);
      if (validate instanceof Error) {
        return { allowed: false, reason: `the argument policy for ${entry.tool} cannot be evaluated` };
      }
      if (!validate(args ?? {})) {
        const e = validate.errors?.[0];
        const where = e?.instancePath ? `arguments${e.instancePath}` : 'arguments';
        return { allowed: false, reason: `${where} ${e?.message ?? 'are not allowed'} (policy for ${entry.tool})` };
      }
    }
  }
  return {
    allowed: true,
    approval: sets.some((s) => s.approval.some((p) => globMatch(p, tool))),
    recordArguments: sets.some((s) => s.recordArguments),
  };
}
