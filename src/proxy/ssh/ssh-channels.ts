// The channels of an SSH connection: each session channel a Gatehouse session (session-channel.ts),
// each ssh -L/-W channel one too (port-forward.ts), counted while open so that a connection whose
// grounds are gone ends once none is left, and kept so that a shutdown ends the connection after them.
import type { Client, ServerChannel } from 'ssh2';
import type { Principal } from '../../auth/principal.js';
import { kitDepsOf } from '../common/door-session.js';
import type { AccessDecision } from './access.js';
import { type Conn, type ConnectionEnv, rejected } from './connection-state.js';
import { runPortForward } from './port-forward.js';
import { type RunningSession, refuseChannel, runSession } from './session-channel.js';

export const endIfGroundless = (c: Conn) => {
  if (c.groundsLost && c.channels === 0) c.client.end();
};

/** Counts a channel until it closes. */
export function held(c: Conn, channel: ServerChannel): ServerChannel {
  c.channels++;
  channel.once('close', () => {
    c.channels--;
    endIfGroundless(c);
  });
  return channel;
}

/** Keeps a running session (a shell, an exec, a forward) on the connection until its channel closes. */
function keep(env: ConnectionEnv, c: Conn, live: RunningSession, channel: ServerChannel): void {
  c.running.add(live);
  channel.once('close', () => {
    c.running.delete(live);
    if (env.shuttingDown && c.running.size === 0) c.client.end();
  });
}

export function startSession(
  env: ConnectionEnv,
  c: Conn,
  request: Parameters<typeof runSession>[3],
  accept: () => ServerChannel,
): Promise<RunningSession | undefined> {
  const channel = held(c, accept());
  const decision = c.decision;
  if (!decision?.allowed) {
    refuseChannel(channel, `access denied: ${decision?.reason ?? 'not authenticated'}`);
    return Promise.resolve(undefined);
  }
  const { deps } = env;
  return (c.upstream as Promise<Client>).then(
    async (up) => {
      const live = await runSession(
        { ...sessionContext(env, c, decision), recordings: deps.recordings },
        up,
        channel,
        request,
      );
      if (live) keep(env, c, live, channel);
      return live;
    },
    (error: Error) => {
      refuseChannel(channel, error.message);
      return undefined;
    },
  );
}

function sessionContext(env: ConnectionEnv, c: Conn, decision: Extract<AccessDecision, { allowed: true }>) {
  const { deps } = env;
  return {
    principal: c.principal as Principal,
    server: decision.server,
    login: c.target?.login ?? '',
    options: decision.options,
    remoteAddr: c.remoteAddr,
    ...kitDepsOf(deps),
  };
}

export function forward(
  env: ConnectionEnv,
  c: Conn,
  ask: { accept(): ServerChannel; reject(): void },
  info: Parameters<typeof runPortForward>[2],
): void {
  const decision = c.decision;
  if (!decision?.allowed || !decision.options.portForwarding) {
    ask.reject();
    void rejected(env, c, 'access', 'port forwarding is not allowed by any role', {
      forward: `${info.destIP}:${info.destPort}`,
    });
    return;
  }
  c.channels++; // until it is accepted (then counted until it closes) or rejected
  let channel: ServerChannel | undefined;
  const accept = () => {
    channel = held(c, ask.accept());
    return channel;
  };
  runPortForward(sessionContext(env, c, decision), c.upstream as Promise<Client>, info, { accept, reject: ask.reject })
    .then((live) => {
      if (live && channel) keep(env, c, live, channel);
    })
    .catch((err: unknown) => {
      env.deps.logger.error({ err }, 'ssh: cannot open a port forward');
      if (!channel) ask.reject();
    })
    .finally(() => {
      c.channels--;
      endIfGroundless(c);
    });
}
