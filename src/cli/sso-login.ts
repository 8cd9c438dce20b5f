// `gatehouse login --sso <connector>`: a native client's sign-in (RFC 8252). The CLI listens on
// http://127.0.0.1:<random port>/callback, sends the browser to Gatehouse's SSO login with that
// redirect, its own `state` and a PKCE S256 challenge; Gatehouse walks the provider's sign-in and
// redirects back with a one-time code, which only this process can exchange (it alone holds the
// verifier). A request to the listener with another state (a page or process trying to slip in its
// own code) is answered 400 and the CLI keeps waiting for its own.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Gatehouse, Tokens } from '../sdk/index.js';
import { type CliContext, CliError } from './context.js';

/** The flow Gatehouse keeps lasts ten minutes; the CLI gives up a little before. */
const WAIT_MS = 9 * 60_000;

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><p>${text}</p>\n`;

function answer(res: ServerResponse, status: number, title: string, text: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(page(title, text));
}

/** Opens the URL in the person's browser: $BROWSER, else the platform's opener; false when none ran. */
function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const [command, ...args] = env.BROWSER
    ? [env.BROWSER, url]
    : process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""', url]
        : ['xdg-open', url];
  return new Promise((resolve) => {
    const child = spawn(command as string, args, { stdio: 'ignore', detached: true, env });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

/** Signs in through the connector in a browser; answers the login's token pair (already held by `gh`). */
export async function ssoSignIn(
  ctx: CliContext,
  gh: Gatehouse,
  proxy: string,
  connector: string,
  opts: { browser: boolean },
): Promise<Tokens> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(24).toString('base64url');

  let settle: (code: string) => void = () => {};
  const arrived = new Promise<string>((resolve) => {
    settle = resolve;
  });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback') return answer(res, 404, 'Not found', 'Nothing here.');
    const code = url.searchParams.get('code');
    if (url.searchParams.get('state') !== state || !code) {
      return answer(res, 400, 'Refused', 'This sign-in was not started by this gatehouse login: ignored.');
    }
    answer(res, 200, 'Signed in', 'Signed in to Gatehouse: you may close this tab and return to the terminal.');
    settle(code);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  try {
    const port = (server.address() as AddressInfo).port;
    const start = new URL(`${proxy}/webapi/sso/${encodeURIComponent(connector)}/login`);
    start.search = new URLSearchParams({
      redirect_uri: `http://127.0.0.1:${port}/callback`,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    const opened = opts.browser && (await openBrowser(start.href, ctx.env));
    ctx.out.stderr(
      `${opened ? 'Your browser has been opened to sign in' : 'Open this URL in a browser to sign in'} through ${connector}:\n  ${start.href}\nWaiting for the sign-in at http://127.0.0.1:${port}/callback …\n`,
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new CliError('the sign-in did not come back within 9 minutes: run gatehouse login again')),
        WAIT_MS,
      );
      timer.unref();
    });
    const code = await Promise.race([arrived, timeout]).finally(() => clearTimeout(timer));
    return await gh.signInWithSsoCode(code, verifier);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
