import { useEffect, useMemo, useRef, useState } from 'react';
import { GraphiQL } from 'graphiql';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { ApiFailure, secret, tables } from './api.js';
import type { Theme } from './theme.js';

const GRAPHIQL_CSS = '/console/graphiql.css';

/**
 * The explorer (a query built by ticking fields of the role's schema). Made once: GraphiQL tells plugins apart by
 * identity, so a new object at each render would close the panel. Its colours are GraphiQL's variables, so it follows
 * the forced theme; the attribution (a link to another host) is left out.
 */
const PLUGINS = [explorerPlugin({ showAttribution: false })];

/** GraphiQL's stylesheet is a file of its own (scripts/bundle.mjs): the other views never load it. */
function useStylesheet(href: string): void {
  useEffect(() => {
    if (document.querySelector(`link[href="${href}"]`)) return;
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = href;
    document.head.append(link);
  }, [href]);
}

interface Identity { role: string; variables: string; jwt: string }

/**
 * The headers of a request as the chosen identity: a JWT alone (as the application would send it), or the admin secret
 * with x-engine-role and session variables — how the engine lets an admin act as any role.
 */
export function identityHeaders(id: Identity): Record<string, string> | string {
  if (id.jwt.trim() !== '') return { authorization: `Bearer ${id.jwt.trim()}` };
  const headers: Record<string, string> = {};
  const s = secret.get();
  if (s) headers['x-engine-admin-secret'] = s;
  if (id.role !== 'admin') headers['x-engine-role'] = id.role;
  if (id.variables.trim() !== '') {
    let vars: unknown;
    try {
      vars = JSON.parse(id.variables);
    } catch {
      return 'Session variables must be a JSON object';
    }
    if (typeof vars !== 'object' || vars === null || Array.isArray(vars)) return 'Session variables must be a JSON object';
    for (const [k, v] of Object.entries(vars)) {
      const name = k.toLowerCase();
      headers[name.startsWith('x-engine-') || name.startsWith('x-hasura-') ? name : `x-engine-${name}`] = String(v);
    }
  }
  return headers;
}

interface Explained { field: string; sql: string | null; plan: string[] | null }

/** The session of an identity as the explain API takes it (`user`): the role and the session variables. */
function explainUser(id: Identity): Record<string, string> {
  const user: Record<string, string> = {};
  if (id.role !== 'admin') user['x-engine-role'] = id.role;
  const headers = identityHeaders(id);
  if (typeof headers !== 'string') for (const [k, v] of Object.entries(headers)) if (k.startsWith('x-engine-') && k !== 'x-engine-admin-secret') user[k] = v;
  return user;
}

/** The generated SQL and PostgreSQL's plan of each root field, as the chosen role (POST /v1/graphql/explain, admin only). */
async function explain(query: string, variables: string, id: Identity): Promise<Explained[]> {
  let vars: unknown = {};
  if (variables.trim() !== '') vars = JSON.parse(variables);
  const s = secret.get();
  const res = await fetch('/v1/graphql/explain', {
    method: 'POST', headers: { 'content-type': 'application/json', ...(s ? { 'x-engine-admin-secret': s } : {}) },
    body: JSON.stringify({ query: { query, variables: vars }, user: explainUser(id) }),
  });
  const body = (await res.json()) as unknown;
  if (!res.ok) {
    const b = body as { error?: string; code?: string; path?: string };
    throw new ApiFailure(b.error ?? `HTTP ${res.status}`, b.code ?? `http-${res.status}`, b.path ?? '$', body);
  }
  return body as Explained[];
}

function ExplainPanel({ result, onClose }: { result: Explained[] | string; onClose: () => void }) {
  return (
    <section className="explain" aria-label="Explain">
      <div className="toolbar"><strong>Explain</strong><button type="button" onClick={onClose}>Close</button></div>
      {typeof result === 'string' ? <p role="alert" className="error">{result}</p> : result.map((r) => (
        <div key={r.field}>
          <h3 className="mono">{r.field}</h3>
          <pre className="mono" aria-label={`SQL of ${r.field}`}>{r.sql ?? '(no SQL: answered without the database)'}</pre>
          {r.plan && <pre className="mono" aria-label={`Plan of ${r.field}`}>{r.plan.join('\n')}</pre>}
        </div>
      ))}
    </section>
  );
}

export default function GraphiqlView({ role, theme }: { role?: string | undefined; theme: Theme }) {
  useStylesheet(GRAPHIQL_CSS);
  const [roles, setRoles] = useState<string[]>([]);
  const [draft, setDraft] = useState<Identity>({ role: role ?? 'admin', variables: '', jwt: '' });
  const [identity, setIdentity] = useState<Identity>(draft);
  useEffect(() => void tables('', 0, 0).then((p) => setRoles(p.roles), () => setRoles([])), []);
  useEffect(() => {
    if (role) {
      const next = { ...draft, role };
      setDraft(next);
      setIdentity(next);
    }
  }, [role]);
  const headers = identityHeaders(identity);
  const editing = useRef({ query: '', variables: '' });
  const [explained, setExplained] = useState<Explained[] | string | null>(null);
  const runExplain = () => {
    // The editor's text as it is now (GraphiQL reports edits after a debounce); else the last one reported, else what
    // GraphiQL restored from its storage.
    const editor = document.querySelector('.graphiql-query-editor .CodeMirror') as (Element & { CodeMirror?: { getValue(): string } }) | null;
    const query = editor?.CodeMirror?.getValue() || editing.current.query || localStorage.getItem('graphiql:query') || '';
    const variables = editing.current.variables || localStorage.getItem('graphiql:variables') || '';
    explain(query, variables, identity).then(setExplained, (e: unknown) => {
      setExplained(e instanceof ApiFailure ? `${e.message} [${e.code}] at ${e.path}` : (e as Error).message);
    });
  };
  const fetcher = useMemo(() => async (params: unknown) => {
    const res = await fetch('/v1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...(typeof headers === 'string' ? {} : headers) }, body: JSON.stringify(params) });
    return res.json() as Promise<Record<string, unknown>>;
  }, [JSON.stringify(headers)]);
  const choices = [...new Set(['admin', ...roles, draft.role])];
  return (
    <div className="graphiql-view">
      <form className="toolbar identity" aria-label="Identity" onSubmit={(e) => { e.preventDefault(); setIdentity(draft); }}>
        <label>Role <select aria-label="Role" value={draft.role} onChange={(e) => setDraft({ ...draft, role: e.target.value })}>
          {choices.map((r) => <option key={r} value={r}>{r}</option>)}
        </select></label>
        <label>Session variables <input aria-label="Session variables" className="mono" placeholder='{"x-engine-user-id": "1"}' value={draft.variables}
          onChange={(e) => setDraft({ ...draft, variables: e.target.value })} /></label>
        <label>JWT <input aria-label="JWT" className="mono" placeholder="instead of role and variables" value={draft.jwt} onChange={(e) => setDraft({ ...draft, jwt: e.target.value })} /></label>
        <button type="submit">Use</button>
        <span className="muted" aria-live="polite">as {identity.jwt ? 'JWT' : identity.role}</span>
        <button type="button" onClick={runExplain} disabled={identity.jwt.trim() !== ''} title={identity.jwt.trim() !== '' ? 'explain takes a role and session variables, not a JWT' : 'the SQL and plan of the query in the editor'}>Explain</button>
      </form>
      {explained !== null && <ExplainPanel result={explained} onClose={() => setExplained(null)} />}
      {typeof headers === 'string' ? <p role="alert" className="error">{headers}</p> : (
        <div className="graphiql-host">
          {/* A new identity is a new schema (per-role introspection and docs): GraphiQL starts over for it. */}
          <GraphiQL key={JSON.stringify(headers)} fetcher={fetcher} forcedTheme={theme} isHeadersEditorEnabled={false} plugins={PLUGINS}
            onEditQuery={(q) => { editing.current.query = q; }} onEditVariables={(v) => { editing.current.variables = v; }} />
        </div>
      )}
    </div>
  );
}
