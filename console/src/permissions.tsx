import { useState } from 'react';
import { Pager, SearchBox, useTablePage } from './table-list.js';
import { PermissionEditor, type Cell } from './permission-editor.js';
import { PERMISSION_TYPES, type CellState } from '../../src/metadata/table-page.js';

const MARK: Record<CellState, string> = { none: '–', all: '✔', filter: '◐' };
const SAID: Record<CellState, string> = { none: 'none', all: 'without filter', filter: 'with filter' };

/** Tables × roles × {insert, select, update, delete}: one page of tables at a time, every role as columns. */
export function PermissionsView({ mode }: { mode: 'project' | 'engine' }) {
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const [refresh, setRefresh] = useState(0);
  const [extraRoles, setExtraRoles] = useState<string[]>([]);
  const [newRole, setNewRole] = useState('');
  const [cell, setCell] = useState<Cell | null>(null);
  const { page, error } = useTablePage(search, offset, refresh);
  const roles = [...new Set([...(page?.roles ?? []), ...extraRoles])];
  return (
    <div className="split">
      <section className="main" aria-label="Permission matrix">
        <div className="toolbar">
          <SearchBox value={search} onChange={(v) => { setSearch(v); setOffset(0); }} />
          <form onSubmit={(e) => { e.preventDefault(); if (newRole && newRole !== 'admin') setExtraRoles([...extraRoles, newRole]); setNewRole(''); }}>
            <input aria-label="New role" placeholder="new role" value={newRole} onChange={(e) => setNewRole(e.target.value)} />
            <button type="submit">Add role</button>
          </form>
          <span className="muted legend">✔ without filter · ◐ with filter · – none</span>
        </div>
        {error && <p role="alert" className="error">{error}</p>}
        {page && (
          <>
            <div className="matrix-wrap">
              <table className="grid matrix">
                <thead>
                  <tr><th scope="col" rowSpan={2}>table</th>{roles.map((r) => <th key={r} scope="colgroup" colSpan={4}>{r}</th>)}</tr>
                  <tr>{roles.flatMap((r) => PERMISSION_TYPES.map((t) => <th key={`${r}.${t}`} scope="col" className="type">{t[0]}</th>))}</tr>
                </thead>
                <tbody>
                  {page.tables.map((t) => (
                    <tr key={`${t.schema}.${t.name}`}>
                      <th scope="row">{t.schema}.{t.name}</th>
                      {roles.flatMap((r) => PERMISSION_TYPES.map((type) => {
                        const state = t.cells[r]?.[type] ?? 'none';
                        const label = `${type} on ${t.schema}.${t.name} for ${r}: ${SAID[state]}`;
                        const active = cell && cell.role === r && cell.type === type && cell.schema === t.schema && cell.name === t.name;
                        return (
                          <td key={`${r}.${type}`}>
                            <button type="button" className={`cell ${state}${active ? ' active' : ''}`} aria-label={label} title={label}
                              onClick={() => setCell({ schema: t.schema, name: t.name, role: r, type, typeName: t.typeName })}>{MARK[state]}</button>
                          </td>
                        );
                      }))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={page} onOffset={setOffset} />
          </>
        )}
      </section>
      {cell && (
        <section className="side editor" aria-label="Permission editor">
          <PermissionEditor key={`${cell.schema}.${cell.name}.${cell.role}.${cell.type}`} cell={cell} mode={mode} roles={roles}
            onSaved={() => setRefresh(refresh + 1)} onClose={() => setCell(null)} />
        </section>
      )}
    </div>
  );
}
