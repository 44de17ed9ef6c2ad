import { useEffect, useState } from 'react';
import { graphql } from './api.js';
import { go, type Route } from './route.js';
import { Pager, SearchBox, useTablePage } from './table-list.js';
import type { TableRow } from '../../src/metadata/table-page.js';

export function TablesView({ route }: { route: Extract<Route, { view: 'tables' }> }) {
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const { page, error } = useTablePage(search, offset);
  const selected = page?.tables.find((t) => `${t.schema}.${t.name}` === route.table) ?? null;
  return (
    <div className="split">
      <section aria-label="Tables" className="side">
        <SearchBox value={search} onChange={(v) => { setSearch(v); setOffset(0); }} />
        {error && <p role="alert" className="error">{error}</p>}
        {page && (
          <>
            <ul className="table-list">
              {page.tables.map((t) => {
                const q = `${t.schema}.${t.name}`;
                return <li key={q}><a href={`#/tables/${encodeURIComponent(q)}`} aria-current={q === route.table ? 'true' : undefined}>{q}</a></li>;
              })}
            </ul>
            <Pager page={page} onOffset={setOffset} />
          </>
        )}
      </section>
      <section aria-label="Rows" className="main">
        {selected ? <DataBrowser key={`${selected.schema}.${selected.name}`} table={selected} /> : <p className="muted">{route.table ? `Loading ${route.table}…` : 'Choose a table.'}</p>}
        {route.table && !selected && page && <button type="button" onClick={() => go({ view: 'tables' })}>Back</button>}
      </section>
    </div>
  );
}

interface TypeField { name: string; type: { kind: string; name: string | null; ofType: { kind: string; name: string | null } | null } }
const ROWS = 25;

/** Rows of one table through /v1/graphql as admin: filter (a bool_exp as JSON), sort by a column, paging. */
function DataBrowser({ table }: { table: TableRow }) {
  const [columns, setColumns] = useState<string[] | null>(null);
  const [rows, setRows] = useState<Record<string, unknown>[] | null>(null);
  const [where, setWhere] = useState('{}');
  const [order, setOrder] = useState('');
  const [offset, setOffset] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const [draft, setDraft] = useState('{}');
  const mutate = (query: string, variables: Record<string, unknown>) => graphql(query, variables).then((r) => {
    if (r.errors?.length) setError(r.errors.map((e) => e.message).join('; '));
    else { setError(null); setTick(tick + 1); }
  }, (e: Error) => setError(e.message));
  const insert = () => {
    let object: unknown;
    try { object = JSON.parse(draft); } catch { return setError('The new row is not JSON'); }
    void mutate(`mutation($o: ${table.typeName}_insert_input!) { ${table.insertOneField}(object: $o) { __typename } }`, { o: object });
  };
  // A row is named by every column it shows (no key needed); null columns by _is_null.
  const identify = (row: Record<string, unknown>) => ({
    _and: Object.entries(row).filter(([, v]) => typeof v !== 'object' || v === null).map(([k, v]) => (v === null ? { [k]: { _is_null: true } } : { [k]: { _eq: v } })),
  });
  const remove = (row: Record<string, unknown>) => void mutate(`mutation($w: ${table.typeName}_bool_exp!) { ${table.deleteField}(where: $w) { affected_rows } }`, { w: identify(row) });
  const [editing, setEditing] = useState<{ index: number; text: string } | null>(null);
  // Only the columns whose value changed are set.
  const update = (row: Record<string, unknown>) => {
    if (!editing) return;
    let next: unknown;
    try { next = JSON.parse(editing.text); } catch { return setError('The row is not JSON'); }
    if (typeof next !== 'object' || next === null || Array.isArray(next)) return setError('The row must be a JSON object');
    const set = Object.fromEntries(Object.entries(next).filter(([k, v]) => JSON.stringify(row[k]) !== JSON.stringify(v)));
    if (Object.keys(set).length === 0) return setEditing(null);
    setEditing(null);
    void mutate(`mutation($w: ${table.typeName}_bool_exp!, $s: ${table.typeName}_set_input!) { ${table.updateField}(where: $w, _set: $s) { affected_rows } }`, { w: identify(row), s: set });
  };
  useEffect(() => {
    graphql('query($n: String!) { __type(name: $n) { fields { name type { kind name ofType { kind name } } } } }', { n: table.typeName }).then((r) => {
      const fields = ((r.data?.['__type'] as { fields?: TypeField[] } | null)?.fields ?? []);
      setColumns(fields.filter((f) => (f.type.ofType ?? f.type).kind === 'SCALAR' || (f.type.ofType ?? f.type).kind === 'ENUM').map((f) => f.name));
    }, (e: Error) => setError(e.message));
  }, [table.typeName]);
  useEffect(() => {
    if (!columns || columns.length === 0) return;
    let filter: unknown;
    try {
      filter = JSON.parse(where || '{}');
    } catch {
      setError('The filter is not JSON');
      return;
    }
    const orderBy = order ? { [order.replace(/^-/, '')]: order.startsWith('-') ? 'desc' : 'asc' } : undefined;
    const query = `query($where: ${table.typeName}_bool_exp, $order: [${table.typeName}_order_by!], $offset: Int) { rows: ${table.selectField}(where: $where, order_by: $order, limit: ${ROWS}, offset: $offset) { ${columns.join(' ')} } }`;
    graphql(query, { where: filter, order: orderBy ? [orderBy] : null, offset }).then((r) => {
      if (r.errors?.length) setError(r.errors.map((e) => e.message).join('; '));
      else { setError(null); setRows((r.data?.['rows'] as Record<string, unknown>[]) ?? []); }
    }, (e: Error) => setError(e.message));
  }, [columns, where, order, offset, table, tick]);
  return (
    <div>
      <h2>{table.schema}.{table.name}</h2>
      <div className="toolbar">
        <label>Filter <input aria-label="Filter (bool_exp JSON)" className="mono" value={where} onChange={(e) => { setWhere(e.target.value); setOffset(0); }} /></label>
        <label>Sort <select value={order} onChange={(e) => setOrder(e.target.value)}>
          <option value="">(none)</option>
          {columns?.flatMap((c) => [<option key={c} value={c}>{c} ↑</option>, <option key={`-${c}`} value={`-${c}`}>{c} ↓</option>])}
        </select></label>
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - ROWS))}>Previous rows</button>
        <button type="button" disabled={!rows || rows.length < ROWS} onClick={() => setOffset(offset + ROWS)}>Next rows</button>
      </div>
      <form className="toolbar" onSubmit={(e) => { e.preventDefault(); insert(); }}>
        <label>New row <input aria-label="New row (JSON)" className="mono" value={draft} onChange={(e) => setDraft(e.target.value)} /></label>
        <button type="submit">Insert</button>
      </form>
      {error && <p role="alert" className="error">{error}</p>}
      {columns && rows && (
        <table className="grid">
          <thead><tr>{columns.map((c) => <th key={c} scope="col">{c}</th>)}<th scope="col"><span className="muted">row</span></th></tr></thead>
          <tbody>{rows.map((r, i) => (
            <tr key={i}>{editing?.index === i ? (
              <td colSpan={columns.length}>
                <form className="toolbar" onSubmit={(e) => { e.preventDefault(); update(r); }}>
                  <input aria-label={`Row ${i + 1 + offset} (JSON)`} className="mono row-edit" value={editing.text} onChange={(e) => setEditing({ index: i, text: e.target.value })} />
                  <button type="submit">Save row</button>
                  <button type="button" onClick={() => setEditing(null)}>Cancel</button>
                </form>
              </td>
            ) : columns.map((c) => <td key={c}>{show(r[c])}</td>)}
              <td className="row-actions">
                <button type="button" aria-label={`Edit row ${i + 1 + offset}`} onClick={() => setEditing({ index: i, text: JSON.stringify(r) })}>Edit</button>
                <button type="button" aria-label={`Delete row ${i + 1 + offset}`} onClick={() => remove(r)}>Delete</button>
              </td></tr>
          ))}</tbody>
        </table>
      )}
    </div>
  );
}

const show = (v: unknown): string => (v === null || v === undefined ? '∅' : typeof v === 'object' ? JSON.stringify(v) : String(v));
