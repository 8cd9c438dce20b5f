// What the OpenAPI document must say beyond what @fastify/swagger derives from the route schemas,
// so that clients generated from it match the service: fields and parameters with defaults are
// optional, a body whose fields are all optional may be left out, errors are problem+json, text
// bodies are strings of their media type, and the headers every answer carries are declared.
// test/openapi-replay.test.ts replays real requests against the result, so it cannot drift.
import { Problem } from './schemas.js';

type Json = Record<string, unknown>;
type Schema = Json & { required?: string[]; properties?: Record<string, Schema>; default?: unknown };
interface Operation extends Json {
  parameters?: Array<Json & { in: string; required?: boolean; schema?: Schema }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, Json & { content?: Record<string, { schema: Schema }>; headers?: Json }>;
  security?: unknown[];
}

const PROBLEM = 'application/problem+json';
const isJsonMedia = (media: string) => /^application\/(?:[a-z0-9.-]+\+)?json$/.test(media);
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description: 'The request id (req_…), also in every problem as request_id; quote it when reporting one',
    required: true,
    schema: { type: 'string', pattern: '^req_[0-9a-f]{32}$' },
  },
  Location: {
    description: 'The path of the created item',
    required: true,
    schema: { type: 'string', pattern: '^/v1/' },
  },
  'WWW-Authenticate': {
    description: 'Bearer realm="gatehouse", with error="invalid_token" and a description when a token was refused',
    required: true,
    schema: { type: 'string', pattern: '^Bearer realm="gatehouse"' },
  },
  ETag: {
    description:
      'The version of the item (strong; its stored revision): send it back in If-Match to change the item only if nobody changed it since',
    required: true,
    schema: { type: 'string', pattern: '^"[0-9]+"$' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'RateLimit-Limit': { description: 'Requests (or failures) allowed in the window', schema: { type: 'string' } },
  'RateLimit-Remaining': { description: 'What is left of it: 0 when refused', schema: { type: 'string' } },
  'RateLimit-Reset': { description: 'Seconds until the window ends', schema: { type: 'string' } },
} as const;

/** Where a POST creates an item and answers its path in Location. */
const CREATED_AT_LOCATION = new Set(['/v1/users', '/v1/roles', '/v1/resources', '/v1/agents', '/v1/webhooks']);

/** A field with a default is filled in by the server when absent, so a client need not send it. */
function dropDefaultedFromRequired(schema: unknown): void {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const item of schema) dropDefaultedFromRequired(item);
    return;
  }
  const s = schema as Schema;
  if (s.properties && Array.isArray(s.required)) {
    s.required = s.required.filter((name) => s.properties?.[name]?.default === undefined);
    if (s.required.length === 0) delete s.required;
  }
  for (const [key, value] of Object.entries(s))
    if (key !== 'default' && key !== 'enum') dropDefaultedFromRequired(value);
}

/** A change that honours If-Match (collection-routes.ts declares the header). */
const takesIfMatch = (op: Operation | undefined) =>
  (op?.parameters ?? []).some((p) => p.in === 'header' && String(p.name).toLowerCase() === 'if-match');

function refineOperation(
  method: string,
  path: string,
  op: Operation,
  problem: Schema,
  item: Record<string, Operation>,
): void {
  for (const p of op.parameters ?? []) {
    if (p.in === 'query' && p.schema?.default !== undefined) p.required = false;
  }
  if (op.requestBody) {
    for (const media of Object.values(op.requestBody.content)) dropDefaultedFromRequired(media.schema);
    const schema = Object.values(op.requestBody.content)[0]?.schema;
    // build-api.ts treats a missing body as {}: it may be left out when nothing in it is required.
    op.requestBody.required = (schema?.required?.length ?? 0) > 0;
  }
  const problemContent = { [PROBLEM]: { schema: problem } };
  // Every route but the health checks, the key set and the document itself authenticates someone
  // (a bearer token, or a credential in the body), and can be refused or rate limited.
  const authenticates = op.security !== undefined || path.startsWith('/v1/auth/');
  if (authenticates) {
    op.responses['401'] = {
      description: 'Not authenticated: no token, or one that is invalid, expired or revoked (problem+json)',
      headers: { 'WWW-Authenticate': header('WWW-Authenticate') },
      content: problemContent,
    };
    op.responses['429'] = {
      description: 'Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds',
      headers: Object.fromEntries(
        ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'].map((h) => [h, header(h)]),
      ),
      content: problemContent,
    };
  }
  if (takesIfMatch(op)) {
    op.responses['412'] = {
      description:
        'If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json)',
      content: problemContent,
    };
  }
  // Any route refuses bad input (unknown query parameters included) with a 400 problem.
  op.responses['4XX'] ??= { description: 'Client error (problem+json)', content: problemContent };
  for (const [status, response] of Object.entries(op.responses)) {
    if (/^[45]/.test(status)) response.content = problemContent;
    else if (response.content) {
      for (const [media, entry] of Object.entries(response.content)) {
        // A new entry: @fastify/swagger shares one media object between the types a route produces.
        if (!isJsonMedia(media) && entry.schema?.type !== 'string') {
          const description = media === 'application/x-ndjson' ? 'One JSON object per line' : `${media} text`;
          response.content[media] = { ...entry, schema: { type: 'string', description } };
        }
      }
    }
    if (status.startsWith('5')) response.headers = { 'Retry-After': header('Retry-After'), ...response.headers };
    if (status === '201' && method === 'post' && CREATED_AT_LOCATION.has(path)) {
      response.headers = { Location: header('Location'), ...response.headers };
    }
    // The GET of an item whose changes take If-Match answers the ETag they compare.
    if (status === '200' && method === 'get' && ['put', 'patch', 'delete'].some((m) => takesIfMatch(item[m]))) {
      response.headers = { ETag: header('ETag'), ...response.headers };
    }
    response.headers = { 'X-Request-Id': header('X-Request-Id'), ...response.headers };
  }
}

export function refineOpenApi(doc: Json): Json {
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const components = (doc.components ?? {}) as Json;
  const problem = { $ref: '#/components/schemas/Problem' } as Schema;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) refineOperation(method, path, op, problem, item);
  }
  return {
    openapi: doc.openapi,
    // OpenAPI 3.1's default dialect, named so that validators apply JSON Schema 2020-12 as written.
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    ...doc,
    components: {
      ...components,
      schemas: { ...(components.schemas as Json), Problem: JSON.parse(JSON.stringify(Problem)) },
      headers: RESPONSE_HEADERS,
    },
  };
}
