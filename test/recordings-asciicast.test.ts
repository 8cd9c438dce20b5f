// asciicast v2: the encoder's lines parse back to the same session, play in the real `asciinema cat`
// (Debian's asciinema, run under `script` because it insists on a terminal), and render as plain text.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  AsciicastParseError,
  createAsciicastEncoder,
  createPlainTextRenderer,
  parseAsciicast,
  plainTextFromCast,
  TRUNCATED_MARKER,
  toPlainText,
} from '../src/recordings/asciicast.js';
import { asciinemaCat, asciinemaMissing } from './helpers/asciinema.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cast-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A clock the test moves by hand (ms). */
function manualClock(start = 1000) {
  let t = start;
  return { now: () => t, set: (ms: number) => (t = ms) };
}

/** Encodes a session with some of everything; returns the cast text and the output data in order. */
function sampleSession() {
  const clock = manualClock();
  const enc = createAsciicastEncoder({
    width: 100,
    height: 30,
    startedAt: Date.UTC(2025, 0, 2, 3, 4, 5),
    title: 'alice@web-1',
    env: { TERM: 'xterm-256color', SHELL: '/bin/bash' },
    now: clock.now,
  });
  const output: string[] = [];
  let cast = enc.header();
  const out = (data: string | Buffer) => {
    const line = enc.output(data);
    cast += line;
    if (line) output.push(JSON.parse(line)[2]);
  };
  clock.set(1100);
  out('\x1b]0;alice@web-1: ~\x07\x1b[01;32malice@web-1\x1b[00m:\x1b[01;34m~\x1b[00m$ ');
  clock.set(1500);
  cast += enc.input('ls\r');
  clock.set(1501);
  out('ls\r\n');
  clock.set(1600);
  out(Buffer.from('caf\xc3', 'latin1')); // "café" split inside the é
  clock.set(1601);
  out(Buffer.from('\xa9 \xc2\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80\r\n', 'latin1'));
  clock.set(1400); // a clock that goes backwards must not make time go backwards
  cast += enc.resize(120, 40);
  clock.set(2000);
  out('\x1b(0lqk\x1b(B plain \x1b[?2004h\r\n');
  cast += enc.marker('chapter 1');
  cast += enc.flush();
  return { cast, output: output.join('') };
}

test('the encoder writes a header and monotonic [time, code, data] lines that parse back', () => {
  const { cast } = sampleSession();
  const parsed = parseAsciicast(cast);
  assert.deepEqual(parsed.header, {
    version: 2,
    width: 100,
    height: 30,
    timestamp: Date.UTC(2025, 0, 2, 3, 4, 5) / 1000,
    title: 'alice@web-1',
    env: { TERM: 'xterm-256color', SHELL: '/bin/bash' },
  });
  const codes = parsed.events.map((e) => e[1]).join('');
  assert.equal(codes, 'oiooorom');
  const times = parsed.events.map((e) => e[0]);
  assert.deepEqual(times, [0.1, 0.5, 0.501, 0.6, 0.601, 0.601, 1, 1]);
  assert.deepEqual(parsed.events[5], [0.601, 'r', '120x40']);
  assert.equal(parsed.events[3]?.[2], 'caf', 'the split character waits for its second half');
  assert.equal(parsed.events[4]?.[2], 'é © ✓ 🚀\r\n');
  assert.equal(parsed.truncated, false);
  assert.equal(parsed.interrupted, false);
  for (const line of cast.trimEnd().split('\n')) assert.doesNotThrow(() => JSON.parse(line));
});

test('invalid UTF-8 and control bytes still make valid JSON lines', () => {
  const enc = createAsciicastEncoder({ width: 80, height: 24, startedAt: 0, now: () => 0 });
  const line = enc.output(Buffer.from([0xff, 0xfe, 0x00, 0x07, 0x1b, 0x41, 0x22, 0x5c]));
  const [, code, data] = JSON.parse(line);
  assert.equal(code, 'o');
  assert.equal(data, '\ufffd\ufffd\x00\x07\x1bA"\\');
});

test('the parser refuses what players cannot play', () => {
  const header = '{"version":2,"width":80,"height":24}\n';
  const bad: Array<[string, RegExp]> = [
    ['', /empty/],
    ['{"version":1,"width":80,"height":24}\n', /version must be 2/],
    ['{"version":2,"width":0,"height":24}\n', /width/],
    [`${header}[1.0,"o","a"]\n[0.5,"o","b"]\n`, /line 3: time goes backwards/],
    [`${header}[1.0,"x","a"]\n`, /unknown event code/],
    [`${header}[1.0,"r","wide"]\n`, /COLSxROWS/],
    [`${header}[1.0,"o","torn`, /line 2: not JSON/],
  ];
  for (const [text, message] of bad) {
    assert.throws(
      () => parseAsciicast(text),
      (e: unknown) => e instanceof AsciicastParseError && message.test(e.message),
    );
  }
});

const missing = asciinemaMissing();
const playName = 'asciinema cat plays the cast and prints exactly the recorded output';
if (missing && process.env.CI === 'true') {
  test(playName, () => assert.fail(`${missing}: .ci/run must install it; nothing may skip under CI`));
} else if (missing) {
  console.error(`\n${'!'.repeat(100)}\n!!! ${missing}: casts are NOT checked with asciinema\n${'!'.repeat(100)}\n`);
  test(playName, { skip: missing }, () => {});
} else {
  test(playName, () => {
    const { cast, output } = sampleSession();
    const path = join(dir, 'sample.cast');
    writeFileSync(path, cast);
    const played = asciinemaCat(path);
    assert.equal(played.status, 0, played.stdout);
    assert.equal(played.stdout, output);

    // A cast cut by the spool bound, with its marker, plays too; a torn one does not (positive control).
    const enc = createAsciicastEncoder({ width: 80, height: 24, startedAt: 0, now: () => 5 });
    const cut = `${enc.header()}${enc.output('before the cut\r\n')}${enc.marker(`${TRUNCATED_MARKER} (session_max_bytes)`)}`;
    writeFileSync(path, cut);
    assert.deepEqual(asciinemaCat(path), { status: 0, stdout: 'before the cut\r\n' });
    writeFileSync(path, `${cut}[0.1, "o", "tor`);
    assert.notEqual(asciinemaCat(path).status, 0, 'asciinema refuses a torn line, so the check has teeth');
  });
}

test('plain text drops CSI, OSC, charset and other escapes and applies line editing', () => {
  const r = createPlainTextRenderer();
  const text =
    r.push('\x1b]0;title\x07\x1b]2;other title\x1b\\\x1b[1;31mred\x1b[0m \x1b(0lqk\x1b(B \x1b=\x1b>\x1b7x\x1b8\r\n') +
    r.push('\x1bP+q544e\x1b\\dcs gone \x9b31mc1 csi\x9b0m \x1b[?1049h\x1b[2J\x1b[H\r\n') +
    r.push('typo\b\b\x1b[Kpo fixed\r\n') +
    r.push('progress 10%\rprogress 100%\r\n') +
    r.push('abcdef\x1b[3D\x1b[Kxyz\x1b[1G>\r\n') +
    r.push('tab\there\x07\x0e\x0f\r\n') +
    r.push('no newline') +
    r.end();
  assert.equal(text, 'red lqk x\ndcs gone c1 csi\ntypo fixed\nprogress 100%\n>bcxyz\ntab\there\nno newline\n');
});

test('plain text handles escape sequences split across chunks, and endless OSC strings stay bounded', () => {
  const whole = '\x1b[01;32mgreen\x1b[0m \x1b]0;t\x1b\\done\r\n';
  for (let cut = 0; cut <= whole.length; cut++) {
    const r = createPlainTextRenderer();
    assert.equal(r.push(whole.slice(0, cut)) + r.push(whole.slice(cut)) + r.end(), 'green done\n', `cut at ${cut}`);
  }
  const r = createPlainTextRenderer();
  let out = r.push('\x1b]0;');
  for (let i = 0; i < 200; i++) out += r.push('x'.repeat(10_000));
  out += r.push('\x07after\r\n') + r.end();
  assert.equal(out, 'after\n');
});

test('toPlainText renders output and Gatehouse markers; the streaming form agrees', async () => {
  const { cast } = sampleSession();
  const tail = [
    [2, 'o', 'last words'],
    [2, 'm', `${TRUNCATED_MARKER} (spool_max_bytes)`],
  ];
  const full = cast + tail.map((e) => `${JSON.stringify(e)}\n`).join('');
  const expected =
    'alice@web-1:~$ ls\ncafé © ✓ 🚀\nlqk plain\nlast words\n[gatehouse: recording truncated (spool_max_bytes)]\n';
  assert.equal(toPlainText(full), expected);
  assert.equal(parseAsciicast(full).truncated, true);
  for (const size of [1, 7, 64, 100_000]) {
    const bytes = Buffer.from(full);
    const chunks = async function* () {
      for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
    };
    let streamed = '';
    for await (const piece of plainTextFromCast(chunks())) streamed += piece;
    assert.equal(streamed, expected, `chunks of ${size}`);
  }
});
