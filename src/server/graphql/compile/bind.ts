import { ApiError } from '../../../errors.js';
import type { Json } from '../../../metadata/json.js';
import { compareCodePoints } from '../../../metadata/json.js';
import { arrayLiteral, type Param } from '../../bool-exp/compile.js';
import { sessionValue } from '../../auth/session-names.js';
import { validationFailed } from '../errors.js';
import { jsonPathLiteral } from './json-path.js';
import { NumLit, paramText, resolveVars, type GValue, type Variables, type VarRef } from './values.js';

/*
 * The one place where a compiled statement's parameter sources become the values of one request: a plan holds only
 * sources (PlanParam), so a cached plan serves every request, and every value reaches PostgreSQL as a parameter.
 */

/**
 * A parameter of a compiled statement: a BoolExp parameter, the whole session-variables object, a value holding
 * bound variables (converted when the request binds), or a limit/offset from a bound variable (checked then).
 */
export type PlanParam = Param | { kind: 'gvalue'; value: GValue; typeName: string }
  | { kind: 'count'; variable: VarRef; path: string; cap: number | null }
  /** A json/jsonb field's `path` argument from a bound variable (json-path.ts). */
  | { kind: 'json-path'; variable: VarRef; path: string }
  /** What an asynchronous action stores of its HTTP request (engine-api.md §5.2.4): the headers, the document text. */
  | { kind: 'request'; what: 'headers' | 'query' }
  /** The resource_version the request was planned at. */
  | { kind: 'version' };

/** The request values `request` parameters bind to: the client headers as JSON text, the GraphQL document. */
export interface RequestValues {
  headers: string;
  query: string;
  /** The resource_version the request was planned at (mutation statements check it, see `guard`). */
  version?: number;
}

/** The session variables as one JSON object, keys in code-point order (engine-api.md §2.4). */
export function sessionJsonText(session: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.keys(session).sort(compareCodePoints).map((k) => [k, session[k]])));
}

function countValue(p: Extract<PlanParam, { kind: 'count' }>, vars: Variables): string {
  const raw = vars[p.variable.name];
  const n = raw instanceof NumLit ? Number(raw.text) : Number(raw);
  if (n < 0) throw validationFailed(p.path, 'unexpected negative value');
  return String(p.cap === null ? n : Math.min(n, p.cap));
}

/** `$` alone is the whole value: an empty path, which `#>` answers with the value itself. */
const jsonPathValue = (p: Extract<PlanParam, { kind: 'json-path' }>, vars: Variables): string =>
  jsonPathLiteral(String(vars[p.variable.name]), p.path) ?? '{}';

/** The argument checks that wait for bound variables (§1.3 step 8), before any parameter is bound. */
export function checkBound(params: PlanParam[], vars: Variables): void {
  for (const p of params) {
    if (p.kind === 'count') countValue(p, vars);
    else if (p.kind === 'json-path') jsonPathValue(p, vars);
  }
}

/** Binds a statement's parameters for one request; throws `missing session variable` (§4.2). */
export function bind(params: PlanParam[], session: Record<string, string>, vars: Variables = {}, request: RequestValues = { headers: '[]', query: '' }): (string | null)[] {
  const json = sessionJsonText(session);
  return bindParams(params.map((p): Param => {
    if (p.kind === 'session-json') return { kind: 'value', text: json };
    if (p.kind === 'request') return { kind: 'value', text: request[p.what] };
    if (p.kind === 'version') {
      if (request.version === undefined) throw new Error('a mutation statement is bound without the planned resource_version');
      return { kind: 'value', text: String(request.version) };
    }
    if (p.kind === 'gvalue') return { kind: 'value', text: paramText(resolveVars(p.value, vars), p.typeName) };
    if (p.kind === 'count') return { kind: 'value', text: countValue(p, vars) };
    if (p.kind === 'json-path') return { kind: 'value', text: jsonPathValue(p, vars) };
    return p;
  }), session);
}

/**
 * Binds the parameters of a compiled BoolExp (permission filters and checks) for one request. A referenced session variable missing from the
 * request fails before any SQL runs (graphql-api.md §4.2).
 */
export function bindParams(params: Param[], sessionVariables: Record<string, string>): (string | null)[] {
  const session = (name: string): string => {
    // The name as the metadata wrote it (for the message); either prefix finds the variable.
    const v = sessionValue(sessionVariables, name);
    if (v === undefined) throw new ApiError(400, 'not-found', '$', `missing session variable: "${name}"`);
    return v;
  };
  return params.map((p) => {
    if (p.kind === 'value') return p.text;
    if (p.kind === 'session-json') return sessionJsonText(sessionVariables);
    if (p.kind === 'array') return arrayLiteral(p.items.map((i) => ('session' in i ? session(i.session) : i.text)));
    const v = session(p.name);
    if (!p.array) return v;
    if (v.trim().startsWith('[')) {
      const items = JSON.parse(v) as Json[];
      return arrayLiteral(items.map((x) => (x === null ? null : typeof x === 'string' ? x : JSON.stringify(x))));
    }
    return v;
  });
}

/** A root field's plan as far as binding is concerned: its key in the answer and, for a statement, its parameter sources. */
export interface BindableStatement {
  key: string;
  params?: PlanParam[];
}

/**
 * Binds every statement's parameters before any SQL runs: first the checks of bound variables' values (§1.3 step 8),
 * then the parameters, where a missing session variable fails (step 9).
 */
export function bindAll(statements: BindableStatement[], session: Record<string, string>, vars: Record<string, unknown>, request?: RequestValues): Map<string, (string | null)[]> {
  for (const st of statements) if (st.params) checkBound(st.params, vars);
  const out = new Map<string, (string | null)[]>();
  for (const st of statements) if (st.params) out.set(st.key, bind(st.params, session, vars, request));
  return out;
}

/** One statement's parameters, checked and bound as `bindAll` does for a whole operation. */
export function bindStatement(params: PlanParam[], session: Record<string, string>, vars: Variables): (string | null)[] {
  checkBound(params, vars);
  return bind(params, session, vars);
}
