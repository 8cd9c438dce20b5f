// Every refusal of the /v1 API is application/problem+json (RFC 9457, docs/api.md "API conventions");
// the SDK turns each into one error class, so a caller branches on `code` and quotes `request_id`.
import type { ErrorCode } from '../lib/errors.js';

export interface FieldError {
  path: string;
  message: string;
}

/** A refusal of the API, or of the SDK itself before a request (code `unauthenticated`: not signed in). */
export class GatehouseProblem extends Error {
  override readonly name = 'GatehouseProblem';
  constructor(
    readonly status: number,
    /** The stable code (docs/api.md): `forbidden`, `not_found`, `token_expired`, … */
    readonly code: ErrorCode | (string & {}),
    readonly detail: string,
    /** The X-Request-Id to quote when asking an operator. */
    readonly request_id: string | undefined,
    /** For `invalid_request`: which field, and why. */
    readonly errors: FieldError[] = [],
  ) {
    super(detail);
  }

  /** One line: what a person should read ("forbidden: … (request req-…)"). */
  oneLine(): string {
    const fields = this.errors.map((e) => `${e.path} ${e.message}`).join('; ');
    const id = this.request_id ? ` (request ${this.request_id})` : '';
    return `${this.code}: ${this.detail}${fields && !this.detail.includes(fields) ? ` [${fields}]` : ''}${id}`;
  }
}

/** The problem an answer carries (its body already read, or read here). */
export async function problemOf(response: Response, body?: unknown): Promise<GatehouseProblem> {
  let json = body as Record<string, unknown> | undefined;
  if (json === undefined || typeof json !== 'object') {
    const text = await response.text().catch(() => '');
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
  }
  return new GatehouseProblem(
    response.status,
    typeof json?.code === 'string' ? json.code : `http_${response.status}`,
    typeof json?.detail === 'string' ? json.detail : response.statusText || `HTTP ${response.status}`,
    (typeof json?.request_id === 'string' ? json.request_id : undefined) ??
      response.headers.get('x-request-id') ??
      undefined,
    Array.isArray(json?.errors) ? (json.errors as FieldError[]) : [],
  );
}
