// asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/): a JSON header line, then one
// `[seconds, code, data]` line per event — "o" output, "i" input, "r" resize ("COLSxROWS"), "m" marker.
// The encoder turns terminal bytes into lines with monotonic timing; the parser checks a cast line by
// line; toPlainText/createPlainTextRenderer turn output into text without escape sequences.
import { StringDecoder } from 'node:string_decoder';

export interface AsciicastHeader {
  version: 2;
  width: number;
  height: number;
  /** Unix time (seconds) the recording started. */
  timestamp?: number;
  title?: string;
  env?: Record<string, string>;
  [extra: string]: unknown;
}

export type EventCode = 'o' | 'i' | 'r' | 'm';
export type AsciicastEvent = [time: number, code: EventCode, data: string];

/** Marker labels Gatehouse writes; readers recognise them by prefix. */
export const MARKER_PREFIX = 'gatehouse: ';
export const TRUNCATED_MARKER = `${MARKER_PREFIX}recording truncated`;
export const INTERRUPTED_MARKER = `${MARKER_PREFIX}recording interrupted`;
export const SESSION_ENDED_MARKER = `${MARKER_PREFIX}session ended at the recording limit`;

export class AsciicastParseError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`asciicast line ${line}: ${message}`);
    this.name = 'AsciicastParseError';
  }
}

const CODES = new Set(['o', 'i', 'r', 'm']);
const MAX_TITLE = 256;
const MAX_ENV_VALUE = 256;

/** Time in seconds with microsecond precision (what asciinema writes). */
const seconds = (ms: number): number => Math.round(ms * 1000) / 1e6;

export interface EncoderOptions {
  width: number;
  height: number;
  /** Wall-clock start (ms since epoch), for the header's timestamp. */
  startedAt: number;
  title?: string;
  /** Only TERM and SHELL by convention; values are capped so a header stays small. */
  env?: Record<string, string>;
  /** A monotonic clock in ms (default performance.now): event times never go backwards. */
  now?: () => number;
}

export type AsciicastEncoder = ReturnType<typeof createAsciicastEncoder>;

/**
 * Encodes a session as asciicast lines (each ends in "\n"). Terminal bytes are decoded as UTF-8 with a
 * decoder per direction, so a character split across two chunks is not mangled.
 */
export function createAsciicastEncoder(opts: EncoderOptions) {
  const now = opts.now ?? (() => performance.now());
  const origin = now();
  let last = 0;
  const decoders = { o: new StringDecoder('utf8'), i: new StringDecoder('utf8') };

  function time(): number {
    const t = seconds(Math.max(0, now() - origin));
    if (t > last) last = t;
    return last;
  }
  const line = (code: EventCode, data: string): string => `${JSON.stringify([time(), code, data])}\n`;
  const bytes = (code: 'o' | 'i', data: Buffer | string): string => {
    const text = typeof data === 'string' ? data : decoders[code].write(data);
    return text === '' ? '' : line(code, text);
  };

  return {
    header(): string {
      const header: AsciicastHeader = {
        version: 2,
        width: positive(opts.width, 80),
        height: positive(opts.height, 24),
        timestamp: Math.floor(opts.startedAt / 1000),
      };
      if (opts.title) header.title = opts.title.slice(0, MAX_TITLE);
      if (opts.env) {
        header.env = Object.fromEntries(
          Object.entries(opts.env)
            .slice(0, 8)
            .map(([k, v]) => [k.slice(0, 64), v.slice(0, MAX_ENV_VALUE)]),
        );
      }
      return `${JSON.stringify(header)}\n`;
    },
    output: (data: Buffer | string): string => bytes('o', data),
    input: (data: Buffer | string): string => bytes('i', data),
    resize: (cols: number, rows: number): string => line('r', `${positive(cols, 80)}x${positive(rows, 24)}`),
    marker: (label: string): string => line('m', label),
    /** Bytes held back by the decoders (an incomplete character at the very end), as lines. */
    flush(): string {
      const o = decoders.o.end();
      const i = decoders.i.end();
      return (o ? line('o', o) : '') + (i ? line('i', i) : '');
    },
    /** The time of the last event, in seconds. */
    get lastTime(): number {
      return last;
    },
  };
}

const positive = (n: number, fallback: number): number => (Number.isInteger(n) && n > 0 && n < 10_000 ? n : fallback);

/** Parses the header line; throws AsciicastParseError. */
export function parseHeader(text: string): AsciicastHeader {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AsciicastParseError(1, 'the header is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new AsciicastParseError(1, 'the header is not an object');
  const h = value as Record<string, unknown>;
  if (h.version !== 2) throw new AsciicastParseError(1, 'version must be 2');
  for (const k of ['width', 'height'] as const) {
    if (!Number.isInteger(h[k]) || (h[k] as number) <= 0) throw new AsciicastParseError(1, `${k} must be > 0`);
  }
  return h as AsciicastHeader;
}

/** Parses one event line (lineNo for messages); `after` is the previous event's time. */
export function parseEvent(text: string, lineNo: number, after = 0): AsciicastEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AsciicastParseError(lineNo, 'not JSON');
  }
  if (!Array.isArray(value) || value.length !== 3) throw new AsciicastParseError(lineNo, 'not a [time, code, data]');
  const [t, code, data] = value as unknown[];
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) throw new AsciicastParseError(lineNo, 'bad time');
  if (t < after) throw new AsciicastParseError(lineNo, 'time goes backwards');
  if (typeof code !== 'string' || !CODES.has(code)) throw new AsciicastParseError(lineNo, 'unknown event code');
  if (typeof data !== 'string') throw new AsciicastParseError(lineNo, 'data is not a string');
  if (code === 'r' && !/^\d+x\d+$/.test(data)) throw new AsciicastParseError(lineNo, 'resize is not COLSxROWS');
  return [t, code as EventCode, data];
}

export interface ParsedCast {
  header: AsciicastHeader;
  events: AsciicastEvent[];
  /** A Gatehouse truncation marker is present: data was dropped at a spool bound. */
  truncated: boolean;
  /** A Gatehouse interruption marker is present: the recording was closed off after a crash. */
  interrupted: boolean;
}

/** Parses a whole cast strictly: every line must be valid, times non-decreasing. */
export function parseAsciicast(text: string): ParsedCast {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const first = lines[0];
  if (first === undefined) throw new AsciicastParseError(1, 'empty');
  const header = parseHeader(first);
  const events: AsciicastEvent[] = [];
  let after = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    const event = parseEvent(line, i + 1, after);
    after = event[0];
    events.push(event);
  }
  const markers = events.filter((e) => e[1] === 'm').map((e) => e[2]);
  return {
    header,
    events,
    truncated: markers.some((m) => m.startsWith(TRUNCATED_MARKER) || m.startsWith(SESSION_ENDED_MARKER)),
    interrupted: markers.some((m) => m.startsWith(INTERRUPTED_MARKER)),
  };
}

// ---- plain text ----------------------------------------------------------------------------------

const ESC = '\x1b';

/**
 * Renders terminal output as plain text, chunk by chunk: escape sequences (CSI, OSC, DCS/SOS/PM/APC
 * strings, charset designations and other ESC pairs, 8-bit C1 forms) are dropped; a few that change
 * what a line shows are applied (CR, BS, erase in line, cursor left/right/column, delete chars), so a
 * shell's line editing comes out as the final line. Full-screen programs come out as text fragments.
 */
export function createPlainTextRenderer() {
  let line: string[] = [];
  let col = 0;
  let pending = ''; // an escape sequence not yet complete at the end of a chunk

  function put(ch: string): void {
    while (line.length < col) line.push(' ');
    line[col] = ch;
    col++;
  }
  function csi(params: string, final: string): void {
    const n = Number.parseInt(params, 10);
    const count = Number.isNaN(n) || n === 0 ? 1 : n;
    if (final === 'K') {
      const mode = Number.isNaN(n) ? 0 : n;
      if (mode === 0) line.length = Math.min(line.length, col);
      else if (mode === 1) for (let i = 0; i <= col && i < line.length; i++) line[i] = ' ';
      else line = [];
    } else if (final === 'D') col = Math.max(0, col - count);
    else if (final === 'C') col += count;
    else if (final === 'G') col = count - 1;
    else if (final === 'P') line.splice(col, count);
  }

  /** Length of the escape sequence at s[i] (s[i] is ESC or a C1), or -1 if it is incomplete. */
  function escapeLength(s: string, i: number): number {
    const c = s.charCodeAt(i);
    let kind: string;
    let start: number;
    if (c === 0x1b) {
      if (i + 1 >= s.length) return -1;
      kind = s[i + 1] as string;
      start = i + 2;
    } else {
      kind = String.fromCharCode(c - 0x40); // C1 0x9b → '[', 0x9d → ']', …
      start = i + 1;
    }
    if (kind === '[') {
      for (let j = start; j < s.length; j++) {
        const d = s.charCodeAt(j);
        if (d >= 0x40 && d <= 0x7e) {
          csi(s.slice(start, j).replace(/^[?>=!]/, ''), s[j] as string);
          return j + 1 - i;
        }
        if (d < 0x20 || d > 0x3f) return j - i; // malformed: drop what we have
      }
      return -1;
    }
    if (kind === ']' || kind === 'P' || kind === 'X' || kind === '^' || kind === '_') {
      for (let j = start; j < s.length; j++) {
        const d = s[j];
        if (d === '\x07' || d === '\x9c') return j + 1 - i;
        if (d === ESC) {
          if (j + 1 >= s.length) return -1;
          if (s[j + 1] === '\\') return j + 2 - i;
        }
      }
      return -1;
    }
    if ('()*+-./#%'.includes(kind)) return start < s.length ? start + 1 - i : -1; // ESC ( B and friends
    return start - i; // ESC 7, ESC =, ESC M, …
  }

  return {
    /** Feeds output; returns the lines completed by it (each ending in "\n"). */
    push(data: string): string {
      const s = pending + data;
      pending = '';
      let out = '';
      for (let i = 0; i < s.length; ) {
        const ch = s[i] as string;
        const code = s.charCodeAt(i);
        if (code === 0x1b || code === 0x9b || code === 0x9d || code === 0x90 || code === 0x9e || code === 0x9f) {
          const len = escapeLength(s, i);
          if (len < 0) {
            // Keep an unfinished sequence for the next chunk; of a very long one (an OSC string that
            // never ends) only its opening, so memory and rescanning stay bounded.
            pending = s.length - i > 4096 ? s.slice(i, i + (code === 0x1b ? 2 : 1)) : s.slice(i);
            break;
          }
          i += len;
          continue;
        }
        i++;
        if (ch === '\n') {
          out += `${line.join('').trimEnd()}\n`;
          line = [];
          col = 0;
        } else if (ch === '\r') col = 0;
        else if (ch === '\b') col = Math.max(0, col - 1);
        else if (ch === '\t') put('\t');
        else if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) {
          // other controls (BEL, SI/SO, …) show nothing
        } else put(ch);
      }
      return out;
    },
    /** The last, unterminated line, if any. */
    end(): string {
      const rest = line.join('').trimEnd();
      line = [];
      col = 0;
      pending = '';
      return rest === '' ? '' : `${rest}\n`;
    },
  };
}

/** A Gatehouse marker as a visible line of the text rendering. */
const markerText = (label: string): string | undefined =>
  label.startsWith(MARKER_PREFIX) ? `[${label}]\n` : undefined;

/** The text of a cast's output events, without escape sequences (see createPlainTextRenderer). */
export function toPlainText(cast: string | ParsedCast): string {
  const parsed = typeof cast === 'string' ? parseAsciicast(cast) : cast;
  const renderer = createPlainTextRenderer();
  let out = '';
  for (const [, code, data] of parsed.events) {
    if (code === 'o') out += renderer.push(data);
    else if (code === 'm') {
      const text = markerText(data);
      if (text) out += renderer.end() + text;
    }
  }
  return out + renderer.end();
}

/**
 * Streams a cast's text: reads cast lines from `source` (text chunks) and yields plain text. Lines
 * that do not parse are skipped rather than failing a download half-way.
 */
export async function* plainTextFromCast(source: AsyncIterable<string | Buffer>): AsyncGenerator<string> {
  const renderer = createPlainTextRenderer();
  const decoder = new StringDecoder('utf8');
  let buffered = '';
  let lineNo = 0;
  for await (const chunk of source) {
    buffered += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    let out = '';
    for (const text of lines) out += renderLine(text, ++lineNo);
    if (out) yield out;
  }
  const tail = renderLine(buffered + decoder.end(), ++lineNo) + renderer.end();
  if (tail) yield tail;

  function renderLine(text: string, n: number): string {
    if (n === 1 || text.trim() === '') return '';
    let event: AsciicastEvent;
    try {
      event = parseEvent(text, n);
    } catch {
      return '';
    }
    if (event[1] === 'o') return renderer.push(event[2]);
    const marker = event[1] === 'm' ? markerText(event[2]) : undefined;
    return marker ? renderer.end() + marker : '';
  }
}
