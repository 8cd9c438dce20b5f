// The server side of a SPDY/3.1 connection as the kubelet runs it for kubectl (moby/spdystream under
// k8s.io/apimachinery's httpstream/spdy): the client opens streams with SYN_STREAM, each is answered
// with an empty SYN_REPLY at once, DATA frames carry bytes and FIN half-closes, PINGs are echoed.
// Like spdystream it keeps no flow-control windows (it neither sends nor honours WINDOW_UPDATE), so
// a transfer never waits on one. Header blocks share one zlib context per direction, with the
// SPDY/3 dictionary. npm's spdy-transport enforces SPDY windows that kubectl never refills, hence this.
import { Duplex } from 'node:stream';
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { SPDY3_DICTIONARY } from './fake-kube-apiserver-spdy-dictionary.js';

const VERSION = 3;
const SYN_STREAM = 1;
const SYN_REPLY = 2;
const RST_STREAM = 3;
const PING = 6;
const GOAWAY = 7;
const HEADERS = 8;
const FLAG_FIN = 1;

export interface SpdyStream extends Duplex {
  id: number;
  /** Header names as on the wire (lower case); a value of several is joined with NUL. */
  headers: Record<string, string>;
}

/** Writes to a zlib stream and returns what one sync flush produced (one header block's worth). */
function flushThrough(z: Deflate | Inflate, input: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    z.write(input);
    z.flush(constants.Z_SYNC_FLUSH, () => resolve((z.read() as Buffer | null) ?? Buffer.alloc(0)));
  });
}

function parseHeaderBlock(block: Buffer): Record<string, string> {
  const headers: Record<string, string> = {};
  let at = 4;
  const count = block.readUInt32BE(0);
  const next = () => {
    const len = block.readUInt32BE(at);
    const s = block.toString('latin1', at + 4, at + 4 + len);
    at += 4 + len;
    return s;
  };
  for (let i = 0; i < count; i++) {
    const name = next();
    headers[name] = next();
  }
  return headers;
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE((0x8000 | VERSION) * 0x10000 + type);
  head.writeUInt32BE(flags * 0x1000000 + payload.length, 4);
  return Buffer.concat([head, payload]);
}

function dataFrame(id: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(id);
  head.writeUInt32BE(flags * 0x1000000 + payload.length, 4);
  return Buffer.concat([head, payload]);
}

/** Serves SPDY on `wire` (the upgraded socket, or a WebSocket tunnel's byte stream) until it closes. */
export function serveSpdy(wire: Duplex, onStream: (stream: SpdyStream) => void): void {
  const inflater = createInflate({ dictionary: SPDY3_DICTIONARY });
  const deflater = createDeflate({ dictionary: SPDY3_DICTIONARY });
  const streams = new Map<number, SpdyStream>();
  // Frames leave in the order they were queued: a SYN_REPLY waits for its compression, and the
  // stream's DATA queued behind it must not overtake it.
  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        wire.off('drain', done);
        wire.off('close', done);
        resolve();
      };
      wire.on('drain', done);
      wire.on('close', done);
    });
  let outgoing = Promise.resolve();
  const send = (frame: () => Buffer | Promise<Buffer>): Promise<void> => {
    outgoing = outgoing.then(async () => {
      const bytes = await frame();
      if (wire.writable && !wire.write(bytes)) await drained();
    });
    return outgoing;
  };

  function openStream(id: number, headers: Record<string, string>): SpdyStream {
    const stream = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, done) {
        send(() => dataFrame(id, 0, chunk)).then(() => done(), done);
      },
      final(done) {
        send(() => dataFrame(id, FLAG_FIN, Buffer.alloc(0))).then(() => done(), done);
      },
    }) as SpdyStream;
    stream.id = id;
    stream.headers = headers;
    stream.on('close', () => streams.delete(id));
    streams.set(id, stream);
    return stream;
  }

  async function onFrame(frame: Buffer): Promise<void> {
    const first = frame.readUInt32BE(0);
    const flags = frame[4] as number;
    const payload = frame.subarray(8);
    if (first < 0x80000000) {
      const stream = streams.get(first & 0x7fffffff);
      if (!stream) return;
      if (payload.length) stream.push(payload);
      if (flags & FLAG_FIN) stream.push(null);
      return;
    }
    const type = first & 0xffff;
    if (type === SYN_STREAM) {
      const id = payload.readUInt32BE(0) & 0x7fffffff;
      const headers = parseHeaderBlock(await flushThrough(inflater, payload.subarray(10)));
      const stream = openStream(id, headers);
      const reply = Buffer.alloc(4);
      reply.writeUInt32BE(id);
      const emptyBlock = Buffer.alloc(4);
      send(async () => controlFrame(SYN_REPLY, 0, Buffer.concat([reply, await flushThrough(deflater, emptyBlock)])));
      if (flags & FLAG_FIN) stream.push(null);
      onStream(stream);
    } else if (type === SYN_REPLY || type === HEADERS) {
      // Never sent by kubectl to a server, but their blocks advance the shared zlib context.
      await flushThrough(inflater, payload.subarray(4));
    } else if (type === RST_STREAM) {
      streams.get(payload.readUInt32BE(0) & 0x7fffffff)?.destroy();
    } else if (type === PING) {
      send(() => frame);
    } else if (type === GOAWAY) {
      wire.end();
    }
    // SETTINGS and WINDOW_UPDATE: spdystream ignores them, and so does this.
  }

  let buffered: Buffer = Buffer.alloc(0);
  let busy = false;
  async function drain(): Promise<void> {
    if (busy) return;
    busy = true;
    while (buffered.length >= 8) {
      const length = 8 + (buffered.readUInt32BE(4) & 0xffffff);
      if (buffered.length < length) break;
      const frame = buffered.subarray(0, length);
      buffered = buffered.subarray(length);
      await onFrame(frame);
    }
    busy = false;
  }
  wire.on('data', (chunk: Buffer) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    drain().catch(() => wire.destroy());
  });
  wire.on('error', () => wire.destroy());
  wire.on('close', () => {
    for (const stream of streams.values()) stream.destroy();
    inflater.close();
    deflater.close();
  });
}
