// A proxy's side of its identity (proxy-identities.ts): the first start presents the join token once,
// with the public half of an Ed25519 key pair made here; the private half stays in the data dir
// (0600), so a restart proves possession again instead of needing a new token. The credential auth
// answers is renewed at half its life; every internal call carries it. Time is auth's: this host's
// clock may differ, so proofs are dated and renewals timed by the credential's own iat and exp.
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt, SignJWT } from 'jose';
import { StartupError } from '../lib/errors.js';
import { type AuthPool, AuthUnreachable, PROXY_CREDENTIAL_HEADER } from '../net/auth-client.js';
import { RENEW_AUDIENCE } from './proxy-credentials.js';

export const IDENTITY_FILE = 'cluster-identity.json';
const RETRY_MS = 2000;

interface IdentityFile {
  instance: string;
  private_key: string; // PKCS#8 PEM
}
interface Issued {
  instance: string;
  credential: string;
  expires_at: string;
}

export interface ProxyIdentity {
  readonly instance: string;
  /** The headers of every internal call: the current credential. */
  headers(): Record<string, string>;
  /**
   * Auth refused a call: renew now. A renewal refused too (401: no such identity, or not its key)
   * means the identity was removed; that is final for this process (`removed()`).
   */
  refused(): void;
  /** Whether auth removed this identity (gatehouse instances rm): /webapi/ping then answers 503. */
  removed(): boolean;
  /** Called once when the identity is found removed. */
  onRemoved(listener: () => void): void;
  stop(): void;
}

async function post(pool: Pick<AuthPool, 'fetch'>, path: string, body: unknown): Promise<Issued> {
  const res = await pool
    .fetch(`/internal/v1/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    .catch((e: unknown) => {
      // No answer (a certificate we do not trust, nothing listening) is not a refusal: say so.
      if (e instanceof AuthUnreachable)
        throw new StartupError(`cannot reach the auth tier (auth_servers): ${e.message}`, { cause: e });
      throw e;
    });
  const text = await res.text();
  if (!res.ok) {
    const detail = (() => {
      try {
        return (JSON.parse(text) as { detail?: string }).detail ?? text;
      } catch {
        return text;
      }
    })();
    throw Object.assign(new Error(`the auth tier answered ${res.status}: ${detail}`), { status: res.status });
  }
  return JSON.parse(text) as Issued;
}

/** A proof of possession, dated by auth's clock as this host estimates it (skewMs: auth minus ours). */
const proof = (key: KeyObject, instance: string, skewMs = 0) => {
  const iat = Math.floor((Date.now() + skewMs) / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
    .setSubject(instance)
    .setAudience(RENEW_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 60)
    .sign(key);
};

/**
 * What a fresh credential says of auth's clock: how far it is from ours, and when to renew (half the
 * credential's life from now). Measured with this host's clock, a proxy running ahead of auth dated
 * its proofs in auth's future (refused, and taken for a removal) and, ten minutes ahead, found every
 * credential already expired and renewed in a loop.
 */
function timingOf(issued: Issued): { skewMs: number; renewInMs: number } {
  const { iat, exp } = decodeJwt(issued.credential);
  if (typeof iat !== 'number' || typeof exp !== 'number') return { skewMs: 0, renewInMs: RETRY_MS };
  // iat is whole seconds: auth's clock was somewhere in [iat, iat + 1) when it answered.
  return { skewMs: (iat + 0.5) * 1000 - Date.now(), renewInMs: ((exp - iat) * 1000) / 2 };
}

/**
 * This proxy's identity: the one its data dir holds (renewed now), or a new one joined with the join
 * token. Refused either way, the start stops with the reason (no wait fixes a removed identity).
 */
export async function establishIdentity(
  pool: Pick<AuthPool, 'fetch'>,
  opts: { dataDir: string; joinToken?: string; onError(error: unknown): void },
): Promise<ProxyIdentity> {
  const file = join(opts.dataDir, IDENTITY_FILE);
  let key: KeyObject;
  let issued: Issued;
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as IdentityFile;
    key = createPrivateKey(saved.private_key);
    issued = await post(pool, 'credential', { proof: await proof(key, saved.instance) }).catch((e: Error) => {
      if (e instanceof StartupError) throw e;
      throw new StartupError(
        `this proxy's identity ${saved.instance} (${file}) was refused: ${e.message}; if it was removed, delete that file and start with a new join token (cluster.join_token, GATEHOUSE_JOIN_TOKEN)`,
      );
    });
  } else {
    if (opts.joinToken === undefined)
      throw new StartupError(
        'config key cluster.join_token (or GATEHOUSE_JOIN_TOKEN): a new proxy joins the cluster with a join token (gatehouse tokens add --role proxy); cluster_token with cluster.allow_shared_token is the deprecated alternative',
      );
    const pair = generateKeyPairSync('ed25519');
    key = pair.privateKey;
    issued = await post(pool, 'join', {
      token: opts.joinToken,
      public_key: pair.publicKey.export({ format: 'jwk' }),
    }).catch((e: Error) => {
      if (e instanceof StartupError) throw e;
      throw new StartupError(`joining the cluster with cluster.join_token failed: ${e.message}`);
    });
    const saved: IdentityFile = {
      instance: issued.instance,
      private_key: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    writeFileSync(file, JSON.stringify(saved), { mode: 0o600 });
  }
  let current = issued;
  let timing = timingOf(issued);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let removed = false;
  let renewing: Promise<void> | undefined;
  const removedListeners: Array<() => void> = [];
  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void renew(), Math.max(0, ms));
    timer.unref();
  };
  function renew(): Promise<void> {
    renewing ??= (async () => {
      try {
        current = await post(pool, 'credential', { proof: await proof(key, current.instance, timing.skewMs) });
        timing = timingOf(current);
        schedule(timing.renewInMs);
      } catch (error) {
        if ((error as { status?: number }).status === 401) {
          // Removed (or its key no longer the registered one): nothing to renew, ever.
          removed = true;
          stopped = true;
          clearTimeout(timer);
          for (const l of removedListeners.splice(0)) l();
          return;
        }
        opts.onError(error);
        schedule(RETRY_MS);
      } finally {
        renewing = undefined;
      }
    })();
    return renewing;
  }
  schedule(timing.renewInMs);
  return {
    instance: current.instance,
    headers: () => ({ [PROXY_CREDENTIAL_HEADER]: current.credential }),
    refused() {
      if (!stopped) void renew();
    },
    removed: () => removed,
    onRemoved(listener) {
      if (removed) listener();
      else removedListeners.push(listener);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
