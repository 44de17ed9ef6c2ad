import { useEffect, useState } from 'react';
import { ApiFailure, consoleApi, exported, forgetExport, metadata } from './api.js';
import { go } from './route.js';
import { permissionOf, type PermissionType } from '../../src/metadata/table-page.js';

export interface Cell { schema: string; name: string; role: string; type: PermissionType }

const TEMPLATES: Record<PermissionType, object> = {
  select: { columns: '*', filter: {} }, insert: { columns: '*', check: {} }, update: { columns: '*', filter: {}, check: {} }, delete: { filter: {} },
};

type Status = { kind: 'ok' | 'error' | 'busy'; text: string } | null;

/** The permission object of a cell as JSON, checked by the engine before anything is written, then saved. */
export function PermissionEditor({ cell, mode, roles, onSaved, onClose }: {
  cell: Cell; mode: 'project' | 'engine'; roles: string[]; onSaved: () => void; onClose: () => void;
}) {
  const [text, setText] = useState<string | null>(null);
  const [exists, setExists] = useState(false);
  const [status, setStatus] = useState<Status>(null);
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
    if (!dryRun) await metadata('bulk', ops);
    forgetExport();
    return { written: [] };
  };

  const act = (what: 'check' | 'save' | 'remove' | 'copy') => {
    const permission = what === 'remove' ? null : parsed();
    if (permission === undefined) return;
    setStatus({ kind: 'busy', text: what === 'check' ? 'Checking…' : 'Saving…' });
    const targets = what === 'copy' ? roles.filter((r) => r !== cell.role) : [cell.role];
    targets.reduce<Promise<unknown>>((p, role) => p.then(() => send(permission, what === 'check', role)), Promise.resolve()).then((r) => {
      const written = (r as { written?: string[] }).written ?? [];
      const where = written.length > 0 ? ` — written to ${written.join(', ')} and applied` : mode === 'project' ? '' : ' — applied';
      setStatus({ kind: 'ok', text: what === 'check' ? 'The engine accepts this permission.' : `Saved${where}.` });
      if (what === 'remove') setExists(false);
      if (what === 'save') setExists(true);
      if (what !== 'check') onSaved();
    }, (e: unknown) => setStatus({ kind: 'error', text: e instanceof ApiFailure ? `${e.message} [${e.code}] at ${e.path}` : (e as Error).message }));
  };

  return (
    <div>
      <h2>{cell.type} · {cell.schema}.{cell.name} · {cell.role}</h2>
      <label htmlFor="permission-json">Permission (columns, filter, check, set, limit, allow_aggregations, backend_only)</label>
      <textarea id="permission-json" className="mono" rows={16} spellCheck={false} value={text ?? ''} disabled={text === null}
        onChange={(e) => { setText(e.target.value); setStatus(null); }} />
      <div className="toolbar">
        <button type="button" onClick={() => act('check')}>Validate</button>
        <button type="button" className="primary" onClick={() => act('save')}>Save</button>
        {exists && <button type="button" onClick={() => act('remove')}>Remove</button>}
        <button type="button" onClick={() => act('copy')} disabled={roles.length < 2}>Copy to other roles</button>
        <button type="button" onClick={() => go({ view: 'graphiql', role: cell.role })}>Try as this role</button>
        <button type="button" onClick={onClose}>Close</button>
      </div>
      {status && <p role={status.kind === 'error' ? 'alert' : 'status'} className={status.kind}>{status.text}</p>}
    </div>
  );
}
