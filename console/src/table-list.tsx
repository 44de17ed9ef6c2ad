import { useEffect, useState } from 'react';
import { tables } from './api.js';
import type { TablePage } from '../../src/metadata/table-page.js';

export const PAGE_SIZE = 50;

/** A page of tables searched on the server; each change of search or page is one request, the latest one wins. */
export function useTablePage(search: string, offset: number, refresh = 0): { page: TablePage | null; error: string | null } {
  const [page, setPage] = useState<TablePage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    tables(search, offset, PAGE_SIZE).then((p) => { if (current) { setPage(p); setError(null); } }, (e: Error) => { if (current) setError(e.message); });
    return () => { current = false; };
  }, [search, offset, refresh]);
  return { page, error };
}

export function Pager({ page, onOffset }: { page: TablePage; onOffset: (offset: number) => void }) {
  const last = Math.min(page.offset + page.tables.length, page.total);
  return (
    <div className="pager" role="group" aria-label="Pages">
      <button type="button" disabled={page.offset === 0} onClick={() => onOffset(Math.max(0, page.offset - PAGE_SIZE))}>Previous</button>
      <span className="pager-status" aria-live="polite">{page.total === 0 ? 'no tables' : `${page.offset + 1}–${last} of ${page.total}`}</span>
      <button type="button" disabled={last >= page.total} onClick={() => onOffset(page.offset + PAGE_SIZE)}>Next</button>
    </div>
  );
}

export function SearchBox({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  return <input type="search" aria-label="Search tables" placeholder="Search tables…" value={value} onChange={(e) => onChange(e.target.value)} />;
}
