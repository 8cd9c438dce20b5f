// Follows a live session's recording for a viewer: first what was recorded before it joined (read
// from the spool file), then every line as the proxy records it, until the session ends. Read-only:
// it never touches the session. A viewer that falls too far behind is cut off rather than letting
// its queue grow without bound.
import { open } from 'node:fs/promises';
import type { Spool } from './spool.js';

/** Lines queued for one slow viewer before it is dropped (the session goes on regardless). */
export const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

export type LiveEnd = 'ended' | 'overflow' | 'stopped';

export interface LiveTail {
  /** The asciicast as it grows: the header line first, one cast line per item, then done. */
  lines: AsyncIterable<string>;
  /** Why the iteration ended (set when it has). */
  readonly end: LiveEnd | undefined;
  stop(): void;
}

/** Reads the first `bytes` bytes of the recording, once the write stream has flushed them. */
async function readBefore(partPath: string, castPath: string, bytes: number): Promise<string> {
  // The file is renamed from .part to .cast when the session ends; an open handle survives that.
  const handle = await open(partPath, 'r').catch(() => open(castPath, 'r'));
  try {
    for (let waited = 0; (await handle.stat()).size < bytes && waited < 5000; waited += 20) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

export function openLiveTail(spool: Pick<Spool, 'watch'>, sessionId: string): LiveTail | undefined {
  const queue: string[] = [];
  let queued = 0;
  let end: LiveEnd | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const start = spool.watch(sessionId, {
    line(line) {
      if (end) return;
      queued += line.length;
      if (queued > MAX_QUEUED_BYTES) {
        finish('overflow');
        return;
      }
      queue.push(line);
      notify();
    },
    end() {
      finish('ended');
    },
  });
  if (!start) return undefined;
  function finish(why: LiveEnd) {
    end ??= why;
    start?.stop();
    notify();
  }

  async function* lines(): AsyncGenerator<string> {
    try {
      const before = await readBefore(start?.partPath ?? '', start?.castPath ?? '', start?.bytes ?? 0);
      for (const line of before.split('\n')) if (line) yield line;
      for (;;) {
        while (queue.length > 0) {
          const chunk = queue.shift() as string;
          queued -= chunk.length;
          for (const line of chunk.split('\n')) if (line) yield line;
        }
        if (end) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    } finally {
      finish('stopped');
    }
  }

  return {
    lines: lines(),
    get end() {
      return end;
    },
    stop: () => finish('stopped'),
  };
}
