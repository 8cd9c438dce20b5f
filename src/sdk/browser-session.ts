// The SDK's browser mode, for a page of Gatehouse's own web origin (the console): the login lives in
// HttpOnly cookies script cannot read, so no bearer token is sent; each request carries the headers the
// server requires beside the cookie (its CSRF header), and a 401 is met with one refresh of the cookies
// and one retry, as the token mode does with a refresh token.

/** How a page of the web origin is signed in (`createGatehouse({ baseUrl: '', session })`). */
export interface BrowserSession {
  /** Sent with every request: the server honours the session cookie only beside them (`x-gatehouse-csrf`). */
  headers: Record<string, string>;
  /** POSTed (with `headers`) to rotate the cookies into a new pair: `/webapi/session/refresh`. */
  refreshPath: string;
  /** Called when a request is still refused with 401 after a refresh: the session is gone for good. */
  onSignedOut?: () => void;
}

export function browserSessionFetch(baseUrl: string, session: BrowserSession, baseFetch: typeof fetch) {
  let refreshing: Promise<boolean> | undefined;

  /** One refresh at a time: parallel 401s share it, since the refresh cookie rotates on each use. */
  function refresh(): Promise<boolean> {
    refreshing ??= baseFetch(`${baseUrl}${session.refreshPath}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: session.headers,
    })
      .then(async (r) => {
        await r.body?.cancel();
        return r.ok;
      })
      .catch(() => false)
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  }

  /** fetch with the session's cookies: on 401, refresh once and retry; still 401 means signed out. */
  async function send(input: Request): Promise<Response> {
    for (const [name, value] of Object.entries(session.headers)) input.headers.set(name, value);
    const retry = input.clone();
    let response = await baseFetch(input);
    if (response.status === 401 && (await refresh())) {
      await response.body?.cancel();
      response = await baseFetch(retry);
    }
    if (response.status === 401) session.onSignedOut?.();
    return response;
  }

  return { send, refresh };
}
