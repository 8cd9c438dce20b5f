// A real OpenID Provider on loopback (oidc-provider, panva, OpenID-certified) for the single sign-on
// tests: an http://127.0.0.1:<port> issuer, one confidential client, accounts whose claims carry a
// `groups` list, and its development interactions (a login form with `login`/`password`, then a
// consent form), which Chromium fills in the browser tests and `signInThrough` fills over HTTP here.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  groups?: string[];
  /** Any other claims (email, unix_username…). */
  claims?: Record<string, unknown>;
}

export interface TestProvider {
  issuer: string;
  /** Where it listens: the issuer, unless a front (test/helpers/oidc-interposer.ts) answers for it. */
  address: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by login; a login not listed signs in with no groups. */
  accounts: Map<string, TestAccount>;
  stop(): Promise<void>;
}

export async function startOidcProvider(opts: {
  redirectUris: string[];
  accounts?: Record<string, TestAccount>;
  clientId?: string;
  clientSecret?: string;
  /** The issuer, when a front on another address answers for the provider (default: its own address). */
  issuer?: string;
}): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = opts.issuer ?? address;
  const clientId = opts.clientId ?? 'gatehouse';
  const clientSecret = opts.clientSecret ?? 'test-client-secret-0123456789abcdef';
  const accounts = new Map(Object.entries(opts.accounts ?? {}));
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'name'],
      email: ['email'],
      groups: ['groups'],
      unix: ['unix_username'],
    },
    scopes: ['openid', 'profile', 'email', 'groups', 'unix', 'offline_access'],
    // Each test signs in from a fresh cookie jar or browser context, so the forms always show.
    cookies: { keys: ['test-provider-cookie-key-0123456789'] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, id) {
      const account = accounts.get(id) ?? {};
      return {
        accountId: id,
        async claims() {
          return { sub: id, preferred_username: id, groups: account.groups ?? [], ...(account.claims ?? {}) };
        },
      };
    },
  });
  // oidc-provider warns that Node 22 is preferred; the tests run on 20 too (checked here, with a warning).
  provider.on('server_error', (_ctx, err) => console.error('test OpenID Provider:', err));
  server.on('request', provider.callback());
  return {
    issuer,
    address,
    clientId,
    clientSecret,
    accounts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A provider whose client redirects to this Gatehouse's SSO callback (at `localhost`, as a browser would use it). */
export function providerForGatehouse(webUrl: string | undefined, accounts: Record<string, TestAccount>) {
  const redirectUri = new URL('/webapi/sso/callback', webUrl?.replace('127.0.0.1', 'localhost'));
  return startOidcProvider({ redirectUris: [redirectUri.href], accounts });
}

/** The connector fields that name the provider and its client: `{ kind, issuer, client_id, client_secret }`. */
export const providerFields = (p: TestProvider) => ({
  kind: 'oidc',
  issuer: p.issuer,
  client_id: p.clientId,
  client_secret: p.clientSecret,
});

/** A cookie jar per host, enough for a sign-in over fetch (attributes are not enforced). */
export class CookieJar {
  private readonly jars = new Map<string, Map<string, string>>();
  take(url: URL, headers: Headers): void {
    const jar = this.jars.get(url.host) ?? new Map<string, string>();
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = (pair as string).indexOf('=');
      const [name, value] = [(pair as string).slice(0, eq).trim(), (pair as string).slice(eq + 1).trim()];
      if (/max-age=0\b/i.test(line) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    this.jars.set(url.host, jar);
  }
  header(url: URL): string {
    return [...(this.jars.get(url.host) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  get(url: URL, name: string): string | undefined {
    return this.jars.get(url.host)?.get(name);
  }
  set(url: URL, name: string, value: string): void {
    const jar = this.jars.get(url.host) ?? new Map<string, string>();
    jar.set(name, value);
    this.jars.set(url.host, jar);
  }
}

export interface Hop {
  url: URL;
  status: number;
  headers: Headers;
  text: string;
}

/** One request with the jar's cookies, no redirect followed. */
export async function hop(jar: CookieJar, url: URL, init: RequestInit = {}): Promise<Hop> {
  const headers = new Headers(init.headers);
  const cookie = jar.header(url);
  if (cookie) headers.set('cookie', cookie);
  const res = await fetch(url, { ...init, headers, redirect: 'manual' });
  jar.take(url, res.headers);
  return { url, status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * Walks a sign-in as a browser would, from `start` through the provider's login and consent forms
 * (as `login`), following redirects until one leads where `stopAt` says (answered unfollowed: the
 * test decides what to do with the callback) or a page that is not a provider form.
 */
export async function signInThrough(
  jar: CookieJar,
  start: URL,
  login: string,
  stopAt: (url: URL) => boolean = () => false,
): Promise<{ last: Hop; next?: URL }> {
  let url = start;
  let init: RequestInit = {};
  for (let i = 0; i < 20; i++) {
    if (stopAt(url)) return { last: { url, status: 0, headers: new Headers(), text: '' }, next: url };
    const answer = await hop(jar, url, init);
    init = {};
    const location = answer.headers.get('location');
    if (answer.status >= 300 && answer.status < 400 && location) {
      url = new URL(location, url);
      continue;
    }
    const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(answer.text);
    if (answer.status === 200 && form && /\/interaction\//.test(form[1] as string)) {
      const fields = new URLSearchParams();
      for (const m of answer.text.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
        fields.set(m[1] as string, m[2] as string);
      if (/name="login"/.test(answer.text)) {
        fields.set('login', login);
        fields.set('password', 'any password');
      }
      url = new URL((form[1] as string).replace(/&amp;/g, '&'), url);
      init = {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: fields.toString(),
      };
      continue;
    }
    return { last: answer };
  }
  throw new Error('the sign-in did not finish in 20 steps');
}
