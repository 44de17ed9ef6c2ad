import { useEffect, useState } from 'react';
import { ApiFailure, consoleApi, exported, forgetExport, graphql, metadata } from './api.js';
import { go } from './route.js';
import { permissionOf, type PermissionType } from '../../src/metadata/table-page.js';

export interface Cell { schema: string; name: string; role: string; type: PermissionType; typeName: string }

const TEMPLATES: Record<PermissionType, object> = {
  select: { columns: '*', filter: {} }, insert: { columns: '*', check: {} }, update: { columns: '*', filter: {}, check: {} }, delete: { filter: {} },
};

type Status = { kind: 'ok' | 'error' | 'busy'; text: string } | null;

/** What a save would do: each file's diff (what git will show) and the engine's changes. */
interface Preview { files: { file: string; diff: string }[]; changes: string; in_sync?: boolean }

/** The permission object of a cell as JSON, checked by the engine before anything is written, then saved. */
export function PermissionEditor({ cell, mode, roles, onSaved, onClose }: {
  cell: Cell; mode: 'project' | 'engine'; roles: string[]; onSaved: () => void; onClose: () => void;
}) {
  const [text, setText] = useState<string | null>(null);
  const [exists, setExists] = useState(false);
  const [status, setStatus] = useState<Status>(null);
  const [columns, setColumns] = useState<string[]>([]);
  const [preview, setPreview] = useState<Preview | null>(null);
  useEffect(() => {
    // The table's columns as the admin's schema shows them: the scalar fields of its type.
    graphql('query($n: String!) { __type(name: $n) { fields { name type { kind ofType { kind } } } } }', { n: cell.typeName }).then((r) => {
      const fields = ((r.data?.['__type'] as { fields?: { name: string; type: { kind: string; ofType: { kind: string } | null } }[] } | null)?.fields ?? []);
      setColumns(fields.filter((f) => ['SCALAR', 'ENUM'].includes((f.type.ofType ?? f.type).kind)).map((f) => f.name));
    }, () => setColumns([]));
  }, [cell.typeName]);
  useEffect(() => {
    const load = mode === 'project'
      ? consoleApi(`permission?${new URLSearchParams({ schema: cell.schema, name: cell.name, role: cell.role, type: cell.type }).toString()}`).then((r) => (r as { permission: object | null }).permission)
      : exported().then((doc) => permissionOf(doc, cell.schema, cell.name, cell.role, cell.type));
    load.then((p) => { setExists(p !== null); setText(JSON.stringify(p ?? TEMPLATES[cell.type], null, 2)); }, (e: Error) => setStatus({ kind: 'error', text: e.message }));
  }, [cell, mode]);

  const parsed = (): object | undefined => {
    try {
      const v: unknown = JSON.parse(text ?? '');
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v;
    } catch { /* reported below */ }
    setStatus({ kind: 'error', text: 'The permission must be a JSON object' });
    return undefined;
  };

  const send = async (permission: object | null, dryRun: boolean, role = cell.role) => {
    if (mode === 'project') {
      return consoleApi('permission', { method: 'POST', body: JSON.stringify({ table: { schema: cell.schema, name: cell.name }, role, type: cell.type, permission, dry_run: dryRun }) }) as Promise<{ written: string[] }>;
    }
    // Served by the engine itself: there are no files, the metadata API is the store.
    const table = { schema: cell.schema, name: cell.name };
    const current = permissionOf(await exported(true), cell.schema, cell.name, role, cell.type);
    const ops = [
      ...(current ? [{ type: `drop_${cell.type}_permission`, args: { table, role } }] : []),
      ...(permission ? [{ type: `create_${cell.type}_permission`, args: { table, role, permission } }] : []),
    ];
    if (dryRun) {
      // The engine checks the edit in a bulk that then fails on purpose (the drop of a permission no role has) and
      // rolls everything back: a failure of the edit's own operations is the answer, the last one's is success.
      const last = { type: `drop_${cell.type}_permission`, args: { table, role: `engine-console-dry-run-${Date.now()}` } };
      try {
        await metadata('bulk', [...ops, last]);
      } catch (e) {
        if (e instanceof ApiFailure && e.path.startsWith(`$.args[${ops.length}]`)) return { written: [] };
        throw e;
      }
      throw new Error('the engine applied the check');
    }
    await metadata('bulk', ops);
    forgetExport();
    return { written: [] };
  };

  const showPreview = () => {
    const permission = parsed();
    if (permission === undefined) return;
    setStatus({ kind: 'busy', text: 'Comparing…' });
    const body = { table: { schema: cell.schema, name: cell.name }, role: cell.role, type: cell.type, permission };
    const load: Promise<Preview> = mode === 'project'
      ? consoleApi('permission', { method: 'POST', body: JSON.stringify({ ...body, preview: true }) }) as Promise<Preview>
      // Served by the engine: no files; the cell as the engine has it against the edit.
      : exported(true).then((doc) => {
        const was = permissionOf(doc, cell.schema, cell.name, cell.role, cell.type);
        const before = was === null ? '(none)' : JSON.stringify(was, null, 2);
        return { files: [], changes: `before:\n${before}\n\nafter:\n${JSON.stringify(permission, null, 2)}` };
      });
    load.then((p) => { setPreview(p); setStatus(null); }, (e: unknown) => setStatus({ kind: 'error', text: e instanceof ApiFailure ? `${e.message} [${e.code}] at ${e.path}` : (e as Error).message }));
  };

  const act = (what: 'check' | 'save' | 'remove' | 'copy') => {
    setPreview(null);
    const permission = what === 'remove' ? null : parsed();
    if (permission === undefined) return;
    setStatus({ kind: 'busy', text: what === 'check' ? 'Checking…' : 'Saving…' });
    const targets = what === 'copy' ? roles.filter((r) => r !== cell.role) : [cell.role];
    targets.reduce<Promise<unknown>>((p, role) => p.then(() => send(permission, what === 'check', role)), Promise.resolve()).then((r) => {
      const written = (r as { written?: string[] }).written ?? [];
      const whole = (r as { whole_project?: boolean }).whole_project ? ' (the whole project: the engine differed from the files)' : '';
      const where = (written.length > 0 ? ` — written to ${written.join(', ')} and applied` : mode === 'project' ? '' : ' — applied') + whole;
      setStatus({ kind: 'ok', text: what === 'check' ? 'The engine accepts this permission.' : `Saved${where}.` });
      if (what === 'remove') setExists(false);
      if (what === 'save') setExists(true);
      if (what !== 'check') onSaved();
    }, (e: unknown) => setStatus({ kind: 'error', text: e instanceof ApiFailure ? `${e.message} [${e.code}] at ${e.path}` : (e as Error).message }));
  };

  // The columns as a form: each box edits the JSON's `columns` (a "*" there checks them all).
  const current = (() => {
    try {
      const v = (JSON.parse(text ?? '') as { columns?: unknown }).columns;
      return v === '*' ? columns : Array.isArray(v) ? (v as string[]) : [];
    } catch {
      return null;
    }
  })();
  const toggle = (c: string) => {
    if (current === null || text === null) return;
    const next = current.includes(c) ? current.filter((x) => x !== c) : [...columns.filter((x) => x === c || current.includes(x))];
    setText(JSON.stringify({ ...(JSON.parse(text) as object), columns: next }, null, 2));
    setStatus(null);
  };
  return (
    <div>
      <h2>{cell.type} · {cell.schema}.{cell.name} · {cell.role}</h2>
      {cell.type !== 'delete' && columns.length > 0 && (
        <fieldset className="columns" disabled={current === null}>
          <legend>Columns</legend>
          {columns.map((c) => (
            <label key={c}><input type="checkbox" checked={current?.includes(c) ?? false} onChange={() => toggle(c)} /> {c}</label>
          ))}
        </fieldset>
      )}
      <label htmlFor="permission-json">Permission (columns, filter, check, set, limit, allow_aggregations, backend_only)</label>
      <textarea id="permission-json" className="mono" rows={16} spellCheck={false} value={text ?? ''} disabled={text === null}
        onChange={(e) => { setText(e.target.value); setStatus(null); setPreview(null); }} />
      <div className="toolbar">
        <button type="button" onClick={() => act('check')}>Validate</button>
        <button type="button" onClick={showPreview}>Preview changes</button>
        <button type="button" className="primary" onClick={() => act('save')}>Save</button>
        {exists && <button type="button" onClick={() => act('remove')}>Remove</button>}
        <button type="button" onClick={() => act('copy')} disabled={roles.length < 2}>Copy to other roles</button>
        <button type="button" onClick={() => go({ view: 'graphiql', role: cell.role })}>Try as this role</button>
        <button type="button" onClick={onClose}>Close</button>
      </div>
      {status && <p role={status.kind === 'error' ? 'alert' : 'status'} className={status.kind}>{status.text}</p>}
      {preview && (
        <section aria-label="Preview" className="preview">
          {preview.in_sync === false && <p className="half">The engine differs from the files: saving applies the whole project, with these changes.</p>}
          {preview.files.length === 0 && mode === 'project' && <p className="muted">No file changes.</p>}
          {preview.files.map((f) => <pre key={f.file} className="diff mono" aria-label={`Diff of ${f.file}`}>{f.diff.split('\n').map((l, i) => (
            <span key={i} className={l.startsWith('+') && !l.startsWith('+++') ? 'add' : l.startsWith('-') && !l.startsWith('---') ? 'del' : undefined}>{l}{'\n'}</span>
          ))}</pre>)}
          <pre className="mono" aria-label="Engine changes">{preview.changes}</pre>
        </section>
      )}
    </div>
  );
}
