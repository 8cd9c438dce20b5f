// The fake API server's exec: the v5/v4 channel protocol (a channel byte, then data; 0 stdin, 1 stdout,
// 2 stderr, 3 error Status with the exit code, 4 resize JSON, 255 v5 close of a stream) in front of a
// scripted "container": echo, fail N (stderr, exit N), cat (stdin to stdout until stdin closes),
// size (the last resize), sleep (until the connection closes), sh (an interactive shell of those),
// and tar (c: a file of the pod's fake file system as an archive; x: stdin's archive into it), which
// is what kubectl cp runs.
import type { WebSocket } from 'ws';

const frame = (channel: number, data: string | Buffer) =>
  Buffer.concat([Buffer.from([channel]), typeof data === 'string' ? Buffer.from(data) : data]);

function exitStatus(code: number, command: string[]): string {
  if (code === 0) return JSON.stringify({ metadata: {}, status: 'Success' });
  return JSON.stringify({
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  });
}

/** A one-file ustar archive, as GNU tar writes it (leading slash dropped). */
export function tarOf(name: string, content: Buffer): Buffer {
  const header = Buffer.alloc(512);
  const field = (offset: number, value: string) => header.write(value, offset, 'latin1');
  field(0, name.replace(/^\/+/, ''));
  field(100, '0000644\0');
  field(108, '0000000\0');
  field(116, '0000000\0');
  field(124, `${content.length.toString(8).padStart(11, '0')}\0`);
  field(
    136,
    `${Math.floor(Date.now() / 1000)
      .toString(8)
      .padStart(11, '0')}\0`,
  );
  field(148, '        ');
  field(156, '0');
  field(257, 'ustar\0');
  field(263, '00');
  let sum = 0;
  for (const b of header) sum += b;
  field(148, `${sum.toString(8).padStart(6, '0')}\0 `);
  const padding = Buffer.alloc((512 - (content.length % 512)) % 512);
  return Buffer.concat([header, content, padding, Buffer.alloc(1024)]);
}

/** The regular files of an archive (name → content). */
export function untar(archive: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (let at = 0; at + 512 <= archive.length; ) {
    const header = archive.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.toString('latin1', 0, 100).replace(/\0.*$/s, '');
    const size = Number.parseInt(header.toString('latin1', 124, 136).replace(/\0.*$/s, '').trim() || '0', 8);
    if (header[156] === 0x30 || header[156] === 0) out.set(name, archive.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

export function runFakeExec(
  ws: WebSocket,
  command: string[],
  opts: { tty: boolean; user: string; files?: Map<string, Buffer>; pod?: string },
): void {
  let size = '80x24';
  let stdinHandler: ((data: Buffer) => void) | undefined;
  let stdinClosed: (() => void) | undefined;
  let done = false;
  const out = (s: string | Buffer) => ws.readyState === ws.OPEN && ws.send(frame(1, s));
  const err = (s: string) => ws.readyState === ws.OPEN && ws.send(frame(2, s));
  const exit = (code: number) => {
    if (done) return;
    done = true;
    if (ws.readyState !== ws.OPEN) return;
    ws.send(frame(3, exitStatus(code, command)));
    ws.close(1000);
  };

  ws.on('message', (raw: Buffer) => {
    const channel = raw[0];
    const data = raw.subarray(1);
    if (channel === 0) stdinHandler?.(data);
    else if (channel === 4) {
      const s = JSON.parse(data.toString()) as { Width: number; Height: number };
      size = `${s.Width}x${s.Height}`;
    } else if (channel === 255 && data[0] === 0) stdinClosed?.();
  });

  /** One line of the shell; returns an exit code to end with, or undefined to go on. */
  function runLine(words: string[]): number | undefined {
    const [cmd, ...args] = words;
    const nl = opts.tty ? '\r\n' : '\n';
    if (cmd === 'echo') out(`${args.join(' ')}${nl}`);
    else if (cmd === 'size') out(`${size}${nl}`);
    else if (cmd === 'whoami') out(`${opts.user}${nl}`);
    else if (cmd === 'exit') return Number(args[0] ?? 0);
    else if (cmd === 'test' && args[0] === '-d') {
      // A directory exists when some file lies under it (kubectl cp asks before copying in).
      const files = [...(opts.files?.keys() ?? [])];
      return files.some((k) => k.startsWith(`${opts.pod}:${(args[1] ?? '').replace(/\/$/, '')}/`)) ? 0 : 1;
    } else if (cmd === 'fail') {
      err(`failing with ${args[0]}${nl}`);
      return Number(args[0] ?? 1);
    } else if (cmd) err(`sh: ${cmd}: not found${nl}`);
    return undefined;
  }

  const [program, ...args] = command;
  if (program === 'cat') {
    stdinHandler = (d) => out(d);
    stdinClosed = () => exit(0);
    return;
  }
  if (program === 'sleep') return; // until the client or the proxy closes
  if (program === 'tar') {
    const files = opts.files ?? new Map<string, Buffer>();
    const flags = args.find((a) => /^-?[a-z]+$/.test(a) && /[cx]/.test(a)) ?? '';
    if (flags.includes('c')) {
      const path = args[args.length - 1] ?? '';
      const content = files.get(`${opts.pod}:${path}`);
      if (!content) {
        err(`tar: ${path}: Cannot stat: No such file or directory\n`);
        setImmediate(() => exit(2));
      } else {
        out(tarOf(path, content));
        setImmediate(() => exit(0));
      }
      return;
    }
    const c = args.indexOf('-C');
    const dir = c >= 0 ? (args[c + 1] ?? '/') : '/';
    const chunks: Buffer[] = [];
    stdinHandler = (d) => chunks.push(Buffer.from(d));
    stdinClosed = () => {
      for (const [name, content] of untar(Buffer.concat(chunks)))
        files.set(`${opts.pod}:${dir.replace(/\/$/, '')}/${name}`, content);
      exit(0);
    };
    return;
  }
  if (program === 'sh') {
    let line = '';
    out('$ ');
    stdinHandler = (d) => {
      for (const ch of d.toString()) {
        if (ch === '\r' || ch === '\n') {
          if (opts.tty) out('\r\n');
          const code = runLine(line.trim().split(/\s+/));
          line = '';
          if (code !== undefined) return exit(code);
          out('$ ');
        } else {
          line += ch;
          if (opts.tty) out(ch); // a terminal echoes what is typed
        }
      }
    };
    stdinClosed = () => exit(0);
    return;
  }
  // One command, then exit; stdout/stderr first so the client has them before the status.
  const known = ['echo', 'size', 'whoami', 'exit', 'fail', 'test'];
  setImmediate(() => exit(runLine([program ?? '', ...args]) ?? (known.includes(program ?? '') ? 0 : 127)));
}
