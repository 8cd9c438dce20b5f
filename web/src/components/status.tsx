// The states every page has besides its content: loading, an error (problem+json), nothing yet.
import type { ReactNode } from 'react';
import { Problem } from '../api/client';

export function Loading({ what }: { what: string }) {
  return (
    <p className="status" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/**
 * A failed call as the API explained it: its detail, field errors and request id to quote. A form
 * that shows the field errors at their fields passes `inline`, so they are not listed twice.
 */
export function ProblemView({ error, title, inline }: { error: unknown; title?: string; inline?: boolean }) {
  if (!(error instanceof Problem)) {
    return (
      <div className="problem" role="alert">
        <strong>{title ?? 'Something went wrong'}</strong>
        <p>{error instanceof Error ? error.message : String(error)}</p>
      </div>
    );
  }
  return (
    <div className="problem" role="alert">
      <strong>{title ?? `Error ${error.status}`}</strong>
      {error.status === 412 ? (
        <p>
          Someone changed this since you opened it, so nothing was saved. Reload the page to see their change, then make
          yours again.
        </p>
      ) : (
        <p>{error.detail}</p>
      )}
      {error.errors.length > 0 && !inline && (
        <ul>
          {error.errors.map((e) => (
            <li key={e.path + e.message}>
              <code>{e.path}</code> {e.message}
            </li>
          ))}
        </ul>
      )}
      {error.request_id && (
        <p className="muted">
          Request id: <code>{error.request_id}</code>
        </p>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
