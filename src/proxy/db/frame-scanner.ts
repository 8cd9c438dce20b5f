// Finds message boundaries in a PostgreSQL byte stream without copying it: the proxy forwards each
// chunk as it came and only looks inside the few messages auditing needs (queries, completions,
// errors). A body is collected only up to `want(type)` bytes, so a 1 GB COPY row or a huge query
// costs no memory here; the callback gets the collected head and the body's full length.

export type MessageCallback = (type: number, head: Buffer, length: number) => void;

export class FrameScanner {
  private header = Buffer.alloc(5);
  private headerFill = 0;
  private type = 0;
  private remaining = 0;
  private bodyLength = 0;
  private wanted = 0;
  private inspected = false;
  private parts: Buffer[] = [];
  private collected = 0;
  /**
   * Where the message just reported lies in the chunk being scanned: its first byte (-1 when it
   * began in an earlier chunk) and the byte after its last. Valid inside the callback only.
   */
  messageStart = -1;
  messageEnd = 0;

  /**
   * @param want how many bytes of a message's body to collect for the callback (0: skip it unseen)
   * @param onMessage called once per message whose `want` was above 0, when its body has passed
   */
  constructor(
    private readonly want: (type: number) => number,
    private readonly onMessage: MessageCallback,
  ) {}

  /** Whether the bytes seen so far end exactly between two messages (safe to inject one). */
  get atBoundary(): boolean {
    return this.headerFill === 0 && this.remaining === 0;
  }

  scan(chunk: Buffer): void {
    let at = 0;
    const end = chunk.length;
    this.messageStart = -1;
    while (at < end) {
      if (this.remaining === 0) {
        if (this.headerFill === 0) this.messageStart = at;
        // Reading a header (possibly split across chunks).
        if (this.headerFill === 0 && end - at >= 5) {
          this.type = chunk[at] as number;
          this.bodyLength = chunk.readInt32BE(at + 1) - 4;
          at += 5;
        } else {
          const n = Math.min(5 - this.headerFill, end - at);
          chunk.copy(this.header, this.headerFill, at, at + n);
          this.headerFill += n;
          at += n;
          if (this.headerFill < 5) return;
          this.headerFill = 0;
          this.type = this.header[0] as number;
          this.bodyLength = this.header.readInt32BE(1) - 4;
        }
        if (this.bodyLength < 0) throw new RangeError('invalid PostgreSQL message length');
        const want = this.want(this.type);
        this.inspected = want > 0;
        this.wanted = Math.min(want, this.bodyLength);
        if (end - at >= this.bodyLength) {
          // The whole body is in this chunk (nearly always, for small messages): a view of its head
          // goes to the callback, with none of the bookkeeping a split message needs. The view is
          // valid during the call only: the callback copies what it keeps.
          const bodyStart = at;
          at += this.bodyLength;
          this.messageEnd = at;
          if (this.inspected)
            this.onMessage(this.type, chunk.subarray(bodyStart, bodyStart + this.wanted), this.bodyLength);
          continue;
        }
        this.remaining = this.bodyLength;
        this.collected = 0;
        if (this.parts.length > 0) this.parts = [];
      }
      const n = Math.min(this.remaining, end - at);
      if (this.collected < this.wanted) {
        const take = Math.min(n, this.wanted - this.collected);
        // Copied: the chunk may be a reused read buffer (reused-reads.ts) that the next read overwrites.
        this.parts.push(Buffer.from(chunk.subarray(at, at + take)));
        this.collected += take;
      }
      at += n;
      this.remaining -= n;
      if (this.remaining === 0) {
        this.messageEnd = at;
        this.finish();
      }
    }
  }

  private finish(): void {
    if (!this.inspected) return;
    const head = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    this.parts = [];
    this.onMessage(this.type, head, this.bodyLength);
  }
}
