// Runs the real kubectl (the machine image ships 1.27–1.33) against a kubeconfig, in a HOME of its
// own so its discovery cache never leaks between tests; optionally under a pseudo-terminal (script(1))
// for `exec -it`.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface KubectlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export const kubectlBinary = (minor?: number): string => {
  const path = minor === undefined ? '/usr/bin/kubectl' : `/usr/lib/google-cloud-sdk/bin/kubectl.1.${minor}`;
  if (!existsSync(path)) throw new Error(`${path} is missing: the machine image ships kubectl 1.27–1.33`);
  return path;
};

export function kubectl(
  args: string[],
  opts: {
    kubeconfig: string;
    home: string;
    minor?: number;
    stdin?: string | Buffer;
    timeoutMs?: number;
    onStdout?: (s: string) => void;
  },
): Promise<KubectlRun> & { kill(): void; pauseStdout(): void; resumeStdout(): void } {
  const child = spawn(kubectlBinary(opts.minor ?? 33), args, {
    env: { PATH: process.env.PATH ?? '', HOME: opts.home, KUBECONFIG: opts.kubeconfig },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    opts.onStdout?.(stdout);
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.on('error', () => {});
  if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
  else child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
  const done = new Promise<KubectlRun>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  }) as Promise<KubectlRun> & { kill(): void; pauseStdout(): void; resumeStdout(): void };
  done.kill = () => child.kill('SIGINT');
  // A reader that stops reading: kubectl blocks on its stdout, and the stream behind it must wait.
  done.pauseStdout = () => child.stdout.pause();
  done.resumeStdout = () => child.stdout.resume();
  return done;
}

/** One step of a terminal dialogue: wait for output, type, resize the terminal (SIGWINCH), or pause. */
export type TtyStep =
  | { wait: string }
  | { send: string }
  | { resize: [cols: number, rows: number] }
  | { sleep: number };

// A pseudo-terminal driver: kubectl runs on a pty of the given size; steps are played in order; the
// transcript goes to stdout and the exit code is kubectl's. Python's pty module, since Node has none.
const PTY_DRIVER = String.raw`
import fcntl, json, os, pty, select, signal, struct, sys, termios, time
argv, steps, cols, rows = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
def size(c, r):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', r, c, 0, 0))
size(cols, rows)
seen = b''
def read(timeout):
    global seen
    r, _, _ = select.select([fd], [], [], timeout)
    if not r: return True
    try: data = os.read(fd, 65536)
    except OSError: return False
    if not data: return False
    seen += data; sys.stdout.buffer.write(data); sys.stdout.flush(); return True
for step in steps:
    if 'wait' in step:
        deadline = time.time() + 20
        while step['wait'].encode() not in seen and time.time() < deadline:
            if not read(0.2): break
        seen = seen[seen.find(step['wait'].encode()) + len(step['wait']):] if step['wait'].encode() in seen else seen
    elif 'sleep' in step:
        time.sleep(step['sleep'] / 1000)
    elif 'send' in step:
        os.write(fd, step['send'].encode())
    else:
        size(*step['resize']); os.kill(pid, signal.SIGWINCH)
while read(20): pass
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`;

/** kubectl on a terminal (exec -it), driven by `steps`; resolves with the transcript and exit code. */
export function kubectlTty(
  args: string[],
  opts: { kubeconfig: string; home: string; steps: TtyStep[]; cols?: number; rows?: number },
): Promise<KubectlRun> {
  const spec = JSON.stringify([[kubectlBinary(33), ...args], opts.steps, opts.cols ?? 80, opts.rows ?? 24]);
  const child = spawn('python3', ['-c', PTY_DRIVER, spec], {
    env: { PATH: process.env.PATH ?? '', HOME: opts.home, KUBECONFIG: opts.kubeconfig, TERM: 'xterm' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
