// Watches an sftp stream as it passes through, to record file transfers as metadata (path, bytes read
// and written), never their contents (sshportal logged whole files, #57). Only packet heads are kept:
// the parser skips each packet's body, so a 1 GiB upload costs no memory here. SFTP v3 framing
// (draft-ietf-secsh-filexfer-02): uint32 length, byte type, then the fields.

export interface FileTransfer {
  operation: 'open' | 'remove' | 'rename' | 'mkdir' | 'rmdir';
  path: string;
  /** For rename. */
  new_path?: string;
  bytes_read?: number;
  bytes_written?: number;
}

const FXP = {
  OPEN: 3,
  CLOSE: 4,
  READ: 5,
  WRITE: 6,
  REMOVE: 13,
  MKDIR: 14,
  RMDIR: 15,
  RENAME: 18,
  HANDLE: 102,
  DATA: 103,
} as const;

/** Heads up to this size are enough for every field we read (paths are capped at 2 KiB). */
const HEAD_MAX = 4096;
const TRACKED_MAX = 4096;

/** Reads the fields of one packet head; throws RangeError when the head is too short. */
class Fields {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}
  u32(): number {
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  bytes(): Buffer {
    const len = this.u32();
    if (this.pos + len > this.buf.length) throw new RangeError('short');
    const v = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return v;
  }
  /** A string's declared length, without needing its bytes (WRITE data, DATA payload). */
  length(): number {
    return this.u32();
  }
  text(): string {
    return this.bytes().toString('utf8').slice(0, 2048);
  }
}

/** Splits a byte stream into SFTP packets, keeping only each packet's head. */
function packetHeads(onPacket: (type: number, head: Buffer) => void) {
  let lengthBuf = Buffer.alloc(0);
  let remaining = 0; // bytes of the current packet not yet seen
  let head: Buffer[] = [];
  let headLen = 0;
  let wanted = 0;
  return (chunk: Buffer) => {
    let pos = 0;
    while (pos < chunk.length) {
      if (remaining === 0) {
        const need = 4 - lengthBuf.length;
        lengthBuf = Buffer.concat([lengthBuf, chunk.subarray(pos, pos + need)]);
        pos += Math.min(need, chunk.length - pos);
        if (lengthBuf.length < 4) return;
        remaining = lengthBuf.readUInt32BE(0);
        lengthBuf = Buffer.alloc(0);
        wanted = Math.min(remaining, HEAD_MAX);
        head = [];
        headLen = 0;
        if (remaining === 0) continue;
      }
      const take = Math.min(remaining, chunk.length - pos);
      if (headLen < wanted) {
        const part = chunk.subarray(pos, pos + Math.min(take, wanted - headLen));
        head.push(part);
        headLen += part.length;
      }
      pos += take;
      remaining -= take;
      if (head.length > 0 && headLen === wanted) {
        // The head is complete: hand it on now; the rest of the body is only counted down.
        const whole = head.length === 1 ? (head[0] as Buffer) : Buffer.concat(head);
        head = [];
        onPacket(whole[0] as number, whole.subarray(1));
      }
    }
  };
}

export function watchSftp(onTransfer: (t: FileTransfer) => void) {
  const pendingOpens = new Map<number, string>(); // request id → path
  const pendingReads = new Map<number, string>(); // request id → handle
  const files = new Map<string, { path: string; read: number; written: number }>(); // handle → file
  const bounded = <K, V>(map: Map<K, V>, key: K, value: V) => {
    if (map.size >= TRACKED_MAX) return; // a misbehaving client cannot grow our memory
    map.set(key, value);
  };

  const safe = (fn: () => void) => {
    try {
      fn();
    } catch {
      // A head we cannot read is not ours to judge; the target answers the client.
    }
  };

  const fromClient = packetHeads((type, head) =>
    safe(() => {
      const f = new Fields(head);
      const id = f.u32();
      switch (type) {
        case FXP.OPEN:
          bounded(pendingOpens, id, f.text());
          break;
        case FXP.READ:
          bounded(pendingReads, id, f.bytes().toString('hex'));
          break;
        case FXP.WRITE: {
          const file = files.get(f.bytes().toString('hex'));
          f.u32();
          f.u32(); // offset (uint64)
          if (file) file.written += f.length();
          break;
        }
        case FXP.CLOSE: {
          const handle = f.bytes().toString('hex');
          const file = files.get(handle);
          if (!file) break;
          files.delete(handle);
          onTransfer({ operation: 'open', path: file.path, bytes_read: file.read, bytes_written: file.written });
          break;
        }
        case FXP.REMOVE:
          onTransfer({ operation: 'remove', path: f.text() });
          break;
        case FXP.MKDIR:
          onTransfer({ operation: 'mkdir', path: f.text() });
          break;
        case FXP.RMDIR:
          onTransfer({ operation: 'rmdir', path: f.text() });
          break;
        case FXP.RENAME: {
          const path = f.text();
          onTransfer({ operation: 'rename', path, new_path: f.text() });
          break;
        }
      }
    }),
  );

  const fromServer = packetHeads((type, head) =>
    safe(() => {
      const f = new Fields(head);
      const id = f.u32();
      if (type === FXP.HANDLE) {
        const path = pendingOpens.get(id);
        pendingOpens.delete(id);
        if (path !== undefined) bounded(files, f.bytes().toString('hex'), { path, read: 0, written: 0 });
      } else if (type === FXP.DATA) {
        const handle = pendingReads.get(id);
        pendingReads.delete(id);
        const file = handle === undefined ? undefined : files.get(handle);
        if (file) file.read += f.length();
      } else {
        pendingOpens.delete(id);
        pendingReads.delete(id);
      }
    }),
  );

  return {
    fromClient,
    fromServer,
    /** Files still open when the session ends are reported with what moved so far. */
    close() {
      for (const file of files.values()) {
        onTransfer({ operation: 'open', path: file.path, bytes_read: file.read, bytes_written: file.written });
      }
      files.clear();
    },
  };
}
