// `gatehouse login`, `status` and `logout`: a login is a token pair from an API key, kept in the
// profile; status shows who it is and until when; logout revokes it on the server, then forgets it.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { createGatehouse, GatehouseProblem } from '../sdk/index.js';
import { type CliContext, CliError, failure, type Runner } from './context.js';
import { deleteProfile, type Profile, writeProfile } from './profile.js';
import { readSecret } from './secret-prompt.js';
import { freshCertificate, newKeyPair } from './ssh.js';
import { ssoSignIn } from './sso-login.js';

/** The proxy's base URL as given (scheme required; a trailing slash dropped). */
function proxyUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`--proxy: not a URL: ${value} (e.g. https://gatehouse.example.com)`, 2);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CliError('--proxy: use an https:// URL', 2);
  return url.origin + url.pathname.replace(/\/+$/, '');
}

async function apiKeyFrom(ctx: CliContext, file: string | undefined): Promise<string> {
  if (file !== undefined) {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (e) {
      throw new CliError(
        `--api-key-file: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  }
  if (ctx.env.GATEHOUSE_API_KEY) return ctx.env.GATEHOUSE_API_KEY.trim();
  const key = await readSecret('API key: ', ctx.out).catch(() => '');
  if (!key) throw new CliError('no API key given (--api-key-file, GATEHOUSE_API_KEY, or type it at the prompt)');
  return key;
}

export function registerLoginCommands(program: Command, run: Runner): void {
  program
    .command('login')
    .description('log in to Gatehouse with an API key or single sign-on; keeps the login in the profile')
    .requiredOption('--proxy <url>', "Gatehouse's web URL (https://gatehouse.example.com)")
    .option('--api-key-file <file>', 'read the API key from this file (else GATEHOUSE_API_KEY, else a prompt)')
    .option('--sso <connector>', 'sign in through this single sign-on connector, in the browser')
    .option('--no-browser', 'with --sso: print the URL to open instead of opening the browser')
    .action(
      run(async (ctx: CliContext, opts: { proxy: string; apiKeyFile?: string; sso?: string; browser: boolean }) => {
        const proxy = proxyUrl(opts.proxy);
        if (opts.sso !== undefined && opts.apiKeyFile !== undefined)
          throw new CliError('--sso and --api-key-file: use one', 2);
        const gh = createGatehouse({ baseUrl: proxy });
        const signingIn =
          opts.sso !== undefined
            ? ssoSignIn(ctx, gh, proxy, opts.sso, { browser: opts.browser })
            : apiKeyFrom(ctx, opts.apiKeyFile).then((apiKey) => gh.signIn(apiKey));
        const tokens = await signingIn.catch((e: unknown) => {
          // A refused key is this command's own failure, not an expired login.
          if (e instanceof GatehouseProblem) throw new CliError(e.oneLine());
          throw e;
        });
        const me = await gh.ok(gh.api.GET('/v1/auth/whoami'));
        const profile: Profile = {
          proxy,
          principal: { kind: me.kind, id: me.id, name: me.name },
          ...(me.login ? { login: me.login } : {}),
          tokens,
        };
        writeProfile(ctx.home, ctx.profileName, profile);
        // A key pair of this login's own, certified for the SSH proxy (gatehouse ssh); not fatal if refused.
        newKeyPair(ctx);
        const ssh = await freshCertificate(ctx).then(
          () => 'certificate for gatehouse ssh',
          (e: unknown) => `none (${failure(e).line})`,
        );
        ctx.print.item(
          { proxy, ...profile.principal, roles: me.roles, expires_at: me.expires_at },
          {
            'Logged in to': proxy,
            As: `${me.kind} ${me.name}`,
            Roles: me.roles,
            Until: new Date(tokens.refresh_expires_at ?? tokens.expires_at).toISOString(),
            SSH: ssh,
          },
        );
      }),
    );

  program
    .command('status')
    .description('who you are logged in as, with which roles, and until when')
    .action(
      run(async (ctx: CliContext) => {
        const { gh, profile } = ctx.client();
        const me = await gh.ok(gh.api.GET('/v1/auth/whoami'));
        const tokens = gh.tokens() ?? profile.tokens;
        const status = {
          profile: ctx.profileName,
          proxy: profile.proxy,
          kind: me.kind,
          id: me.id,
          name: me.name,
          roles: me.roles,
          ...(me.on_behalf_of ? { on_behalf_of: me.on_behalf_of } : {}),
          login: me.login,
          access_expires_at: new Date(tokens.expires_at).toISOString(),
          ...(tokens.refresh_expires_at ? { login_expires_at: new Date(tokens.refresh_expires_at).toISOString() } : {}),
        };
        ctx.print.item(status, {
          Profile: ctx.profileName,
          Proxy: profile.proxy,
          'Logged in as': `${me.kind} ${me.name} (${me.id})`,
          Roles: me.roles,
          'Acting for': me.on_behalf_of,
          'Access token until': status.access_expires_at,
          'Login renewable until': status.login_expires_at,
        });
      }),
    );

  program
    .command('logout')
    .description('end the login on the server (every token of it) and delete the profile')
    .action(
      run(async (ctx: CliContext) => {
        const { gh, profile } = ctx.client();
        let ended = true;
        try {
          await gh.signOut();
        } catch (e) {
          // Already expired or revoked: nothing left to end on the server, and the profile still goes.
          if (!(e instanceof GatehouseProblem && e.status === 401)) throw e;
          ended = false;
        }
        deleteProfile(ctx.home, ctx.profileName);
        ctx.print.note(
          ended
            ? `Logged out of ${profile.proxy}: the login is revoked and the profile deleted.`
            : `The login at ${profile.proxy} had already ended; the profile is deleted.`,
        );
      }),
    );
}
