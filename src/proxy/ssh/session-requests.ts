// The requests on one SSH session channel before and while it runs: a pty, environment variables
// (those OpenSSH's Debian default accepts), window changes and signals passed on to the running
// session, and the shell, exec or sftp subsystem that starts it. Agent and X11 forwarding are refused.
import type { ServerChannel, Session } from 'ssh2';
import type { PtyRequest, RunningSession, SessionRequest } from './session-channel.js';

/** Environment variables passed on to the target (as OpenSSH's AcceptEnv default on Debian). */
const PASSED_ENV = /^(LANG|LC_[A-Z_]+|COLORTERM|NO_COLOR)$/;

export function onSessionChannel(
  session: Session,
  start: (request: SessionRequest, accept: () => ServerChannel) => Promise<RunningSession | undefined>,
): void {
  let pty: PtyRequest | undefined;
  const env: Record<string, string> = {};
  let live: RunningSession | undefined;
  const run = (request: SessionRequest, accept: () => ServerChannel) =>
    void start(request, accept).then((running) => {
      live = running;
    });

  session.on('pty', (accept, _reject, info) => {
    pty = { cols: info.cols, rows: info.rows, width: info.width, height: info.height, term: info.term };
    if (info.modes) pty.modes = info.modes;
    accept?.();
  });
  session.on('env', (accept, reject, info) => {
    if (PASSED_ENV.test(info.key) && Object.keys(env).length < 32) {
      env[info.key] = String(info.val).slice(0, 256);
      accept?.();
    } else reject?.();
  });
  session.on('window-change', (accept, _reject, info) => {
    if (pty) Object.assign(pty, { cols: info.cols, rows: info.rows, width: info.width, height: info.height });
    live?.resize(info);
    accept?.();
  });
  session.on('signal', (accept, _reject, info) => {
    live?.signal(info.name);
    accept?.();
  });
  // Agent and X11 forwarding hand the target a way back into the user's machine: never.
  session.on('auth-agent', (_accept, reject) => reject?.());
  session.on('x11', (_accept, reject) => reject?.());
  session.on('shell', (accept) => run({ type: 'shell', ...(pty ? { pty } : {}), env }, accept));
  session.on('exec', (accept, _reject, info) =>
    run({ type: 'exec', command: info.command, ...(pty ? { pty } : {}), env }, accept),
  );
  session.on('subsystem', (accept, reject, info) => {
    if (info.name !== 'sftp') return reject?.();
    run({ type: 'subsystem', command: 'sftp', env }, accept);
  });
}
