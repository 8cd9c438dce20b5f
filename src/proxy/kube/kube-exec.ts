// kubectl exec and attach through the proxy: the client's WebSocket (v5.channel.k8s.io or
// v4.channel.k8s.io, what kubectl ≥ 1.30 speaks) is bridged message by message to one opened to the
// API server with Gatehouse's credential and impersonation. Each binary message is a channel byte
// (0 stdin, 1 stdout, 2 stderr, 3 error: a Status with the exit code, 4 resize: {"Width","Height"},
// 255 v5 close: the stream id it ends) then data; stdout and stderr (and stdin, if a role asks) are
// recorded as asciicast, and the exec is a session (listed, terminable, ended by the kill switch).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { type RawData, WebSocket, type WebSocketServer } from 'ws';
import type { AuditLog } from '../../audit/audit-log.js';
import { actorOfPrincipal } from '../../auth/principal.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { RecordingService } from '../../recordings/recording-service.js';
import type { RecordResult, SessionRecording } from '../../recordings/spool.js';
import type { KubeUpstream } from '../../resources/kube-upstream.js';
import { type SessionRegistry, sessionPrincipal } from '../../sessions/session-registry.js';
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

export interface ExecDeps {
  sessions: SessionRegistry;
  recordings: RecordingService;
  audit: AuditLog;
  clock: Clock;
  logger: Logger;
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

async function runExec(
  deps: ExecDeps,
  client: WebSocket,
  up: WebSocket,
  ctx: { decision: Allowed; info: KubeRequestInfo; command: string; tty: boolean },
): Promise<void> {
  const { decision, info } = ctx;
  const { principal, cluster } = decision;
  const remoteAddr = (client as unknown as { _socket?: { remoteAddress?: string } })._socket?.remoteAddress ?? '';
  const id = newId('session', deps.clock());
  const target = `${info.namespace ?? 'default'}/${info.name ?? ''}`;
  let recording: SessionRecording | undefined;
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
  try {
    recording = deps.recordings.begin(id, {
      width: 80,
      height: 24,
      title: `${decision.user}@${cluster.name}: ${target}${ctx.command ? ` ${ctx.command}` : ''}`.slice(0, 200),
      policy: decision.options.recordSession,
    });
  } catch (error) {
    // Strict recording with no room in the spool: the exec may not run unrecorded.
    sendError(client, `gatehouse: the session cannot be recorded (${(error as Error).message})`);
    endBoth(1000, 'not recorded');
    await deps.audit.record({
      type: 'session.rejected',
      actor: actorOfPrincipal(principal),
      target: { kind: 'kube_cluster', id: cluster.id, name: cluster.name },
      success: false,
      remote_addr: remoteAddr,
      data: { login: decision.user, reason: 'recording_unavailable' },
    });
    return;
  }

  let bytesIn = 0;
  let bytesOut = 0;
  let exitCode: number | undefined;
  let terminatedBy: string | undefined;
  let finished = false;
  const onRecord = (result: RecordResult) => {
    if (result === 'end_session') terminate('gatehouse: session ended at the recording limit (record_session: strict)');
  };

  function terminate(message: string): void {
    if (terminatedBy || finished) return;
    terminatedBy = message.replace(/^gatehouse: /, '');
    if (client.readyState === WebSocket.OPEN) {
      client.send(Buffer.concat([Buffer.from([STDERR]), Buffer.from(`\r\n${message}\r\n`)]));
      sendError(client, message);
    }
    endBoth(1000, 'terminated');
  }
  const ttl = decision.options.maxSessionTtlMs;
  const ttlTimer =
    ttl === undefined
      ? undefined
      : setTimeout(() => terminate('gatehouse: session ended: max_session_ttl reached'), ttl);
  ttlTimer?.unref();

  try {
    await deps.sessions.start(
      {
        kind: 'kube',
        type: 'exec',
        ...sessionPrincipal(principal),
        resource: { kind: 'kube_cluster', id: cluster.id, name: cluster.name },
        login: decision.user,
        command: `${target}: ${ctx.command}`.slice(0, 4096),
        remote_addr: remoteAddr,
        recorded: true,
      },
      () => ({ id, bytesIn: () => bytesIn, bytesOut: () => bytesOut, terminate }),
      id,
    );
  } catch (error) {
    deps.logger.error({ err: error }, 'kube: cannot record the session start');
    clearTimeout(ttlTimer);
    await recording.close();
    sendError(client, 'gatehouse: the session could not be started (the audit trail is unavailable)');
    endBoth(1000, 'not started');
    return;
  }
  const rec = recording;
  const recordInput = decision.options.recordInput;

  function fromClient(data: Buffer): void {
    const channel = data[0];
    if (channel === STDIN) {
      bytesIn += data.length - 1;
      if (recordInput) onRecord(rec.input(data.subarray(1)));
    } else if (channel === RESIZE) {
      try {
        const size = JSON.parse(data.subarray(1).toString()) as { Width?: number; Height?: number };
        if (size.Width && size.Height) onRecord(rec.resize(size.Width, size.Height));
      } catch {
        // a malformed resize is the API server's to refuse
      }
    }
    relay(client, up, data);
  }
  function fromUpstream(data: Buffer): void {
    const channel = data[0];
    if (channel === STDOUT || channel === STDERR) {
      bytesOut += data.length - 1;
      onRecord(rec.output(data.subarray(1)));
    } else if (channel === ERROR) {
      exitCode = exitCodeOf(data.subarray(1).toString()) ?? exitCode;
    }
    relay(up, client, data);
  }
  function upstreamClosed(code: number): void {
    // 1005 (no code) and 1006 (dropped) may not be sent in a close frame.
    if (client.readyState === WebSocket.OPEN) client.close(code === 1005 || code === 1006 ? 1000 : code);
    void finish();
  }
  function clientClosed(): void {
    if (up.readyState === WebSocket.OPEN || up.readyState === WebSocket.CONNECTING) up.close(1000);
    void finish();
  }
  const queued = held;
  held = undefined;
  for (const fn of queued) fn();

  async function finish(): Promise<void> {
    if (finished) return;
    finished = true;
    clearTimeout(ttlTimer);
    await rec.close().catch((err) => deps.logger.error({ err }, 'kube: cannot close a recording'));
    await deps.sessions
      .end(id, {
        bytesIn,
        bytesOut,
        ...(exitCode === undefined ? {} : { exitCode }),
        ...(terminatedBy === undefined ? {} : { reason: terminatedBy, terminated: true }),
      })
      .catch((err) => deps.logger.error({ err }, 'kube: cannot record the session end'));
  }
}

/** A Failure Status on the error channel: kubectl prints its message and exits non-zero. */
function sendError(client: WebSocket, message: string): void {
  if (client.readyState !== WebSocket.OPEN) return;
  const status = JSON.stringify({ metadata: {}, status: 'Failure', message, reason: 'Forbidden', code: 403 });
  client.send(Buffer.concat([Buffer.from([ERROR]), Buffer.from(status)]));
}
