// Where the `gatehouse` client keeps a login: $GATEHOUSE_HOME (default ~/.gatehouse), a directory
// only its owner may enter (0700), one file per profile (0600) holding the proxy URL, the principal
// and the token pair (never the API key it came from). `--profile` names another, for another cluster.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Tokens } from '../sdk/index.js';

export interface Profile {
  /** The web URL the person logged in to (/v1 is served there). */
  proxy: string;
  principal: { kind: string; id: string; name: string };
  /** The login (token family) these tokens belong to: what a logout ends. */
  login?: string;
  tokens: Tokens;
  /** The SSH certificate of this login, when one was issued (ssh.ts). */
  ssh?: { valid_before: number; proxy?: { host: string; port: number } };
}

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function gatehouseHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.GATEHOUSE_HOME || join(env.HOME || homedir(), '.gatehouse');
}

/** The home directory, made (0700) if missing and tightened if it was looser. */
export function ensureHome(home: string): string {
  if (!existsSync(home)) mkdirSync(home, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  return home;
}

export const profilePath = (home: string, name: string) => join(home, `${name}.json`);

export function readProfile(home: string, name: string): Profile | undefined {
  const file = profilePath(home, name);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as Profile;
}

/** Written whole to a temporary file (0600) and renamed over the profile: a crash never leaves half of one. */
export function writeProfile(home: string, name: string, profile: Profile): void {
  ensureHome(home);
  const file = profilePath(home, name);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** Deletes a profile and the files of its login (SSH key and certificate). */
export function deleteProfile(home: string, name: string): void {
  rmSync(profilePath(home, name), { force: true });
  rmSync(join(home, 'keys', name), { recursive: true, force: true });
}

export function listProfiles(home: string): string[] {
  if (!existsSync(home)) return [];
  return readdirSync(home)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}
