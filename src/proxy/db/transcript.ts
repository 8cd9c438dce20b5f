// A database session's recording: a readable transcript, written as asciicast "o" events so the
// recording pipeline, the player, `?format=text` and the recordings' text search take it as they take
// a terminal. Per statement, `=> <text>` then `<- <tags> (<columns>; <rows>; <duration>)` or the
// error; bind parameters only when the role records them. Row contents never reach it: the tracker
// sees message heads only.
//
// Lines gather per session and reach the spool when the query log flushes its batch of events (every
// few ms), so a busy session costs one cast line per batch, not one per statement.
import type { RecordResult, SessionRecording } from '../../recordings/spool.js';
import type { StatementOutcome } from './statement-tracker.js';

const CONTINUATION = '\r\n   ';

// C0 and C1 controls but tab and newline: a statement's text must not drive the viewer's terminal.
const isControl = (c: number) => (c < 0x20 && c !== 0x09 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f);

/** The statement's text as transcript lines: controls made visible, continuation lines indented. */
function shown(text: string): string {
  let t = text;
  let i = 0;
  while (i < t.length && !isControl(t.charCodeAt(i))) i++;
  if (i < t.length) {
    let out = '';
    for (const ch of t.replace(/\r\n?/g, '\n')) {
      const c = ch.charCodeAt(0);
      out += isControl(c) ? `\\x${c.toString(16).padStart(2, '0')}` : ch;
    }
    t = out;
  }
  return t.includes('\n') ? t.replaceAll('\n', CONTINUATION) : t;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** One statement as transcript text (lines end in CR LF, as a terminal expects). */
export function transcriptOf(s: StatementOutcome): string {
  let out = `=> ${shown(s.text)}${s.truncated ? ' …(cut)' : ''}\r\n`;
  if (s.parameters) {
    out += `   parameters: ${shown(JSON.stringify(s.parameters))}${s.parametersTruncated ? ' …(cut)' : ''}\r\n`;
  }
  const ms = `${Math.round(s.durationMs * 1000) / 1000} ms`;
  if (s.skipped) return `${out}<- skipped: not run, an earlier message of its batch failed\r\n`;
  if (s.error) return `${out}<- ERROR ${shown(s.error.code)}: ${shown(s.error.message)} (${ms})\r\n`;
  let detail = '';
  if (s.columns) detail += `columns: ${shown(s.columns.join(', '))}; `;
  if (s.rows !== null) detail += `${plural(s.rows, 'row')}; `;
  if (s.suspended) detail += 'portal suspended; ';
  const tags = s.tags.length ? shown(s.tags.join(', ')) : 'empty query';
  return `${out}<- ${tags} (${detail}${ms})\r\n`;
}

export interface Transcript {
  add(s: StatementOutcome): void;
  /** Writes what has gathered to the recording (called by the query log's flush). */
  flush(): void;
  /** Writes the rest and closes the recording (idempotent). */
  close(): Promise<void>;
}

export function createTranscript(
  recording: SessionRecording,
  /** Asks for flush() with the query log's next batch. */
  schedule: (t: Transcript) => void,
  onRecord: (result: RecordResult) => void,
): Transcript {
  let pending = '';
  let closing: Promise<void> | undefined;
  const transcript: Transcript = {
    add(s) {
      if (closing) return;
      if (pending === '') schedule(transcript);
      pending += transcriptOf(s);
    },
    flush() {
      if (pending === '') return;
      const text = pending;
      pending = '';
      onRecord(recording.output(text));
    },
    close() {
      if (!closing) {
        transcript.flush();
        closing = recording.close().then(() => undefined);
      }
      return closing;
    },
  };
  return transcript;
}
