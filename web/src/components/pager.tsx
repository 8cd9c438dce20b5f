// Server-side paging: the page number lives in the URL, the total comes from the API.
import { useSearchParams } from 'react-router';

export function Pager({ total, page, perPage }: { total: number; page: number; perPage: number }) {
  const [params, setParams] = useSearchParams();
  const pages = Math.max(1, Math.ceil(total / perPage));
  const go = (p: number) => {
    const next = new URLSearchParams(params);
    if (p === 1) next.delete('page');
    else next.set('page', String(p));
    setParams(next);
  };
  if (total <= perPage && page === 1) return <p className="muted">{total} in all</p>;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={() => go(page - 1)} disabled={page <= 1}>
        Previous page
      </button>
      <span>
        Page {page} of {pages} ({total} in all)
      </span>
      <button type="button" onClick={() => go(page + 1)} disabled={page >= pages}>
        Next page
      </button>
    </nav>
  );
}

/** The current page from the URL (1 when absent or nonsense). */
export function usePage(): number {
  const [params] = useSearchParams();
  const n = Number(params.get('page') ?? 1);
  return Number.isInteger(n) && n >= 1 ? n : 1;
}
