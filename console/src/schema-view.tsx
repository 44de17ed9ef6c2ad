import { useState, type FormEvent } from 'react';
import { ApiFailure, consoleApi, forgetExport, metadata } from './api.js';

type Status = { kind: 'ok' | 'error' | 'busy'; text: string } | null;

interface MigrationAnswer { version: string; directory: string; metadata_written: string[]; metadata_not_written: boolean }
interface RunSqlAnswer { result_type: string; result: string[][] | null }

const failure = (e: unknown): string => {
  if (!(e instanceof ApiFailure)) return (e as Error).message;
  const b = e.body as { line?: number; column?: number } | null;
  return `${e.message} [${e.code}]${b?.line ? ` at line ${b.line}, column ${b.column ?? 1}` : ''}`;
};

/**
 * Schema changes. Under `engine console` the SQL becomes a migration of the project (migrations/<version>_<name>/) and
 * is applied: the database never moves without git. Served by `engine serve`, it runs on the engine as it is.
 */
export function SchemaView({ mode }: { mode: 'project' | 'engine' }) {
  const [name, setName] = useState('');
  const [up, setUp] = useState('');
  const [down, setDown] = useState('');
  const [status, setStatus] = useState<Status>(null);
  const [rows, setRows] = useState<string[][] | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setStatus({ kind: 'busy', text: mode === 'project' ? 'Writing the migration and applying it…' : 'Running…' });
    setRows(null);
    if (mode === 'project') {
      consoleApi('migration', { method: 'POST', body: JSON.stringify({ name, up, ...(down.trim() === '' ? {} : { down }) }) }).then((r) => {
        const a = r as MigrationAnswer;
        forgetExport();
        const meta = a.metadata_written.length > 0 ? ` The SQL changed the metadata: ${a.metadata_written.join(', ')} rewritten.`
          : a.metadata_not_written ? " The SQL changed the engine's metadata, but the project's files differed from it: run engine metadata export." : '';
        setStatus({ kind: 'ok', text: `Migration ${a.directory} written and applied.${meta}` });
      }, (err: unknown) => setStatus({ kind: 'error', text: failure(err) }));
      return;
    }
    metadata('run_sql', { sql: up }).then((r) => {
      const a = r as RunSqlAnswer;
      forgetExport();
      setRows(a.result_type === 'TuplesOk' ? a.result : null);
      setStatus({ kind: 'ok', text: 'Done.' });
    }, (err: unknown) => setStatus({ kind: 'error', text: failure(err) }));
  };
  return (
    <div className="main">
      <h2>Schema</h2>
      <p className="muted">{mode === 'project'
        ? 'The SQL is written as a new migration under migrations/ and applied in one transaction with its state row; if the database refuses it, nothing is written.'
        : 'Served by the engine: the SQL runs on the database and is kept nowhere. Run engine console in a project to record it as a migration.'}</p>
      <form onSubmit={submit} aria-label="Schema change">
        {mode === 'project' && (
          <label className="toolbar">Migration name <input aria-label="Migration name" className="mono" required value={name} onChange={(e) => setName(e.target.value)} placeholder="add_note_table" /></label>
        )}
        <label htmlFor="schema-up">{mode === 'project' ? 'Up (SQL)' : 'SQL'}</label>
        <textarea id="schema-up" rows={10} spellCheck={false} value={up} onChange={(e) => setUp(e.target.value)} />
        {mode === 'project' && (
          <>
            <label htmlFor="schema-down">Down (SQL that undoes it, optional)</label>
            <textarea id="schema-down" rows={4} spellCheck={false} value={down} onChange={(e) => setDown(e.target.value)} />
          </>
        )}
        <div className="toolbar">
          <button type="submit" className="primary" disabled={status?.kind === 'busy' || up.trim() === ''}>{mode === 'project' ? 'Write migration and apply' : 'Run'}</button>
        </div>
      </form>
      {status && <p role={status.kind === 'error' ? 'alert' : 'status'} className={status.kind}>{status.text}</p>}
      {rows && rows.length > 0 && (
        <table className="grid">
          <thead><tr>{(rows[0] ?? []).map((c, i) => <th key={i} scope="col">{c}</th>)}</tr></thead>
          <tbody>{rows.slice(1).map((r, i) => <tr key={i}>{r.map((v, j) => <td key={j}>{v ?? '∅'}</td>)}</tr>)}</tbody>
        </table>
      )}
    </div>
  );
}
