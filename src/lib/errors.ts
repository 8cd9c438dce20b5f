// The one error type of Gatehouse and its catalogue. Services throw these; one handler
// (plugins/error-handler.ts) turns them, and anything else, into RFC 9457 problem+json.
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, title: 'The request is not valid' },
  unauthenticated: { status: 401, title: 'Authentication is required' },
  invalid_token: { status: 401, title: 'The token is not valid' },
  token_expired: { status: 401, title: 'The token has expired' },
  token_revoked: { status: 401, title: 'The token has been revoked' },
  invalid_credentials: { status: 401, title: 'The credentials are not valid' },
  principal_disabled: { status: 401, title: 'The principal is not active' },
  agent_suspended: { status: 401, title: 'The agent is suspended' },
  // The first factor was right, the second (a security key, src/mfa) is still owed: the half-signed-in
  // token opens nothing but the second step.
  mfa_required: { status: 401, title: 'A second factor is required' },
  forbidden: { status: 403, title: 'The caller is not allowed to do this' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict with the current state' },
  recording_not_ready: { status: 409, title: 'The recording is not available yet' },
  // The stored recording is not the one verified at upload (changed or replaced in the object store).
  recording_tampered: { status: 409, title: 'The recording does not match what was uploaded' },
  // If-Match named a version of the object that is no longer the current one: someone changed it since
  // the caller read it, and nothing was written (src/auth/preconditions.ts).
  precondition_failed: { status: 412, title: 'The object changed since it was read' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'The request body must be application/json' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal error' },
  /** A door could not reach what it fronts (an app's uri): the app's problem, not the caller's. */
  upstream_unreachable: { status: 502, title: 'The upstream could not be reached' },
  unavailable: { status: 503, title: 'Service unavailable' },
  // No durable audit write is possible (no primary accepts writes, or the commit did not complete in
  // time): the action is not confirmed, so it is never answered with a 2xx.
  audit_unavailable: { status: 503, title: 'The audit store is unavailable' },
  // The state store cannot take a write now (etcd without quorum, PostgreSQL unreachable): nothing was
  // changed, and the same request may be sent again (Retry-After says when).
  state_unavailable: { status: 503, title: 'The state store is unavailable' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface FieldError {
  path: string;
  message: string;
}

export class GatehouseError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    detail: string,
    extra: { errors?: FieldError[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, { cause: extra.cause });
    this.name = 'GatehouseError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.detail = detail;
    this.errors = extra.errors;
    this.headers = extra.headers;
  }
}

export const notFound = (kind: string, id: string): GatehouseError =>
  new GatehouseError('not_found', `${kind} ${JSON.stringify(id)} does not exist`);

/** What a lookup found, else the not_found error naming what was asked for (the services' one 404). */
export function found<T>(value: T | undefined, kind: string, id: string): T {
  if (value === undefined) throw notFound(kind, id);
  return value;
}

export const conflict = (detail: string): GatehouseError => new GatehouseError('conflict', detail);

export const forbidden = (detail: string): GatehouseError => new GatehouseError('forbidden', detail);

export const invalidField = (path: string, message: string): GatehouseError =>
  new GatehouseError('invalid_request', `${path}: ${message}`, { errors: [{ path, message }] });

/** Gatehouse could not start for a reason outside its config (a store down, a port taken). */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}
