// What every client command shares: the environment, the profile it acts under, the printer, and the
// SDK signed in with that profile's login (refreshed by itself; each new pair written back at once).
import { InvalidArgumentError } from 'commander';
import { createGatehouse, type Gatehouse, GatehouseProblem } from '../sdk/index.js';
import { createPrinter, FORMATS, type Format, type Printer } from './format.js';
import type { Output } from './output.js';
import { gatehouseHome, PROFILE_NAME, type Profile, readProfile, writeProfile } from './profile.js';

/** A failure the command explains in one line; exit 1, or 2 for bad usage. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

/** What the person sees when the login cannot be renewed any more. */
export const LOGIN_EXPIRED = 'your login has expired or was ended: run gatehouse login';

export interface GlobalOptions {
  profile?: string;
  format?: string;
}

export interface CliContext {
  env: NodeJS.ProcessEnv;
  out: Output;
  home: string;
  profileName: string;
  print: Printer;
  /** The profile, or a one-line refusal when there is none. */
  profile(): Profile;
  /** The SDK with the profile's login. */
  client(): { gh: Gatehouse; profile: Profile };
  /** Set by a command that passes on another program's exit status (ssh, psql). */
  exitCode: number;
}

export function createContext(
  globals: GlobalOptions,
  io: { env: NodeJS.ProcessEnv; out: Output; columns?: number; isTTY?: boolean },
): CliContext {
  const { env, out } = io;
  const profileName = globals.profile ?? env.GATEHOUSE_PROFILE ?? 'default';
  if (!PROFILE_NAME.test(profileName)) throw new CliError(`--profile: letters, digits, . _ - (got ${profileName})`, 2);
  const format = (globals.format ?? 'table') as Format;
  if (!FORMATS.includes(format)) throw new CliError(`--format: one of ${FORMATS.join(', ')}`, 2);
  const home = gatehouseHome(env);
  const print = createPrinter(out, format, {
    color: Boolean(io.isTTY) && env.NO_COLOR === undefined,
    width: io.columns,
  });
  const profile = (): Profile => {
    const p = readProfile(home, profileName);
    if (!p)
      throw new CliError(
        `not logged in${profileName === 'default' ? '' : ` (profile ${profileName})`}: run gatehouse login --proxy <url>`,
      );
    return p;
  };
  let client: { gh: Gatehouse; profile: Profile } | undefined;
  return {
    env,
    out,
    home,
    profileName,
    print,
    profile,
    exitCode: 0,
    client() {
      if (client) return client;
      const p = profile();
      const gh = createGatehouse({
        baseUrl: p.proxy,
        tokens: p.tokens,
        // Written at once: the refresh token rotates, and the old one no longer works.
        onTokens: (tokens) => {
          p.tokens = tokens;
          writeProfile(home, profileName, p);
        },
      });
      client = { gh, profile: p };
      return client;
    },
  };
}

/** Renew an access token with less than this left before handing it to another program (kubectl, an app). */
const HAND_OVER_MS = 60_000;

/** The login's access token with at least a minute left, renewed first if needed (written back to the profile). */
export async function freshAccessToken(gh: Gatehouse): Promise<{ token: string; expiresAt: number }> {
  let tokens = gh.tokens();
  if (!tokens || tokens.expires_at - HAND_OVER_MS <= Date.now()) tokens = await gh.refresh();
  return { token: tokens.access_token, expiresAt: tokens.expires_at };
}

/** An action under the global options: its context first, one line and exit 1 or 2 if it fails. */
export type Runner = (
  action: (ctx: CliContext, ...args: never[]) => Promise<void>,
) => (...args: unknown[]) => Promise<void>;

/** The one line (and exit code) an error ends a command with. */
export function failure(error: unknown): { line: string; code: 1 | 2 } {
  if (error instanceof CliError) return { line: error.message, code: error.exitCode };
  if (error instanceof GatehouseProblem) {
    // 401: the login is gone (expired, revoked, refresh refused): the one thing to do is log in again.
    if (error.status === 401) return { line: LOGIN_EXPIRED, code: 1 };
    return { line: error.oneLine(), code: 1 };
  }
  const e = error as NodeJS.ErrnoException;
  if (e?.code === 'ECONNREFUSED' || e?.cause) {
    const cause = (e.cause as NodeJS.ErrnoException | undefined) ?? e;
    return { line: `cannot reach Gatehouse: ${cause.code ?? ''} ${cause.message}`.replace(/\s+/g, ' '), code: 1 };
  }
  return { line: (error as Error)?.message ?? String(error), code: 1 };
}

/** A --port value (commander reports a refusal as bad usage, exit 2). */
export function portOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port number (0 picks a free one)');
  return n;
}
