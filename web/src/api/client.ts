// The console's client of /v1: the SDK's (gatehouse/sdk, src/sdk), the one the `gatehouse` command
// uses, in its browser mode: signed in by the HttpOnly session cookie that /webapi/session set, plus
// the CSRF header the server requires next to that cookie, and renewed through /webapi/session/refresh.
// What the pages import is re-exported here under the names they know.
import { type components, createGatehouse, type paths, problemOf } from 'gatehouse/sdk';

// Problem: an application/problem+json answer (status, code, detail, request_id, errors), the SDK's one error class.
export { type FieldError, GatehouseProblem as Problem, problemOf } from 'gatehouse/sdk';
export type Schemas = components['schemas'];

/** The JSON body an operation takes, e.g. Body<'/v1/resources', 'post'>. */
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** Sent on every request: the server honours the session cookie only beside it (src/api/console). */
export const CSRF_HEADER = { 'x-gatehouse-csrf': '1' } as const;

type Listener = () => void;
const signedOutListeners = new Set<Listener>();
/** Called when the session is gone for good (expired and not refreshable, or revoked). */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

const gh = createGatehouse({
  baseUrl: '',
  session: {
    headers: CSRF_HEADER,
    refreshPath: '/webapi/session/refresh',
    onSignedOut: () => {
      for (const l of signedOutListeners) l();
    },
  },
});

/** The typed openapi-fetch client (JSON answers only). */
export const api = gh.api;
/** The data of an openapi-fetch answer, or the Problem it carried. */
export const ok = gh.ok;
/** fetch with the session: on 401, refresh once and retry; still 401 means signed out. */
export const sessionFetch = gh.send;
/** One refresh at a time: parallel 401s share it, since the refresh cookie rotates on each use. */
export const refreshSession = gh.renewLogin;

/**
 * The data of an answer and its ETag: the version a change of the object names in If-Match, so that
 * a change someone else made since it was read is refused (412), never overwritten.
 */
export async function okTagged<D>(
  call: Promise<{ data?: D; error?: unknown; response: Response }>,
): Promise<{ data: D; etag: string | undefined }> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw await problemOf(response, error);
  return { data: data as D, etag: response.headers.get('etag') ?? undefined };
}

/** The If-Match header of a change of an object read with `okTagged`. */
export const ifMatch = (etag: string | undefined) => (etag ? { 'if-match': etag } : {});

/** Downloads what an authenticated GET answers (a link could not carry the CSRF header). */
export async function download(url: string, filename: string): Promise<void> {
  const response = await gh.fetch(url);
  const href = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** Text of an authenticated GET (recordings, which are not JSON). */
export async function fetchText(url: string): Promise<string> {
  return (await gh.fetch(url)).text();
}
