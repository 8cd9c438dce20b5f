// The typed client of /v1, generated from docs/openapi.json (`npm run web:types`), so an API change
// breaks this app's type check rather than its users. It authenticates with the session cookie
// that /webapi/session set, plus the CSRF header the server requires next to that cookie.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];

/** The JSON body an operation takes, e.g. Body<'/v1/resources', 'post'>. */
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** Sent on every request: the server honours the session cookie only beside it (see src/proxy/web). */
export const CSRF_HEADER = { 'x-gatehouse-csrf': '1' } as const;

export interface FieldError {
  path: string;
  message: string;
}

/** An application/problem+json answer, as the person should see it: detail and request id. */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly requestId: string | undefined,
    readonly errors: FieldError[] = [],
  ) {
    super(detail);
  }
}

export async function problemOf(response: Response, body?: unknown): Promise<Problem> {
  let json = body as Record<string, unknown> | undefined;
  if (json === undefined) json = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  const requestId = (json?.request_id as string | undefined) ?? response.headers.get('x-request-id') ?? undefined;
  return new Problem(
    response.status,
    String(json?.code ?? 'error'),
    String(json?.detail ?? (response.statusText || `HTTP ${response.status}`)),
    requestId,
    Array.isArray(json?.errors) ? (json.errors as FieldError[]) : [],
  );
}

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

type Listener = () => void;
const signedOutListeners = new Set<Listener>();
/** Called when the session is gone for good (expired and not refreshable, or revoked). */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

let refreshing: Promise<boolean> | undefined;
/** One refresh at a time: parallel 401s share it, since the refresh token rotates on each use. */
export function refreshSession(): Promise<boolean> {
  refreshing ??= fetch('/webapi/session/refresh', { method: 'POST', headers: CSRF_HEADER })
    .then((r) => r.ok)
    .catch(() => false)
    .finally(() => {
      refreshing = undefined;
    });
  return refreshing;
}

/** fetch with the session: on 401, refresh once and retry; still 401 means signed out. */
export async function sessionFetch(input: Request): Promise<Response> {
  input.headers.set('x-gatehouse-csrf', '1');
  const retry = input.clone();
  let response = await fetch(input);
  if (response.status === 401 && (await refreshSession())) response = await fetch(retry);
  if (response.status === 401) for (const l of signedOutListeners) l();
  return response;
}

// The console reads JSON only: answers the document also lists as NDJSON or text stay out of `data`'s type.
export const api = createClient<paths, `${string}/json`>({
  baseUrl: '',
  credentials: 'same-origin',
  fetch: sessionFetch,
});

/** The data of an openapi-fetch answer, or the Problem it carried. */
export async function ok<D>(call: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw await problemOf(response, error);
  return data as D;
}

/** Downloads what an authenticated GET answers (a link could not carry the CSRF header). */
export async function download(url: string, filename: string): Promise<void> {
  const response = await sessionFetch(new Request(url));
  if (!response.ok) throw await problemOf(response);
  const href = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** Text of an authenticated GET (recordings, which are not JSON). */
export async function fetchText(url: string): Promise<string> {
  const response = await sessionFetch(new Request(url));
  if (!response.ok) throw await problemOf(response);
  return response.text();
}
