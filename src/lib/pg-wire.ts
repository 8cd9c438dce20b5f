// The PostgreSQL wire protocol (v3) as Gatehouse needs it: the untyped startup packets, the few backend
// messages Gatehouse itself sends, and a frame reader for the startup exchange. In lib/ because both
// the PostgreSQL proxy and the client's local tunnel (cli/db-tunnel.ts) speak it; it holds no state.
// The proxy's pass-through phase uses proxy/db/frame-scanner.ts, which looks at message headers only. Client-side messages to the upstream
// are built by pg-protocol's serializer (node-postgres), not here.
import type { Socket } from 'node:net';

export const PROTOCOL_3 = 196608;
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;
/** Startup packets and messages exchanged before the session runs are small; refuse anything huge. */
export const MAX_STARTUP_MESSAGE = 64 * 1024;

export class ProtocolError extends Error {}

/** A backend or frontend message: its type byte and body (without the length). */
export interface Frame {
  type: number;
  body: Buffer;
}

function frame(type: string, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + body.length);
  out[0] = type.charCodeAt(0);
  out.writeInt32BE(body.length + 4, 1);
  body.copy(out, 5);
  return out;
}

const int32 = (...values: number[]) => {
  const b = Buffer.allocUnsafe(4 * values.length);
  values.forEach((v, i) => {
    b.writeInt32BE(v, 4 * i);
  });
  return b;
};

export const authenticationOk = (): Buffer => frame('R', int32(0));
export const authenticationCleartextPassword = (): Buffer => frame('R', int32(3));
export const backendKeyData = (pid: number, secret: number): Buffer => frame('K', int32(pid, secret));
export const readyForQuery = (status: 'I' | 'T' | 'E' = 'I'): Buffer => frame('Z', Buffer.from(status));

/**
 * An ErrorResponse psql prints as `FATAL:  <message>`. Codes: 28000 not authorized, 28P01 bad
 * password, 08P01 protocol violation, 08006 upstream unreachable, 57P01 terminated by an administrator.
 */
export function errorResponse(e: { severity?: 'FATAL' | 'ERROR'; code: string; message: string }): Buffer {
  const severity = e.severity ?? 'FATAL';
  const field = (t: string, v: string) => `${t}${v.replaceAll('\0', '')}\0`;
  return frame(
    'E',
    Buffer.from(`${field('S', severity)}${field('V', severity)}${field('C', e.code)}${field('M', e.message)}\0`),
  );
}

/** Key-value pairs of a StartupMessage body (after the protocol number). */
export function parseStartupParameters(body: Buffer): Record<string, string> {
  const parts = body.toString('utf8').split('\0');
  const params: Record<string, string> = {};
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const key = parts[i] as string;
    if (key === '') break;
    params[key] = parts[i + 1] as string;
  }
  return params;
}

/** The fields of an ErrorResponse or NoticeResponse body, by their one-letter codes. */
export function parseErrorFields(body: Buffer): Record<string, string> {
  const fields: Record<string, string> = {};
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const end = body.indexOf(0, at + 1);
    if (end < 0) break;
    fields[String.fromCharCode(body[at] as number)] = body.toString('utf8', at + 1, end);
    at = end + 1;
  }
  return fields;
}

/** A C string at `offset`: its text and where the next field starts. */
export function cString(body: Buffer, offset: number): { value: string; next: number } {
  const end = body.indexOf(0, offset);
  const stop = end < 0 ? body.length : end;
  return { value: body.toString('utf8', offset, stop), next: stop + 1 };
}

/**
 * Reads whole packets from a socket during the startup exchange, with no listener left behind:
 * `release()` hands back whatever arrived beyond the last packet read, for the pass-through to send.
 */
export class StartupReader {
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private failed: Error | undefined;
  private readonly onData = (chunk: Buffer) => {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    if (this.buffered.length > MAX_STARTUP_MESSAGE * 2) this.socket.pause();
    this.wake();
  };
  private readonly onEnd = () => {
    this.failed ??= new ProtocolError('the connection closed during startup');
    this.wake();
  };

  constructor(private socket: Socket) {
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('close', this.onEnd);
    socket.on('error', this.onEnd);
  }

  /** Bytes read from the socket some other way (its `onread`, which emits no 'data'); kept as given. */
  push(chunk: Buffer): void {
    this.onData(chunk);
  }

  /** Replaces the socket read from (after a TLS upgrade); nothing may be buffered then. */
  switchTo(socket: Socket): void {
    this.detach();
    this.socket = socket;
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('close', this.onEnd);
    socket.on('error', this.onEnd);
  }

  get pending(): number {
    return this.buffered.length;
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  private async need(n: number): Promise<void> {
    while (this.buffered.length < n) {
      if (this.failed) throw this.failed;
      this.socket.resume();
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }

  private take(n: number): Buffer {
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  /** A length-prefixed packet with no type byte (StartupMessage, SSLRequest, CancelRequest). */
  async readUntyped(): Promise<{ code: number; body: Buffer }> {
    await this.need(8);
    const length = this.buffered.readInt32BE(0);
    if (length < 8 || length > MAX_STARTUP_MESSAGE) throw new ProtocolError('invalid startup packet length');
    await this.need(length);
    const packet = this.take(length);
    return { code: packet.readInt32BE(4), body: packet.subarray(8) };
  }

  /** One byte: the server's answer to an SSLRequest (`S` or `N`). */
  async readByte(): Promise<number> {
    await this.need(1);
    return this.take(1)[0] as number;
  }

  /** A typed message (type byte, then length including itself). */
  async readMessage(): Promise<Frame> {
    await this.need(5);
    const length = this.buffered.readInt32BE(1);
    if (length < 4 || length > MAX_STARTUP_MESSAGE) throw new ProtocolError('invalid message length');
    await this.need(length + 1);
    const packet = this.take(length + 1);
    return { type: packet[0] as number, body: packet.subarray(5) };
  }

  private detach(): void {
    this.socket.off('data', this.onData);
    this.socket.off('end', this.onEnd);
    this.socket.off('close', this.onEnd);
    this.socket.off('error', this.onEnd);
  }

  /** Stops reading; returns bytes that arrived after the last packet (the client may pipeline). */
  release(): Buffer {
    this.detach();
    const rest = this.buffered;
    this.buffered = Buffer.alloc(0);
    return rest;
  }
}
