// pods/{name}/portforward as the kubelet serves it (pkg/kubelet/cri/streaming/portforward): for each
// forwarded connection kubectl opens an error stream and a data stream carrying the headers
// streamType, port and requestID; once both of a requestID are there, the data stream is joined to
// a TCP connection to that port of the "pod" (here 127.0.0.1, the pod's own loopback in a real
// cluster). A failure is written to the error stream as the kubelet words it; either side ending
// ends both, as the CRI runtimes' copy loops do.
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { type SpdyStream, serveSpdy } from './fake-kube-apiserver-spdy.js';

export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
/** The WebSocket subprotocol kubectl ≥ 1.31 asks for to tunnel SPDY (KEP-4006). */
export const TUNNELED_PORT_FORWARD_PROTOCOL = `SPDY/3.1+${PORT_FORWARD_PROTOCOL}`;

export interface ForwardedConnection {
  pod: string;
  port: number;
  user: string;
  /** How kubectl reached the API server: SPDY (≤ 1.30) or SPDY tunnelled in a WebSocket (≥ 1.31). */
  transport: 'spdy' | 'websocket';
  /** Bytes carried each way once the connection ended (undefined while it runs). */
  bytesToPod?: number;
  bytesFromPod?: number;
}

export function servePortForward(
  wire: Duplex,
  who: Pick<ForwardedConnection, 'pod' | 'user' | 'transport'>,
  forwarded: ForwardedConnection[],
): void {
  const pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream }>();
  serveSpdy(wire, (stream) => {
    const type = stream.headers.streamtype;
    const requestId = stream.headers.requestid;
    if ((type !== 'error' && type !== 'data') || !requestId || !/^\d+$/.test(stream.headers.port ?? '')) {
      stream.destroy();
      return;
    }
    const pair = pairs.get(requestId) ?? {};
    pair[type] = stream;
    pairs.set(requestId, pair);
    if (pair.error && pair.data) {
      pairs.delete(requestId);
      forward(pair.error, pair.data, Number(stream.headers.port));
    }
  });

  function forward(errorStream: SpdyStream, data: SpdyStream, port: number): void {
    const record: ForwardedConnection = { ...who, port };
    forwarded.push(record);
    // kubectl half-closes the error stream at once and only reads it.
    errorStream.resume();
    let toPod = 0;
    let fromPod = 0;
    const conn = connect(port, '127.0.0.1');
    let ended = false;
    const end = (failure?: string) => {
      if (ended) return;
      ended = true;
      Object.assign(record, { bytesToPod: toPod, bytesFromPod: fromPod });
      if (failure) errorStream.write(failure);
      errorStream.end();
      data.end();
      conn.destroy();
    };
    conn.on('error', (err) =>
      end(
        `error forwarding port ${port} to pod ${who.pod}, uid : failed to connect to localhost:${port}: ${err.message}`,
      ),
    );
    conn.on('connect', () => {
      data.on('data', (chunk: Buffer) => {
        toPod += chunk.length;
        if (!conn.write(chunk)) data.pause();
      });
      conn.on('drain', () => data.resume());
      conn.on('data', (chunk: Buffer) => {
        fromPod += chunk.length;
        if (!data.write(chunk)) conn.pause();
      });
      data.on('drain', () => conn.resume());
      data.on('end', () => end());
      conn.on('end', () => end());
    });
    data.on('close', () => end());
  }
}
