// The fake API server's exec: the v5/v4 channel protocol (a channel byte, then data; 0 stdin, 1 stdout,
// 2 stderr, 3 error Status with the exit code, 4 resize JSON, 255 v5 close of a stream) in front of a
// scripted "container": echo, fail N (stderr, exit N), cat (stdin to stdout until stdin closes),
// size (the last resize), sleep (until the connection closes) and sh (an interactive shell of those).
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

export function runFakeExec(ws: WebSocket, command: string[], opts: { tty: boolean; user: string }): void {
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
    else if (cmd === 'fail') {
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
  setImmediate(() => exit(runLine([program ?? '', ...args]) ?? 0));
}
