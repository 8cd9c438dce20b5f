// The proxy's connection to a target server (ssh2 client), logged in with the credential Gatehouse
// holds for that server. The server's host key is checked against the pinned one before any
// credential is offered: a changed key refuses the connection.
import ssh2, { type AuthenticationType, type ConnectConfig, type ParsedKey, type Client as SshClient } from 'ssh2';
import { UPSTREAM_CIPHERS } from './algorithms.js';

const { Client } = ssh2; // CommonJS: only some names are ESM exports

export type HostKeyCheck = (key: Buffer) => Promise<'pinned' | 'match' | 'mismatch'>;

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly reason: 'host_key_mismatch' | 'unreachable' | 'auth_failed' | 'no_credential',
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** `host`, `host:port`, `[v6]` or `[v6]:port`; SSH's port 22 by default. */
export function splitAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(address);
  if (!m) throw new UpstreamError(`bad server address ${address}`, 'unreachable');
  return { host: (m[1] ?? m[2]) as string, port: m[3] ? Number(m[3]) : 22 };
}

export function connectUpstream(opts: {
  address: string;
  serverName: string;
  login: string;
  /** Tried in order: the server's own key (authorized_keys), then a user-CA certificate. */
  keys: Array<string | ParsedKey>;
  checkHostKey: HostKeyCheck;
  timeoutMs?: number;
}): Promise<SshClient> {
  const { host, port } = splitAddress(opts.address);
  return new Promise((resolve, reject) => {
    const client = new Client();
    let hostKeyVerdict: 'pinned' | 'match' | 'mismatch' | 'error' | undefined;
    let settled = false;
    const fail = (error: UpstreamError) => {
      if (settled) return;
      settled = true;
      client.end();
      reject(error);
    };
    client.once('ready', () => {
      settled = true;
      resolve(client);
    });
    client.on('error', (error: Error & { level?: string }) => {
      if (hostKeyVerdict === 'mismatch') {
        fail(
          new UpstreamError(
            `the host key of ${opts.serverName} does not match the pinned key; refusing to connect`,
            'host_key_mismatch',
          ),
        );
      } else if (error.level === 'client-authentication') {
        fail(
          new UpstreamError(
            `${opts.serverName} refused Gatehouse's credentials for login ${opts.login}: put the server's ssh_public_key in ~${opts.login}/.ssh/authorized_keys, or trust GET /v1/auth/ssh-ca with TrustedUserCAKeys`,
            'auth_failed',
          ),
        );
      } else {
        fail(new UpstreamError(`cannot reach ${opts.serverName} (${opts.address}): ${error.message}`, 'unreachable'));
      }
    });
    client.on('close', () => fail(new UpstreamError(`${opts.serverName} closed the connection`, 'unreachable')));
    client.connect({
      host,
      port,
      username: opts.login,
      authHandler: opts.keys.map((key) => ({
        type: 'publickey',
        username: opts.login,
        key,
      })) as unknown as AuthenticationType[],
      readyTimeout: opts.timeoutMs ?? 10_000,
      keepaliveInterval: 30_000,
      algorithms: { cipher: UPSTREAM_CIPHERS },
      hostVerifier: (key: Buffer, verify: (valid: boolean) => void) => {
        opts.checkHostKey(key).then(
          (verdict) => {
            hostKeyVerdict = verdict;
            verify(verdict !== 'mismatch');
          },
          () => {
            hostKeyVerdict = 'error';
            verify(false);
          },
        );
      },
    } as ConnectConfig);
  });
}
