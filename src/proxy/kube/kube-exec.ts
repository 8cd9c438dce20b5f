// kubectl exec and attach through the proxy: the client's WebSocket (v5.channel.k8s.io or
// v4.channel.k8s.io, what kubectl ≥ 1.30 speaks) is bridged message by message to one opened to the
// API server with Gatehouse's credential and impersonation. Each binary message is a channel byte
// (0 stdin, 1 stdout, 2 stderr, 3 error: a Status with the exit code, 4 resize: {"Width","Height"},
// 255 v5 close: the stream id it ends) then data; stdout and stderr (and stdin, if a role asks) are
// recorded as asciicast, and the exec is a session (listed, terminable, ended by the kill switch).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, type WebSocketServer } from 'ws';
import type { SessionRecording } from '../../recordings/spool.js';
import type { KubeUpstream } from '../../resources/kube-upstream.js';
import { type DoorKitDeps, type DoorSessionSpec, openDoorSession } from '../common/door-session.js';
import type { KubeDecision } from './kube-access.js';
import { type KubeRequestInfo, sendStatusOnSocket } from './kube-request.js';
import { upstreamHeaders } from './kube-upstream-request.js';

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
/** Pause the sending side while this much waits for the receiving one. */
const HIGH_WATER = 4 * 1024 * 1024;

export interface ExecDeps extends DoorKitDeps {
  wss: WebSocketServer;
}

type Allowed = Extract<KubeDecision, { allowed: true }>;

/** The exit code a v4/v5 error-channel Status carries (Success: 0), or undefined. */
export function exitCodeOf(status: string): number | undefined {
  try {
    const s = JSON.parse(status) as {
      status?: string;
      details?: { causes?: Array<{ reason?: string; message?: string }> };
    };
    if (s.status === 'Success') return 0;
    const code = s.details?.causes?.find((c) => c.reason === 'ExitCode')?.message;
    return code === undefined ? undefined : Number(code);
  } catch {
    return undefined;
  }
}

/** Sends with backpressure: a slow receiver pauses the sender's socket until it catches up. */
function relay(from: WebSocket, to: WebSocket, data: Buffer): void {
  if (to.readyState !== WebSocket.OPEN) return;
  to.send(data, { binary: true }, () => {
    if (to.bufferedAmount < HIGH_WATER / 2 && from.isPaused) from.resume();
  });
  if (to.bufferedAmount >= HIGH_WATER) from.pause();
}

export function bridgeExec(
  deps: ExecDeps,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  ctx: { decision: Allowed; upstream: KubeUpstream; restPath: string; info: KubeRequestInfo },
): void {
  const { decision, upstream } = ctx;
  const query = new URL(req.url ?? '/', 'https://proxy').searchParams;
  const command = query.getAll('command').join(' ').slice(0, 4096);
  const tty = query.get('tty') === 'true' || query.get('tty') === '1';
  const protocols = (req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p === 'v5.channel.k8s.io' || p === 'v4.channel.k8s.io');
  if (protocols.length === 0) {
    sendStatusOnSocket(socket, 400, 'gatehouse: exec needs the v5.channel.k8s.io or v4.channel.k8s.io protocol');
    return;
  }
  const url = new URL(upstream.url);
  const target = `wss://${url.host}${url.pathname.replace(/\/$/, '')}${ctx.restPath}${req.url?.slice(req.url.indexOf('?')) ?? ''}`;
  const up = new WebSocket(target, protocols, {
    ca: upstream.ca,
    ...(upstream.cert ? { cert: upstream.cert, key: upstream.key } : {}),
    headers: upstreamHeaders(upstream, decision),
    perMessageDeflate: false,
    handshakeTimeout: 15_000,
  });
  let answered = false;
  socket.on('error', () => up.terminate());
  // The API server refused (a forbidden namespace, no such pod): the client gets its answer as is.
  up.once('unexpected-response', (_r, res) => {
    answered = true;
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = res.headers['content-type'] ?? 'application/json';
      socket.end(
        `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\ncontent-type: ${type}\r\n` +
          `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body.toString()}`,
      );
      up.terminate();
    });
  });
  up.once('error', (err) => {
    if (answered || opened) return;
    answered = true;
    sendStatusOnSocket(socket, 502, `gatehouse: cannot reach ${decision.cluster.name}: ${err.message}`);
  });
  let opened = false;
  up.once('open', () => {
    opened = true;
    deps.wss.handleUpgrade(req, socket, head, (client) => {
      void runExec(deps, client, up, { ...ctx, command, tty });
    });
  });
}

/** The door kit's view of an exec: the Kubernetes user is "as whom", the pod and command its command. */
function execSpec(
  client: WebSocket,
  endBoth: (code: number, reason: string) => void,
  ctx: { decision: Allowed; info: KubeRequestInfo; command: string; remoteAddr: string },
): DoorSessionSpec {
  const { decision, info } = ctx;
  const { cluster } = decision;
  const target = `${info.namespace ?? 'default'}/${info.name ?? ''}`;
  return {
    kind: 'kube',
    type: 'exec',
    principal: decision.principal,
    resource: { kind: 'kube_cluster', id: cluster.id, name: cluster.name },
    as: { login: decision.user },
    command: `${target}: ${ctx.command}`,
    origin: { remoteAddr: ctx.remoteAddr },
    options: decision.options,
    recording: {
      width: 80,
      height: 24,
      title: `${decision.user}@${cluster.name}: ${target}${ctx.command ? ` ${ctx.command}` : ''}`.slice(0, 200),
    },
    rejection: { login: decision.user },
    refuse(message, why) {
      sendError(client, `gatehouse: ${message}`);
      endBoth(1000, why === 'recording' ? 'not recorded' : 'not started');
    },
    close(message) {
      if (client.readyState === WebSocket.OPEN) {
        client.send(Buffer.concat([Buffer.from([STDERR]), Buffer.from(`\r\n${message}\r\n`)]));
        sendError(client, message);
      }
      endBoth(1000, 'terminated');
    },
  };
}

async function runExec(
  deps: ExecDeps,
  client: WebSocket,
  up: WebSocket,
  ctx: { decision: Allowed; info: KubeRequestInfo; command: string; tty: boolean },
): Promise<void> {
  const remoteAddr = (client as unknown as { _socket?: { remoteAddress?: string } })._socket?.remoteAddress ?? '';
  const endBoth = (code: number, reason: string) => {
    if (client.readyState === WebSocket.OPEN) client.close(code, reason);
    if (up.readyState === WebSocket.OPEN) up.close(code, reason);
  };
  // Nothing flows until the session start is durable; what arrives meanwhile waits here, in order.
  let held: Array<() => void> | undefined = [];
  const whenRunning = (fn: () => void) => (held ? held.push(fn) : fn());
  client.on('message', (raw: RawData) => whenRunning(() => fromClient(raw as Buffer)));
  up.on('message', (raw: RawData) => whenRunning(() => fromUpstream(raw as Buffer)));
  up.on('close', (code) => whenRunning(() => upstreamClosed(code)));
  client.on('close', () => whenRunning(() => clientClosed()));
  up.on('error', () => client.terminate());
  client.on('error', () => up.terminate());
  const session = await openDoorSession(deps, execSpec(client, endBoth, { ...ctx, remoteAddr }));
  if (!session) return;
  const rec = session.recording as SessionRecording;
  const recordInput = ctx.decision.options.recordInput;
  let exitCode: number | undefined;

  function fromClient(data: Buffer): void {
    const channel = data[0];
    if (channel === STDIN) {
      session?.touch(data.length - 1, 0);
      if (recordInput) session?.recorded(rec.input(data.subarray(1)));
    } else if (channel === RESIZE) {
      try {
        const size = JSON.parse(data.subarray(1).toString()) as { Width?: number; Height?: number };
        if (size.Width && size.Height) session?.recorded(rec.resize(size.Width, size.Height));
      } catch {
        // a malformed resize is the API server's to refuse
      }
    }
    relay(client, up, data);
  }
  function fromUpstream(data: Buffer): void {
    const channel = data[0];
    if (channel === STDOUT || channel === STDERR) {
      session?.touch(0, data.length - 1);
      session?.recorded(rec.output(data.subarray(1)));
    } else if (channel === ERROR) {
      exitCode = exitCodeOf(data.subarray(1).toString()) ?? exitCode;
    }
    relay(up, client, data);
  }
  function upstreamClosed(code: number): void {
    // 1005 (no code) and 1006 (dropped) may not be sent in a close frame.
    if (client.readyState === WebSocket.OPEN) client.close(code === 1005 || code === 1006 ? 1000 : code);
    void session?.end(exitCode === undefined ? {} : { exitCode });
  }
  function clientClosed(): void {
    if (up.readyState === WebSocket.OPEN || up.readyState === WebSocket.CONNECTING) up.close(1000);
    void session?.end(exitCode === undefined ? {} : { exitCode });
  }
  const queued = held;
  held = undefined;
  for (const fn of queued) fn();
}

/** A Failure Status on the error channel: kubectl prints its message and exits non-zero. */
function sendError(client: WebSocket, message: string): void {
  if (client.readyState !== WebSocket.OPEN) return;
  const status = JSON.stringify({ metadata: {}, status: 'Failure', message, reason: 'Forbidden', code: 403 });
  client.send(Buffer.concat([Buffer.from([ERROR]), Buffer.from(status)]));
}
