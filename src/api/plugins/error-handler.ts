// The one place where errors become HTTP: GatehouseError keeps its code; Fastify's own errors
// (validation, content type, size, JSON syntax) map to catalogue codes; anything else is an
// internal_error whose details go to the log, never to the client.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode, type FieldError, GatehouseError } from '../../lib/errors.js';
import { newRequestId } from '../../lib/random.js';
import { ADDRESS_PATTERN, PLAIN_TEXT_PATTERN } from '../../lib/shapes.js';

const FASTIFY_CODES: Record<string, { code: ErrorCode; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', detail: 'send the body as application/json' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', detail: 'the request body is over 1 MiB' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_request', detail: 'the body is empty but the content type is JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid_request', detail: 'Content-Length does not match the body' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_request', detail: 'the body is not valid JSON' },
};

const LOCATIONS: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** Set on errors about an object's key (propertyNames). */
  propertyName?: string;
}

const BAD_KEY = 'is not a valid key (1–63 letters, digits and . _ / -, starting with a letter or digit)';

// A union of literals fails as one `const` error per literal plus an `anyOf`; a client needs the
// list of what is allowed, once.
function allowedValues(errors: AjvError[]): AjvError[] {
  const byPath = new Map<string, AjvError[]>();
  for (const e of errors) byPath.set(e.instancePath, [...(byPath.get(e.instancePath) ?? []), e]);
  const out: AjvError[] = [];
  for (const e of errors) {
    const here = byPath.get(e.instancePath) as AjvError[];
    const literals = here.filter((o) => o.keyword === 'const');
    const isEnumUnion =
      literals.length > 0 &&
      here.every((o) => o.keyword === 'const' || o.keyword === 'anyOf') &&
      here.some((o) => o.keyword === 'anyOf');
    if (e.keyword === 'enum') {
      out.push({ ...e, message: `must be one of: ${(e.params.allowedValues as unknown[]).map(String).join(', ')}` });
    } else if (!isEnumUnion) out.push(e);
    else if (e.keyword === 'anyOf') {
      const values = literals.map((o) => String(o.params.allowedValue));
      out.push({ ...e, message: `must be one of: ${values.join(', ')}` });
    }
  }
  return out;
}

export function fieldErrors(context: string | undefined, errors: AjvError[]): FieldError[] {
  const where = LOCATIONS[context ?? 'body'] ?? 'body';
  const mapped = allowedValues(errors).map((e) => {
    let path = `/${where}${e.instancePath}`;
    let message = e.message ?? 'is not valid';
    if (e.propertyName !== undefined || e.keyword === 'propertyNames') {
      // A bad key (labels): name the key, once, rather than "property name must be valid".
      path += `/${e.propertyName ?? String(e.params.propertyName)}`;
      message = BAD_KEY;
    } else if (e.keyword === 'pattern' && e.params.pattern === PLAIN_TEXT_PATTERN) {
      message = 'must not contain NUL or unpaired UTF-16 surrogates';
    } else if (e.keyword === 'pattern' && e.params.pattern === ADDRESS_PATTERN) {
      message = 'must be host or host:port, with a port from 1 to 65535 (https://host:port for kube_cluster)';
    } else if (e.keyword === 'additionalProperties') {
      path += `/${String(e.params.additionalProperty)}`;
      message = 'is not a known field';
    } else if (e.keyword === 'required') {
      path += `/${String(e.params.missingProperty)}`;
      message = 'is required';
    }
    return { path, message };
  });
  const badKeys = new Set(mapped.filter((e) => e.message === BAD_KEY).map((e) => e.path));
  return mapped.filter(
    (e, i) =>
      !(badKeys.has(e.path) && e.message !== BAD_KEY) &&
      mapped.findIndex((o) => o.path === e.path && o.message === e.message) === i,
  );
}

function toGatehouseError(error: FastifyError | GatehouseError | Error): GatehouseError | undefined {
  if (error instanceof GatehouseError) return error;
  const fe = error as FastifyError & { validationContext?: string };
  if (fe.validation) {
    const errors = fieldErrors(fe.validationContext, fe.validation as unknown as AjvError[]);
    const summary = errors.map((e) => `${e.path} ${e.message}`).join('; ');
    return new GatehouseError('invalid_request', summary, { errors });
  }
  const known = fe.code ? FASTIFY_CODES[fe.code] : undefined;
  if (known) return new GatehouseError(known.code, known.detail);
  if (error instanceof SyntaxError && /prototype property/.test(error.message)) {
    return new GatehouseError(
      'invalid_request',
      'the body contains a forbidden key (__proto__ or constructor.prototype)',
    );
  }
  if (error instanceof SyntaxError && fe.statusCode === 400) {
    return new GatehouseError('invalid_request', 'the body is not valid JSON');
  }
  if (fe.statusCode === 413) return new GatehouseError('payload_too_large', 'the request is too large');
  if (fe.statusCode === 415) return new GatehouseError('unsupported_media_type', 'send the body as application/json');
  // Other Fastify client errors (bad URL encoding, prototype poisoning…) say only that the request is bad.
  if (fe.code?.startsWith('FST_') && fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new GatehouseError('invalid_request', 'the request is malformed');
  }
  if (fe.statusCode === 400) return new GatehouseError('invalid_request', 'the request is malformed');
  return undefined;
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, err: GatehouseError): FastifyReply {
  const entry = ERROR_CATALOGUE[err.code];
  if (err.headers) reply.headers(err.headers);
  if (err.status === 401) {
    const reason =
      err.code === 'unauthenticated'
        ? ''
        : `, error="invalid_token", error_description="${err.detail.replace(/"/g, "'")}"`;
    reply.header('www-authenticate', `Bearer realm="gatehouse"${reason}`);
  }
  const body: Record<string, unknown> = {
    type: `urn:gatehouse:error:${err.code}`,
    title: entry.title,
    status: err.status,
    detail: err.detail,
    code: err.code,
    request_id: request.id,
  };
  if (err.errors) body.errors = err.errors;
  return reply
    .code(err.status)
    .header('x-request-id', request.id)
    .type('application/problem+json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(body);
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | GatehouseError, request, reply) => {
    const known = toGatehouseError(error);
    if (known) {
      if (known.status >= 500) request.log.error({ err: error }, 'request failed');
      return sendProblem(reply, request, known);
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendProblem(
      reply,
      request,
      new GatehouseError('internal_error', 'an internal error occurred; quote the request id when reporting it'),
    );
  });
}

/** Errors Fastify raises before routing (bad URL encoding, over-long path parameters). */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const detail =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'a path parameter is longer than 100 characters'
      : 'the URL is not valid (check its percent-encoding)';
  return sendProblem(reply, request, new GatehouseError('invalid_request', detail));
}

/** Errors the HTTP parser raises before any request exists (header overflow, malformed HTTP). */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: import('node:net').Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, title, code, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'invalid_request', 'the request headers are over 16 KiB']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'invalid_request', 'the request was not received in time']
        : [400, 'Bad Request', 'invalid_request', 'the request is not valid HTTP'];
  const requestId = newRequestId();
  const body = JSON.stringify({
    type: `urn:gatehouse:error:${code}`,
    title,
    status,
    detail,
    code,
    request_id: requestId,
  });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\nX-Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** An `Expect` header other than 100-continue: Node would answer a bare 417; answer a problem. */
export function answerUnmetExpectations(server: import('node:http').Server): void {
  server.on('checkExpectation', (_req, res) => {
    const requestId = newRequestId();
    const body = JSON.stringify({
      type: 'urn:gatehouse:error:invalid_request',
      title: 'Expectation Failed',
      status: 417,
      detail: 'only "Expect: 100-continue" is supported',
      code: 'invalid_request',
      request_id: requestId,
    });
    res.writeHead(417, {
      'content-type': 'application/problem+json; charset=utf-8',
      'x-request-id': requestId,
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
}
