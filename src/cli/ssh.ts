// SSH without registered keys: `gatehouse login` makes an ed25519 key pair in the profile's folder
// and has Gatehouse certify it (POST /v1/ssh/certificates: valid no longer than the access token, and
// refused by the SSH proxy once the login ends); `gatehouse ssh` renews it when it is about to expire
// and runs the system's OpenSSH with it; `gatehouse config ssh` prints the ssh_config block that lets
// ssh, scp, rsync and git use it as they are.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { generateEd25519 } from '../lib/ssh-keygen.js';
import { runForeground } from './child.js';
import { type CliContext, CliError, type Runner } from './context.js';
import { writeProfile } from './profile.js';

/** Renew a certificate with less than this left. */
const RENEW_BEFORE_MS = 60_000;

export function sshFiles(ctx: Pick<CliContext, 'home' | 'profileName'>) {
  const dir = join(ctx.home, 'keys', ctx.profileName);
  return {
    dir,
    key: join(dir, 'id_ed25519'),
    cert: join(dir, 'id_ed25519-cert.pub'),
    knownHosts: join(ctx.home, 'known_hosts'),
  };
}

/** A new key pair for this login (the old one, if any, goes). */
export function newKeyPair(ctx: CliContext): void {
  const files = sshFiles(ctx);
  rmSync(files.dir, { recursive: true, force: true });
  mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  const pair = generateEd25519(`gatehouse ${ctx.profileName}`);
  writeFileSync(files.key, pair.private, { mode: 0o600 });
  writeFileSync(`${files.key}.pub`, `${pair.public}\n`, { mode: 0o600 });
}

/** The certificate, renewed first when it is missing or about to expire; where the SSH proxy is. */
export async function freshCertificate(ctx: CliContext): Promise<{ host: string; port: number }> {
  const { gh, profile } = ctx.client();
  const files = sshFiles(ctx);
  if (!existsSync(files.key)) newKeyPair(ctx);
  const held = profile.ssh;
  if (held?.proxy && existsSync(files.cert) && held.valid_before - RENEW_BEFORE_MS > Date.now()) return held.proxy;
  const publicKey = readFileSync(`${files.key}.pub`, 'utf8').trim();
  const cert = await gh.ok(gh.api.POST('/v1/ssh/certificates', { body: { public_key: publicKey } }));
  if (!cert.ssh_proxy) throw new CliError('this Gatehouse has no SSH proxy');
  writeFileSync(files.cert, `${cert.certificate}\n`, { mode: 0o600 });
  profile.ssh = { valid_before: Date.parse(cert.valid_before), proxy: cert.ssh_proxy };
  writeProfile(ctx.home, ctx.profileName, profile);
  return cert.ssh_proxy;
}

/** `[login@]server`: the login defaults to the local user name, as ssh's does. */
function parseTarget(target: string): { login: string; server: string } {
  const at = target.lastIndexOf('@');
  const login = at > 0 ? target.slice(0, at) : userInfo().username;
  const server = at >= 0 ? target.slice(at + 1) : target;
  if (!server) throw new CliError(`ssh: name a server ([login@]server), not ${target}`, 2);
  return { login, server };
}

export function sshOptions(ctx: CliContext): string[] {
  const files = sshFiles(ctx);
  return [
    '-i',
    files.key,
    '-o',
    `CertificateFile=${files.cert}`,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'IdentityAgent=none',
    '-o',
    'PreferredAuthentications=publickey',
    '-o',
    `UserKnownHostsFile=${files.knownHosts}`,
    // The proxy's host key is learned on first use and kept in the profile's known_hosts.
    '-o',
    'StrictHostKeyChecking=accept-new',
  ];
}

export function registerSshCommands(program: Command, run: Runner): void {
  program
    .command('ssh')
    .description("connect to a server through Gatehouse with the login's SSH certificate (runs ssh)")
    .argument('<target>', '[login@]server (the login defaults to your local user name)')
    .argument('[command...]', 'a command to run instead of a shell (after --)')
    .action(
      run(async (ctx: CliContext, target: string, command: string[]) => {
        const { login, server } = parseTarget(target);
        const proxy = await freshCertificate(ctx);
        const args = [...sshOptions(ctx), '-p', String(proxy.port), '-l', `${login}@${server}`, proxy.host, ...command];
        ctx.exitCode = await runForeground(ctx.env.GATEHOUSE_SSH ?? 'ssh', args, ctx.env);
      }),
    );

  const config = program.command('config').description('configuration for other tools');
  config
    .command('ssh')
    .description('print an ssh_config block: then ssh, scp, rsync and git reach login@server@gatehouse')
    .option('--host <alias>', 'the Host name to give the proxy', 'gatehouse')
    .action(
      run(async (ctx: CliContext, opts: { host: string }) => {
        const proxy = await freshCertificate(ctx);
        const files = sshFiles(ctx);
        const profile = ctx.profileName === 'default' ? '' : ` --profile ${ctx.profileName}`;
        ctx.out.stdout(
          [
            `# Gatehouse (${ctx.client().profile.proxy}): ssh ubuntu@web-1@${opts.host}, scp file ubuntu@web-1@${opts.host}:/tmp/`,
            `# The certificate is renewed before each connection by the Match line (gatehouse ssh-certificate).`,
            `Match host ${opts.host} exec "gatehouse${profile} ssh-certificate"`,
            `Host ${opts.host}`,
            `  HostName ${proxy.host}`,
            `  Port ${proxy.port}`,
            `  IdentityFile ${files.key}`,
            `  CertificateFile ${files.cert}`,
            '  IdentitiesOnly yes',
            '  IdentityAgent none',
            '  PreferredAuthentications publickey',
            `  UserKnownHostsFile ${files.knownHosts}`,
            '  StrictHostKeyChecking accept-new',
            '',
          ].join('\n'),
        );
      }),
    );

  program
    .command('ssh-certificate')
    .description("renew the login's SSH certificate if it is about to expire (for ssh_config's Match exec)")
    .action(
      run(async (ctx: CliContext) => {
        await freshCertificate(ctx);
      }),
    );
}
