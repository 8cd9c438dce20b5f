// Closing off a spool file that its writer could not finish (a crash, a write error): keep the longest
// prefix that parses as asciicast (a torn last line is cut), then append a marker saying the recording
// was interrupted, so the file plays and says what happened. Also reads a closed file's final marker.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import {
  type AsciicastHeader,
  INTERRUPTED_MARKER,
  parseEvent,
  parseHeader,
  SESSION_ENDED_MARKER,
  TRUNCATED_MARKER,
} from './asciicast.js';

interface ValidPrefix {
  header?: AsciicastHeader;
  /** Bytes of complete, valid lines from the start of the file. */
  bytes: number;
  lastTime: number;
  /** The last valid event, if it is a marker. */
  lastMarker?: string;
}

/** Scans a cast file line by line and returns where its valid part ends. */
export async function validPrefix(path: string): Promise<ValidPrefix> {
  const result: ValidPrefix = { bytes: 0, lastTime: 0 };
  let carry = Buffer.alloc(0);
  let lineNo = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    let data = carry.length ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    for (;;) {
      const nl = data.indexOf(0x0a);
      if (nl < 0) break;
      lineNo++;
      if (!acceptLine(data.subarray(0, nl).toString('utf8'), lineNo, result)) return result;
      result.bytes += nl + 1;
      data = data.subarray(nl + 1);
    }
    carry = Buffer.from(data);
  }
  return result; // an unterminated last line is not part of the valid prefix
}

function acceptLine(text: string, lineNo: number, into: ValidPrefix): boolean {
  try {
    if (lineNo === 1) {
      into.header = parseHeader(text);
      return true;
    }
    const [time, code, data] = parseEvent(text, lineNo, into.lastTime);
    into.lastTime = time;
    if (code === 'm') into.lastMarker = data;
    else delete into.lastMarker;
    return true;
  } catch {
    return false;
  }
}

const FALLBACK_HEADER = `${JSON.stringify({ version: 2, width: 80, height: 24 })}\n`;

/**
 * Makes the file at path a valid cast ending in an interruption marker. Returns what it kept. The file
 * is truncated to its valid prefix (or replaced by a bare header if even that is torn) and fsynced.
 */
export async function closeOffCast(path: string, why: string): Promise<{ keptBytes: number; truncated: boolean }> {
  const prefix = await validPrefix(path);
  const handle = await open(path, 'r+');
  try {
    let end = prefix.bytes;
    if (!prefix.header) {
      await handle.truncate(0);
      await handle.write(FALLBACK_HEADER, 0, 'utf8');
      end = Buffer.byteLength(FALLBACK_HEADER);
    } else await handle.truncate(end);
    const marker = `${JSON.stringify([prefix.lastTime, 'm', `${INTERRUPTED_MARKER} (${why})`])}\n`;
    await handle.write(marker, end, 'utf8');
    await handle.sync();
    const truncated =
      prefix.lastMarker?.startsWith(TRUNCATED_MARKER) === true ||
      prefix.lastMarker?.startsWith(SESSION_ENDED_MARKER) === true;
    return { keptBytes: prefix.bytes, truncated };
  } finally {
    await handle.close();
  }
}

/** Reads the last line of a closed cast and tells whether it is a Gatehouse truncation marker. */
export async function endsTruncated(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, 1024);
    const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
    const lines = buffer.toString('utf8').trimEnd().split('\n');
    const last = lines[lines.length - 1] ?? '';
    // An interruption marker may follow the truncation marker: look at the last two lines.
    return [last, lines[lines.length - 2] ?? ''].some(
      (l) => l.includes(`"m","${TRUNCATED_MARKER}`) || l.includes(`"m","${SESSION_ENDED_MARKER}`),
    );
  } finally {
    await handle.close();
  }
}
