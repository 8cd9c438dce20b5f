// The typed client of Gatehouse's /v1 API (`import { createGatehouse } from 'gatehouse/sdk'`): the
// openapi-fetch client over the types generated from docs/openapi.json, signed in with an API key or
// a token pair, refreshing the access token before it expires and once on a 401 (or, in a page of the
// web origin, by the console's session cookies), lists as async iterators, and every refusal as one
// GatehouseProblem. It imports nothing of the server: it is what the `gatehouse` command, the web
// console and any agent or script use (docs/sdk.md).
import createClient from 'openapi-fetch';
import { type BrowserSession, browserSessionFetch } from './browser-session.js';
import type { AnyPage, ItemOf, ListPath, ListPathParams, ListQuery } from './paging.js';
import { itemsOf } from './paging.js';
import { GatehouseProblem, problemOf } from './problem.js';
import type { paths } from './schema.js';

/** A login as held by a client: what POST /v1/auth/token answered, with absolute expiries (epoch ms). */
export interface Tokens {
  access_token: string;
  /** Absent for a token that cannot be refreshed (an agent credential, a token exchange). */
  refresh_token?: string;
  expires_at: number;
  refresh_expires_at?: number;
}

export interface GatehouseOptions {
  /** Where /v1 is served: the auth API (http://127.0.0.1:3025) or the web listener (:3080). */
  baseUrl: string;
  /** Signs in with it when there is no login, and again when the login cannot be refreshed. */
  apiKey?: string;
  /** A login already held (a saved profile, an agent's token credential). */
  tokens?: Tokens;
  /** Called with every new token pair, to persist it (the refresh token rotates on each use). */
  onTokens?: (tokens: Tokens) => void | Promise<void>;
  /** Refresh this long before the access token expires (default 30 s). */
  refreshBeforeMs?: number;
  /**
   * A page of the web origin signed in by its session cookies instead (the console): no API key or
   * tokens then, and `baseUrl` is usually '' (this origin).
   */
  session?: BrowserSession;
  fetch?: typeof fetch;
  clock?: () => number;
}

interface TokenAnswer {
  access_token: string;
  expires_in: number;
  refresh_token?: string;
  refresh_expires_in?: number;
}

export type Gatehouse = ReturnType<typeof createGatehouse>;

export function createGatehouse(options: GatehouseOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const baseFetch = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? Date.now;
  const refreshBefore = options.refreshBeforeMs ?? 30_000;
  let tokens = options.tokens;
  let renewing: Promise<Tokens> | undefined;

  async function tokenCall(path: string, body: unknown): Promise<Tokens> {
    const response = await baseFetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw await problemOf(response);
    const t = (await response.json()) as TokenAnswer;
    const now = clock();
    tokens = {
      access_token: t.access_token,
      expires_at: now + t.expires_in * 1000,
      ...(t.refresh_token ? { refresh_token: t.refresh_token } : {}),
      ...(t.refresh_expires_in !== undefined ? { refresh_expires_at: now + t.refresh_expires_in * 1000 } : {}),
    };
    await options.onTokens?.(tokens);
    return tokens;
  }

  const signIn = (apiKey = options.apiKey): Promise<Tokens> => {
    if (!apiKey) return Promise.reject(notSignedIn('no API key to sign in with'));
    return tokenCall('/v1/auth/token', { api_key: apiKey });
  };

  /** A native client's single sign-on (RFC 8252): its one-time code and PKCE verifier → a login. */
  const signInWithSsoCode = (code: string, codeVerifier: string): Promise<Tokens> =>
    tokenCall('/webapi/sso/exchange', { code, code_verifier: codeVerifier });

  /** A new access token: by the refresh token, else by the API key; one at a time (the refresh token rotates). */
  function renew(): Promise<Tokens> {
    renewing ??= (async () => {
      const refresh = tokens?.refresh_token;
      const refreshable = refresh && (tokens?.refresh_expires_at ?? Number.POSITIVE_INFINITY) > clock();
      if (refreshable) {
        try {
          return await tokenCall('/v1/auth/refresh', { refresh_token: refresh });
        } catch (error) {
          if (!(error instanceof GatehouseProblem && error.status === 401 && options.apiKey)) throw error;
        }
      }
      if (options.apiKey) return signIn();
      throw notSignedIn('the login has expired');
    })().finally(() => {
      renewing = undefined;
    });
    return renewing;
  }

  /** The access token to send now, renewed first when it is about to expire. */
  async function accessToken(): Promise<string> {
    if (!tokens) return (await (options.apiKey ? signIn() : Promise.reject(notSignedIn('not signed in')))).access_token;
    if (tokens.expires_at - refreshBefore <= clock() && (tokens.refresh_token || options.apiKey))
      return (await renew()).access_token;
    return tokens.access_token;
  }

  /** fetch with the login: the bearer token, renewed before expiry, and once more after a 401. */
  async function authFetch(input: Request): Promise<Response> {
    const retry = input.clone();
    const sent = await accessToken();
    input.headers.set('authorization', `Bearer ${sent}`);
    const response = await baseFetch(input);
    if (response.status !== 401 || !(tokens?.refresh_token || options.apiKey)) return response;
    // Another request may have renewed it meanwhile: then only retry with the new one.
    const next = tokens?.access_token !== sent ? (tokens as Tokens).access_token : (await renew()).access_token;
    retry.headers.set('authorization', `Bearer ${next}`);
    await response.body?.cancel();
    return baseFetch(retry);
  }

  const browser = options.session ? browserSessionFetch(baseUrl, options.session, baseFetch) : undefined;
  const send = browser?.send ?? authFetch;
  // A session's cookies go to this origin only ('same-origin', fetch's default, said out loud).
  const credentials: RequestInit = browser ? { credentials: 'same-origin' } : {};

  // JSON only: answers the document also lists as NDJSON or text stay out of `data`'s type.
  const api = createClient<paths, `${string}/json`>({ baseUrl, fetch: send, ...credentials });

  /** The data of an openapi-fetch answer, or the GatehouseProblem it carried. */
  async function ok<D>(call: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
    const { data, error, response } = await call;
    if (error !== undefined || !response.ok) throw await problemOf(response, error);
    return data as D;
  }

  /**
   * Every item of a list, page after page (100 at a time; `cursor` where the list gives one, as the
   * audit trail does), fetched as the loop asks for them.
   */
  async function* list<P extends ListPath>(
    path: P,
    init: { query?: ListQuery<P>; path?: ListPathParams<P>; pageSize?: number } = {},
  ): AsyncGenerator<ItemOf<P>> {
    const perPage = init.pageSize ?? 100;
    let page = 1;
    let cursor: string | undefined;
    let seen = 0;
    for (;;) {
      const query = { ...(init.query ?? {}), per_page: perPage, ...(cursor ? { cursor } : { page }) };
      // biome-ignore lint/suspicious/noExplicitAny: P ranges over every list path; its item type is ItemOf<P>
      const get = api.GET as (p: string, i: unknown) => Promise<{ data?: any; error?: unknown; response: Response }>;
      const body = (await ok(get(path, { params: { query, ...(init.path ? { path: init.path } : {}) } }))) as AnyPage;
      const items = itemsOf(body);
      for (const item of items) yield item as ItemOf<P>;
      seen += items.length;
      const total = body.pagination?.total;
      if (items.length < perPage || (total !== undefined && seen >= total && !body.next_cursor)) return;
      if (body.next_cursor) cursor = body.next_cursor;
      else page++;
    }
  }

  return {
    /** The typed openapi-fetch client: `await gh.ok(gh.api.GET('/v1/agents/{id}', { params: { path: { id } } }))`. */
    api,
    ok,
    list,
    signIn,
    signInWithSsoCode,
    /** Renews the access token now (refresh token, else API key). */
    refresh: renew,
    /** Renews the login now, whichever way it is held (in a browser session, its cookies); false if it cannot. */
    renewLogin: (): Promise<boolean> =>
      browser
        ? browser.refresh()
        : renew().then(
            () => true,
            () => false,
          ),
    /** The login held now, if any. */
    tokens: (): Tokens | undefined => tokens,
    /** fetch with the login, the answer as it came, a refusal too (a stream the caller reads itself). */
    send,
    /** An authenticated request outside the typed surface (a recording, a kubeconfig): the raw answer, or a problem. */
    async fetch(path: string, init: RequestInit = {}): Promise<Response> {
      const response = await send(new Request(`${baseUrl}${path}`, { ...credentials, ...init }));
      if (!response.ok) throw await problemOf(response);
      return response;
    },
    /** Ends the login on the server (every token of it) and forgets it here. */
    async signOut(): Promise<{ revoked: number }> {
      if (!tokens) return { revoked: 0 };
      const answer = await ok(api.DELETE('/v1/auth/revoke', {}));
      tokens = undefined;
      return answer;
    },
  };
}

function notSignedIn(why: string): GatehouseProblem {
  return new GatehouseProblem(401, 'unauthenticated', `${why}: sign in again`, undefined);
}
