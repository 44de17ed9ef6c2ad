import { StrictMode, Suspense, lazy, useEffect, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { consoleInfo, login, secret, type ConsoleInfo } from './api.js';
import { TablesView } from './tables.js';
import { PermissionsView } from './permissions.js';
import { MetadataView } from './metadata-view.js';
import { EventsView } from './events-view.js';
import { SchemaView } from './schema-view.js';
import { ScheduledView } from './scheduled-view.js';
import { useRoute, go, type Route } from './route.js';
import { applyTheme, currentTheme, type Theme } from './theme.js';

// GraphiQL (React, CodeMirror, its CSS) is most of the bundle: loaded only when its view is opened.
const GraphiqlView = lazy(() => import('./graphiql-view.js'));

applyTheme(currentTheme());

function Login({ onDone }: { onDone: () => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    login(value).then(onDone, (err: Error) => {
      setError(err.message);
      setBusy(false);
    });
  };
  return (
    <main className="login">
      <form onSubmit={submit} aria-label="Log in">
        <h1>engine console</h1>
        <label htmlFor="admin-secret">Admin secret</label>
        <input id="admin-secret" name="admin-secret" type="password" autoFocus autoComplete="current-password" value={value} onChange={(e) => setValue(e.target.value)} />
        <button type="submit" disabled={busy}>Log in</button>
        {error && <p role="alert" className="error">{error}</p>}
        <p className="muted">Kept in this tab's session storage only.</p>
      </form>
    </main>
  );
}

const VIEWS: { route: Route['view']; label: string }[] = [
  { route: 'tables', label: 'Tables' }, { route: 'permissions', label: 'Permissions' },
  { route: 'graphiql', label: 'GraphiQL' }, { route: 'schema', label: 'Schema' }, { route: 'events', label: 'Events' },
  { route: 'scheduled', label: 'Scheduled' }, { route: 'metadata', label: 'Metadata' },
];

function App() {
  const [loggedIn, setLoggedIn] = useState(secret.get() !== null);
  const [info, setInfo] = useState<ConsoleInfo | null>(null);
  const [theme, setTheme] = useState<Theme>(currentTheme());
  const route = useRoute();
  useEffect(() => void consoleInfo().then(setInfo), []);
  if (!loggedIn) return <Login onDone={() => setLoggedIn(true)} />;
  const toggle = () => {
    const next = theme === 'dark' ? 'light' : 'dark';
    applyTheme(next);
    setTheme(next);
  };
  return (
    <div className="app">
      <header>
        <strong className="brand">engine</strong>
        <nav aria-label="Views">
          {VIEWS.map((v) => (
            <a key={v.route} href={`#/${v.route}`} aria-current={route.view === v.route ? 'page' : undefined}>{v.label}</a>
          ))}
        </nav>
        <span className="muted mode">{info?.mode === 'project' ? 'project: edits are written to metadata/' : 'engine'}</span>
        <button type="button" onClick={toggle} aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}>{theme === 'dark' ? 'Light' : 'Dark'}</button>
        <button type="button" onClick={() => { secret.clear(); setLoggedIn(false); go({ view: 'tables' }); }}>Log out</button>
      </header>
      <div className="view">
        {route.view === 'tables' && <TablesView route={route} />}
        {route.view === 'permissions' && <PermissionsView mode={info?.mode ?? 'engine'} />}
        {route.view === 'graphiql' && (
          <Suspense fallback={<p className="muted">Loading GraphiQL…</p>}>
            <GraphiqlView role={route.role} theme={theme} />
          </Suspense>
        )}
        {route.view === 'events' && <EventsView />}
        {route.view === 'metadata' && <MetadataView />}
        {route.view === 'schema' && <SchemaView mode={info?.mode ?? 'engine'} />}
        {route.view === 'scheduled' && <ScheduledView />}
      </div>
    </div>
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(<StrictMode><App /></StrictMode>);
