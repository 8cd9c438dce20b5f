// Checks real exchanges against docs/openapi.json, as a client generated from it would meet them:
// the operation and status are declared, the content type is one the document lists, a JSON body
// validates (ajv, JSON Schema 2020-12, as the document's jsonSchemaDialect says), required response
// headers are present and the ones sent are declared; and a request the service accepted sent every
// parameter and body field the document calls required.
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';

const addFormats = createRequire(import.meta.url)('ajv-formats') as typeof import('ajv-formats').default;

// biome-ignore lint/suspicious/noExplicitAny: the document is walked field by field
type Doc = any;

export interface Exchange {
  method: string;
  /** Path and query string, as sent. */
  url: string;
  requestBody?: unknown;
  status: number;
  headers: Headers;
  text: string;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
// Headers a response may carry that are not part of any API contract (transport, caching).
const TRANSPORT = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'cache-control',
  'content-disposition',
  'x-accel-buffering',
  'allow',
  'gatehouse-replica-lag',
]);
const DECLARED_WHEN_SENT = [
  'etag',
  'location',
  'www-authenticate',
  'retry-after',
  'ratelimit-limit',
  'ratelimit-reset',
];

export function openApiChecker(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'gatehouse-openapi' });
  // As the router does, a literal segment wins over a parameter: /v1/users/me/api-keys is its own
  // operation, not /v1/users/{id}/api-keys with id "me". So templates with fewer parameters go first.
  const params = (t: string) => (t.match(/\{/g) ?? []).length;
  const templates = Object.keys(doc.paths)
    .sort((a, b) => params(a) - params(b))
    .map((template) => ({
      template,
      re: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  const validatorAt = (pointer: string) => {
    const validate = ajv.getSchema(`gatehouse-openapi#${pointer}`);
    if (!validate) throw new Error(`no schema at ${pointer}`);
    return validate;
  };
  const resolve = (node: Doc): Doc =>
    node?.$ref
      ? resolve(
          node.$ref
            .slice(2)
            .split('/')
            .reduce((o: Doc, k: string) => o[k], doc),
        )
      : node;

  /** The problems with one exchange; empty when it matches the document. */
  function check(x: Exchange): string[] {
    const where = `${x.method} ${x.url} → ${x.status}`;
    const [path, query = ''] = x.url.split('?') as [string, string?];
    const problems: string[] = [];
    const requestId = x.headers.get('x-request-id');
    if (!requestId || !/^req_[0-9a-f]{32}$/.test(requestId)) problems.push(`${where}: no X-Request-Id`);
    const found = templates.find((t) => t.re.test(path) && doc.paths[t.template][x.method.toLowerCase()]);
    if (!found) {
      // Unrouted: the not-found handler's 404 or 405, which no operation declares.
      if (x.status !== 404 && x.status !== 405) problems.push(`${where}: no operation in the document`);
      return problems;
    }
    const method = x.method.toLowerCase();
    const op = doc.paths[found.template][method];
    const key = [String(x.status), `${String(x.status)[0]}XX`, 'default'].find((k) => op.responses[k]);
    if (!key) return [...problems, `${where}: status not declared (${Object.keys(op.responses).join(', ')})`];
    const response = resolve(op.responses[key]);
    const base = `/paths/${escapePointer(found.template)}/${method}/responses/${escapePointer(key)}`;

    const media = (x.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    if (x.text.length > 0 || media) {
      if (!response.content?.[media]) {
        problems.push(`${where}: content type ${media} not declared (${Object.keys(response.content ?? {})})`);
      } else if (/json$/.test(media) && media !== 'application/x-ndjson') {
        const validate = validatorAt(`${base}/content/${escapePointer(media)}/schema`);
        if (!validate(JSON.parse(x.text))) {
          problems.push(`${where}: body does not match: ${ajv.errorsText(validate.errors)} — ${x.text.slice(0, 300)}`);
        }
      }
    } else if (response.content && x.status !== 204) problems.push(`${where}: empty body where content is declared`);

    const declared = Object.fromEntries(
      Object.entries(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), resolve(h)]),
    );
    for (const [name, h] of Object.entries(declared) as Array<[string, Doc]>) {
      const value = x.headers.get(name);
      if (value === null) {
        if (h.required) problems.push(`${where}: required header ${name} missing`);
      } else if (h.schema?.pattern && !new RegExp(h.schema.pattern).test(value)) {
        problems.push(`${where}: header ${name}: ${value} does not match ${h.schema.pattern}`);
      }
    }
    for (const name of DECLARED_WHEN_SENT) {
      if (x.headers.get(name) !== null && !declared[name] && !TRANSPORT.has(name)) {
        problems.push(`${where}: sends ${name} but the document does not declare it`);
      }
    }

    // What the service accepted, the document must not call invalid.
    if (x.status < 300) {
      const sent = new URLSearchParams(query);
      for (const p of op.parameters ?? []) {
        if (p.in === 'query' && p.required && !sent.has(p.name)) {
          problems.push(`${where}: query parameter ${p.name} is required by the document but was not sent`);
        }
      }
      for (const name of new Set(sent.keys())) {
        if (!(op.parameters ?? []).some((p: Doc) => p.in === 'query' && p.name === name)) {
          problems.push(`${where}: query parameter ${name} was accepted but is not declared`);
        }
      }
      if (op.requestBody) {
        if (x.requestBody === undefined && op.requestBody.required) {
          problems.push(`${where}: no body sent, but the document requires one`);
        } else if (x.requestBody !== undefined) {
          const pointer = `/paths/${escapePointer(found.template)}/${method}/requestBody/content/application~1json/schema`;
          const validate = validatorAt(pointer);
          if (!validate(x.requestBody)) {
            problems.push(`${where}: accepted body fails the document: ${ajv.errorsText(validate.errors)}`);
          }
        }
      }
    }
    return problems;
  }

  /** Operations of the document that none of the exchanges reached. */
  function unreached(exchanges: Exchange[]): string[] {
    const hit = new Set<string>();
    for (const x of exchanges) {
      const path = x.url.split('?')[0] as string;
      const t = templates.find((t) => t.re.test(path) && doc.paths[t.template][x.method.toLowerCase()]);
      if (t) hit.add(`${x.method.toUpperCase()} ${t.template}`);
    }
    return Object.entries(doc.paths).flatMap(([template, item]) =>
      Object.keys(item as object)
        .map((m) => `${m.toUpperCase()} ${template}`)
        .filter((op) => !hit.has(op)),
    );
  }

  return { check, unreached };
}
