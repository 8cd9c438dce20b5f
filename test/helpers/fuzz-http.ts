// A raw HTTP client for the fuzz tests and the checks every answer must pass. It uses node:http
// rather than fetch so that the request target goes out byte for byte (fetch would normalise
// `..`, percent-encoding and the like) and so that any method, header or body can be sent.
import http from 'node:http';
import net from 'node:net';

export interface RawRequest {
  method: string;
  /** The request target, sent as is: path and query string. */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length. */
  chunked?: boolean;
}

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** Closes the kept-alive sockets (call after the server stops). */
export function closeFuzzAgent(): void {
  agent.destroy();
}

function once(base: URL, req: RawRequest, reuse: boolean): Promise<RawReply> {
  const headers: Record<string, string | number> = { ...req.headers };
  if (req.body !== undefined) {
    if (req.chunked) headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = Buffer.byteLength(req.body);
  }
  return new Promise((resolve, reject) => {
    let answered = false;
    const r = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.path,
        headers,
        agent: reuse ? agent : false,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    r.setTimeout(15_000, () => r.destroy(new Error('no answer within 15 s')));
    r.on('error', (e: NodeJS.ErrnoException & { reused?: boolean }) => {
      // The server may answer (413, 401…) and close before it has read the whole body: the answer counts.
      if (answered) return;
      if (r.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) e.reused = true;
      reject(e);
    });
    if (req.body !== undefined) r.end(req.body);
    else r.end();
  });
}

/** Sends one request; retries once on a fresh connection if a kept-alive socket was closed under it. */
export async function send(baseUrl: string, req: RawRequest): Promise<RawReply> {
  const base = new URL(baseUrl);
  try {
    return await once(base, req, true);
  } catch (e) {
    if ((e as { reused?: boolean }).reused) return once(base, req, false);
    throw e;
  }
}

/**
 * Writes raw bytes on a fresh connection, half-closes it, and parses the first answer (undefined if
 * the server closed without one). For what the HTTP parser itself makes of malformed requests.
 */
export function sendRawBytes(baseUrl: string, payload: Buffer): Promise<RawReply | undefined> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(base.port), base.hostname, () => socket.end(payload));
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNRESET' || e.code === 'EPIPE') return; // the answer, if any, is already in
      reject(e);
    });
    socket.on('close', () => resolve(parseFirstResponse(Buffer.concat(chunks))));
  });
}

function parseFirstResponse(all: Buffer): RawReply | undefined {
  let raw = all;
  let end = raw.indexOf('\r\n\r\n');
  // Skip interim answers (100 Continue): they carry no body and no request id.
  while (end >= 0 && /^HTTP\/1\.[01] 1\d\d/.test(raw.subarray(0, 16).toString('latin1'))) {
    raw = raw.subarray(end + 4);
    end = raw.indexOf('\r\n\r\n');
  }
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!m) return undefined;
  const headers: http.IncomingHttpHeaders = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = raw.subarray(end + 4);
  const length = Number(headers['content-length']);
  if (Number.isInteger(length)) body = body.subarray(0, length);
  else if (/chunked/i.test(String(headers['transfer-encoding'] ?? ''))) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = body.indexOf('\r\n', at);
      const size = eol < 0 ? 0 : Number.parseInt(body.subarray(at, eol).toString('latin1'), 16);
      if (!size) break;
      parts.push(body.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status: Number(m[1]), headers, text: body.toString('utf8') };
}

const clip = (s: string, n = 400) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

/** A copy-pasteable description of a request, for failure messages. */
export function describeRequest(req: RawRequest): string {
  const body = req.body === undefined ? '' : ` body=${clip(JSON.stringify(String(req.body)))}`;
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `${k}: ${clip(JSON.stringify(v), 120)}`)
    .join(', ');
  return `${req.method} ${clip(req.path, 300)} [${headers}]${req.chunked ? ' (chunked)' : ''}${body}`;
}

// What an error body must never contain: stack frames, source file positions, dependency paths,
// internal error class names or SQLite messages.
const LEAKS: RegExp[] = [
  /\bat (?:async )?[^\s()]+ \([^)]*:\d+:\d+\)/, // "at fn (/file.ts:1:2)"
  /\bat (?:file:\/\/|node:|\/)[^\s)]*:\d+/, // "at /file.ts:1:2", "at node:internal…"
  /\.(?:ts|js|mjs|cjs):\d+/, // "service.ts:12"
  /node_modules/,
  /\b(?:Syntax|Type|Reference|Range|Eval)Error\b/,
  /SQLITE_|SqliteError/,
];

export interface CheckOptions {
  /** Extra strings that must not appear in an error body (e.g. the data directory). */
  secrets?: string[];
}

/**
 * The invariants of every answer: no 5xx; an x-request-id; and every 4xx is problem+json with
 * type, title, status (= the HTTP status), detail, code and request_id (= the header), leaking
 * nothing; a 405 names in Allow the methods to use instead, never the one that was used. Throws an Error naming the request and the answer.
 */
export function checkReply(req: RawRequest, reply: RawReply, opts: CheckOptions = {}): void {
  const problems: string[] = [];
  const requestId = reply.headers['x-request-id'];
  if (reply.status >= 500) problems.push(`server error ${reply.status}`);
  if (typeof requestId !== 'string' || !/^req_[0-9a-f]{32}$/.test(requestId)) problems.push('no x-request-id header');
  if (reply.status === 405) {
    const allow = String(reply.headers.allow ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (allow.length === 0) problems.push('405 without an Allow header');
    else if (allow.includes(req.method)) problems.push(`405 whose Allow header lists ${req.method} itself`);
  }
  if (reply.status >= 400 && req.method !== 'HEAD') {
    const type = String(reply.headers['content-type'] ?? '');
    if (!type.startsWith('application/problem+json')) problems.push(`content-type is ${JSON.stringify(type)}`);
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(reply.text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      // reported below
    }
    if (!body) problems.push('the body is not a JSON object');
    else {
      for (const key of ['type', 'title', 'detail', 'code', 'request_id']) {
        if (typeof body[key] !== 'string' || body[key] === '') problems.push(`body.${key} is missing or not a string`);
      }
      if (body.status !== reply.status) problems.push(`body.status ${String(body.status)} != HTTP ${reply.status}`);
      if (typeof body.code === 'string' && body.type !== `urn:gatehouse:error:${body.code}`)
        problems.push('body.type does not match body.code');
      if (typeof requestId === 'string' && body.request_id !== requestId)
        problems.push('body.request_id differs from x-request-id');
      if (body.errors !== undefined) {
        const ok =
          Array.isArray(body.errors) &&
          body.errors.every(
            (e) => e && typeof e === 'object' && typeof (e as { path?: unknown }).path === 'string' && 'message' in e,
          );
        if (!ok) problems.push('body.errors is not a list of {path, message}');
      }
    }
    const sent = `${req.path}\n${JSON.stringify(req.headers)}\n${req.body === undefined ? '' : String(req.body)}`;
    for (const re of LEAKS) {
      const m = re.exec(reply.text);
      // A value the request itself carried may legitimately be echoed back (e.g. in "role … does not exist").
      if (m && !sent.includes(m[0]) && !JSON.stringify(sent).includes(m[0]))
        problems.push(`leaks ${JSON.stringify(m[0])}`);
    }
    for (const s of opts.secrets ?? []) {
      if (s && reply.text.includes(s) && !sent.includes(s)) problems.push(`leaks ${JSON.stringify(s)}`);
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `${problems.join('; ')}\n  request:  ${describeRequest(req)}\n  response: ${reply.status} ${String(
        reply.headers['content-type'] ?? '(no content-type)',
      )} ${clip(reply.text, 600)}`,
    );
  }
}
