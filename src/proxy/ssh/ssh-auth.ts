// The SSH door's authentication: a registered key or a login certificate (with the client's
// signature, the principal's proof), or a Gatehouse token or one-time ticket typed as the password
// (through the door kit); then the access decision for login@server, which 'ready' acts on.
import type { AuthContext } from 'ssh2';
import type { Principal } from '../../auth/principal.js';
import type { PrincipalProof } from '../../sessions/principal-proof.js';
import { authenticateDoorCredential } from '../common/door-credential.js';
import { parseTarget } from './access.js';
import type { Conn, ConnectionEnv } from './connection-state.js';

const METHODS: Array<'publickey' | 'keyboard-interactive' | 'password'> = [
  'publickey',
  'keyboard-interactive',
  'password',
];

export function authenticate(env: ConnectionEnv, c: Conn, ctx: AuthContext) {
  const { access } = env.deps;
  c.target ??= parseTarget(ctx.username);
  const fail = () => {
    c.failedAttempts++;
    ctx.reject(METHODS);
  };
  const accepted = (who: Principal, proof: PrincipalProof) => {
    c.principal = who;
    c.proof = proof;
    c.decision = c.target
      ? access.authorize(who, c.target.server, c.target.login)
      : { allowed: false, reason: 'connect as <login>@<server>, e.g. ssh -l ubuntu@web-1' };
    ctx.accept();
  };
  /** A token or a ticket typed as the password (keyboard-interactive or password). */
  const secretLogin = (secret: string) => {
    const server = c.target ? access.findServer(c.target.server) : undefined;
    void authenticateDoorCredential(env.deps, {
      door: 'ssh',
      secret,
      remoteAddr: c.remoteAddr,
      ticketFits: (grant) => server !== undefined && grant.server_id === server.id && grant.login === c.target?.login,
    }).then((r) => ('principal' in r ? accepted(r.principal, r.proof) : fail()));
  };
  switch (ctx.method) {
    case 'publickey': {
      const isCert = ctx.key.algo.endsWith('-cert-v01@openssh.com');
      if (isCert ? !env.deps.certificates?.recognizes(ctx.key.data) : !env.deps.findKeyOwner(ctx.key.data))
        return fail();
      if (!ctx.signature || !ctx.blob) return ctx.accept(); // the client asks whether the key would do
      // A certificate's login token must still stand; a registered key's owner may act now (a
      // suspended, revoked or deleted one fails). The key is the session's origin (session-guard.ts).
      const who = env.deps.keyLogin(ctx.key.data, ctx.signature, ctx.blob, ctx.hashAlgo);
      if (!who) return fail();
      const b64 = (b: Buffer) => b.toString('base64');
      return accepted(who, {
        kind: 'ssh_key',
        key: b64(ctx.key.data),
        signature: b64(ctx.signature),
        data: b64(ctx.blob),
        ...(ctx.hashAlgo ? { hash_algo: ctx.hashAlgo } : {}),
      });
    }
    case 'keyboard-interactive':
      return ctx.prompt([{ prompt: 'Gatehouse token or ticket: ', echo: false }], 'Gatehouse', '', (answers) =>
        secretLogin(answers[0] ?? ''),
      );
    case 'password':
      return secretLogin(ctx.password);
    default:
      return ctx.reject(METHODS);
  }
}
