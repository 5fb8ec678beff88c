/**
 * Long lists in pages (500 tables, a thousand suggested relationships): `usePaged` shows one page of
 * them at a time with a pager (Previous / Next, "1–50 of 500"), so a page renders the same few rows
 * whatever the schema's size. The page goes back to the first when the list's length changes (a filter).
 */
import { useEffect, useState, type ReactNode } from 'react';

export const PAGE_SIZE = 50;

export function usePaged<T>(items: readonly T[], label: string, size = PAGE_SIZE): { shown: T[]; pager: ReactNode } {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(items.length / size));
  useEffect(() => setPage(0), [items.length]);
  const p = Math.min(page, pages - 1);
  const shown = items.slice(p * size, (p + 1) * size);
  const pager =
    items.length > size ? (
      <nav className="pager" aria-label={`${label} pages`}>
        <button type="button" disabled={p === 0} onClick={() => setPage(p - 1)}>Previous</button>
        <span role="status">{p * size + 1}–{p * size + shown.length} of {items.length}</span>
        <button type="button" disabled={p >= pages - 1} onClick={() => setPage(p + 1)}>Next</button>
      </nav>
    ) : null;
  return { shown, pager };
}
