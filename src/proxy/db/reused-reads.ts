// Reads from the database into one buffer used again and again (net's `onread`) instead of Node's
// stream path, which allocates 64 KiB and emits a 'data' event per read: measured on this 2-core VM,
// a read and a write cost ~6 µs of user CPU this way against ~10 µs, and every statement reads the
// database once. A chunk handed on is a view into that buffer, valid during the call only; whoever
// keeps it longer (a client write that did not go out at once) calls hold(), and the next read goes
// to a new buffer. Plain TCP only: a TLS socket reads through its own machinery.

import type { Writable } from 'node:stream';

const READ_SIZE = 64 * 1024;

export class ReusedReads {
  private buffer = Buffer.allocUnsafe(READ_SIZE);
  private held = false;
  private sink: ((chunk: Buffer) => void) | undefined;
  /** Read before anyone took them (copies): between the startup and the session. */
  private queued: Buffer[] = [];

  /** For net.connect({ onread }). */
  readonly onread = {
    buffer: (): Buffer => {
      if (this.held) {
        this.buffer = Buffer.allocUnsafe(READ_SIZE);
        this.held = false;
      }
      return this.buffer;
    },
    callback: (n: number, buffer: Uint8Array): boolean => {
      const chunk = Buffer.from(buffer.buffer, buffer.byteOffset, n);
      if (this.sink) this.sink(chunk);
      else this.queued.push(Buffer.from(chunk));
      return true; // pausing is the socket's pause(), as with streams
    },
  };

  /** Where chunks go from now on, those that arrived with no one to take them first. */
  sendTo(sink: ((chunk: Buffer) => void) | undefined): void {
    this.sink = sink;
    if (!sink) return;
    for (const chunk of this.queued.splice(0)) sink(chunk);
  }

  /** The chunk just handed on is still referenced: the next read must not overwrite it. */
  hold(): void {
    this.held = true;
  }

  /**
   * Writes a chunk handed on by these reads. A write that does not go out at once leaves the chunk
   * queued as it is (libuv does not copy it), so the buffer is then left to it.
   */
  write(socket: Writable, chunk: Buffer): boolean {
    const flowing = socket.write(chunk);
    if (socket.writableLength > 0) this.hold();
    return flowing;
  }
}
