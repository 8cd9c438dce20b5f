// An app for the app-access tests, on loopback: it records what each request brought (headers, the
// identity assertion verified against Gatehouse's JWKS), answers a page, an upload's size, an SSE
// stream and a WebSocket echo. What it records is what an app behind Gatehouse would see.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import { request } from 'undici';
import { WebSocketServer } from 'ws';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The assertion's claims when it verified against the JWKS for the expected audience, else the error. */
  claims?: JWTPayload;
  jwtError?: string;
  jwtTyp?: string;
}

export interface TestApp {
  url: string;
  port: number;
  seen: Seen[];
  /** Where the JWKS is and which audience to expect (set once the app's public URL is known). */
  verifyWith(jwksUrl: string, audience: string, issuer: string): void;
  close(): Promise<void>;
}

/** With `tls`, the app answers https with that certificate (its url then starts with https://). */
export async function startTestApp(opts: { tls?: { certFile: string; keyFile: string } } = {}): Promise<TestApp> {
  const seen: Seen[] = [];
  let verify: { jwks: ReturnType<typeof createRemoteJWKSet>; audience: string; issuer: string } | undefined;

  async function record(method: string, url: string, headers: IncomingHttpHeaders): Promise<Seen> {
    const entry: Seen = { method, url, headers };
    const jwt = headers['gatehouse-jwt-assertion'];
    if (typeof jwt === 'string' && verify) {
      try {
        const { payload, protectedHeader } = await jwtVerify(jwt, verify.jwks, {
          audience: verify.audience,
          issuer: verify.issuer,
        });
        entry.claims = payload;
        entry.jwtTyp = protectedHeader.typ;
      } catch (error) {
        entry.jwtError = (error as Error).message;
      }
    }
    seen.push(entry);
    return entry;
  }

  const handler: RequestListener = async (req, res) => {
    const entry = await record(req.method ?? '', req.url ?? '', req.headers);
    if (req.url?.startsWith('/upload')) {
      let bytes = 0;
      try {
        for await (const chunk of req) bytes += (chunk as Buffer).length;
      } catch {
        return; // the upload was cut: the test sees it on its side
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes }));
      return;
    }
    if (req.url?.startsWith('/events')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('data: first\n\n');
      // The second event only after a pause: a proxy that buffers would deliver both at the end.
      setTimeout(() => res.end('data: second\n\n'), 400);
      return;
    }
    if (req.url?.startsWith('/set-cookies')) {
      res.writeHead(200, { 'set-cookie': ['app_pref=dark; Path=/', 'gatehouse_app=stolen; Path=/'] }).end('ok');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-app': 'upstream' });
    res.end(`<!doctype html><title>Test app</title><h1>Hello ${entry.claims?.name ?? 'nobody'} from the test app</h1>`);
  };
  const tls = opts.tls;
  const server: Server = tls
    ? createHttpsServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, handler)
    : createServer(handler);
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket, req) => {
    // Echo only once the upgrade is recorded (its JWT verified, which may fetch the JWKS): a test
    // that reads `seen` after the echo must find it there (it raced and failed under load).
    const recorded = record('WEBSOCKET', req.url ?? '', req.headers);
    socket.on('message', (data) => void recorded.then(() => socket.send(`echo: ${data.toString()}`)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    seen,
    verifyWith(jwksUrl, audience, issuer) {
      verify = { jwks: createRemoteJWKSet(new URL(jwksUrl)), audience, issuer };
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface AppReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request to an app host on the web listener: to 127.0.0.1, with the app's Host header. */
export async function appRequest(
  webUrl: string,
  host: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<AppReply> {
  const res = await request(`${webUrl}${path}`, {
    method: (opts.method ?? 'GET') as 'GET',
    headers: { host, ...(opts.headers ?? {}) },
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

/** The name=value of each Set-Cookie, by name. */
export function setCookies(headers: AppReply['headers']): Map<string, string> {
  const raw = headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return new Map(
    all.map((c) => {
      const pair = c.split(';')[0] as string;
      const eq = pair.indexOf('=');
      return [pair.slice(0, eq), pair.slice(eq + 1)];
    }),
  );
}
