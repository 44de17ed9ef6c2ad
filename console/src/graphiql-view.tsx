import { useEffect, useMemo, useState } from 'react';
import { GraphiQL } from 'graphiql';
import { secret, tables } from './api.js';
import type { Theme } from './theme.js';

const GRAPHIQL_CSS = '/console/graphiql.css';

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
      </form>
      {typeof headers === 'string' ? <p role="alert" className="error">{headers}</p> : (
        <div className="graphiql-host">
          {/* A new identity is a new schema (per-role introspection and docs): GraphiQL starts over for it. */}
          <GraphiQL key={JSON.stringify(headers)} fetcher={fetcher} forcedTheme={theme} isHeadersEditorEnabled={false} />
        </div>
      )}
    </div>
  );
}
