import { useEffect, useState } from 'react';
import { consoleApi, consoleInfo, exported, forgetExport, metadata } from './api.js';

interface Doc {
  actions?: { name: string; definition?: { kind?: string; type?: string; handler?: string }; permissions?: { role: string }[] }[];
  cron_triggers?: { name: string; schedule: string; webhook: string }[];
}

interface Inconsistent { type: string; reason: string; name?: string; definition?: unknown }

/** Reload, inconsistent objects with their reasons, and the engine's document to download. */
export function MetadataView() {
  const [items, setItems] = useState<Inconsistent[] | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [mode, setMode] = useState<string>('engine');
  const [doc, setDoc] = useState<Doc | null>(null);
  const [diff, setDiff] = useState<{ in_sync: boolean; text: string } | null>(null);
  const load = () => metadata('get_inconsistent_metadata').then((r) => setItems((r as { inconsistent_objects?: Inconsistent[] }).inconsistent_objects ?? []), (e: Error) => setStatus(e.message));
  const compare = () => consoleApi('diff').then((d) => setDiff(d as { in_sync: boolean; text: string }), (e: Error) => setStatus(e.message));
  useEffect(() => { void load(); void consoleInfo().then((i) => { setMode(i.mode); if (i.mode === 'project') void compare(); }); void exported(true).then((d) => setDoc(d as Doc), () => setDoc(null)); }, []);
  const reload = () => metadata('reload_metadata', { reload_remote_schemas: true }).then(() => { forgetExport(); setStatus('Metadata reloaded.'); return load(); }, (e: Error) => setStatus(e.message));
  const download = () => exported(true).then((doc) => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }));
    a.download = 'metadata.json';
    a.click();
    URL.revokeObjectURL(a.href);
  }, (e: Error) => setStatus(e.message));
  return (
    <div className="main">
      <h2>Metadata</h2>
      <p className="muted">{mode === 'project' ? "Edits made here are written to the project's metadata/ files, then applied: git holds the truth." : 'Served by the engine: edits go to the engine only; use engine metadata export to keep them in git.'}</p>
      <div className="toolbar">
        <button type="button" onClick={() => void reload()}>Reload metadata</button>
        <button type="button" onClick={() => void download()}>Export (download JSON)</button>
      </div>
      {status && <p role="status">{status}</p>}
      {mode === 'project' && (
        <>
          <h3>Engine and files</h3>
          <div className="toolbar"><button type="button" onClick={() => void compare()}>Compare again</button></div>
          {diff === null ? <p className="muted">Comparing…</p> : diff.in_sync ? <p className="ok">The engine holds exactly what the files say.</p> : (
            <>
              <p className="half">The engine differs from the files; engine metadata apply would make these changes:</p>
              <pre className="mono diff" aria-label="Engine against files">{diff.text}</pre>
            </>
          )}
        </>
      )}
      <h3>Inconsistent objects</h3>
      {items === null ? <p className="muted">Loading…</p> : items.length === 0 ? <p>None: the metadata is consistent.</p> : (
        <table className="grid"><thead><tr><th scope="col">type</th><th scope="col">name</th><th scope="col">reason</th></tr></thead>
          <tbody>{items.map((o, i) => <tr key={i}><td>{o.type}</td><td>{o.name ?? JSON.stringify(o.definition)}</td><td>{o.reason}</td></tr>)}</tbody></table>
      )}
      <h3>Actions</h3>
      {doc?.actions?.length ? (
        <table className="grid"><thead><tr><th scope="col">name</th><th scope="col">type</th><th scope="col">handler</th><th scope="col">roles</th></tr></thead>
          <tbody>{doc.actions.map((a) => <tr key={a.name}><td>{a.name}</td><td>{a.definition?.type ?? 'mutation'}{a.definition?.kind === 'asynchronous' ? ' (async)' : ''}</td>
            <td className="mono">{a.definition?.handler}</td><td>{(a.permissions ?? []).map((p) => p.role).join(', ')}</td></tr>)}</tbody></table>
      ) : <p className="muted">No actions.</p>}
      <h3>Cron triggers</h3>
      {doc?.cron_triggers?.length ? (
        <table className="grid"><thead><tr><th scope="col">name</th><th scope="col">schedule (UTC)</th><th scope="col">webhook</th></tr></thead>
          <tbody>{doc.cron_triggers.map((c) => <tr key={c.name}><td>{c.name}</td><td className="mono">{c.schedule}</td><td className="mono">{c.webhook}</td></tr>)}</tbody></table>
      ) : <p className="muted">No cron triggers.</p>}
    </div>
  );
}
