import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { CliError } from '../../errors.js';
import { isObject, type Json, type JsonObject } from '../../metadata/json.js';

/**
 * The test files of `engine test` (issue 33): `tests/**\/*.test.yaml`, each a map with an optional `seed` and its
 * `cases`. schemas/test.schema.json (src/project/test/json-schema.ts) describes the same shape for editors; this module
 * is what the command enforces, each problem at its `file:line:col`.
 */

/** Rows by table (`table` or `schema.table`), or SQL. */
export type Seed = { sql: string } | { rows: Record<string, JsonObject[]> };

export interface Expectation {
  data?: Json;
  /** Path in `data` (dots) → partial rows that must each match a row of the array there. */
  rowsInclude?: Record<string, JsonObject[]>;
  /** Path in `data` → partial rows that no row of the array there may match. */
  rowsExclude?: Record<string, JsonObject[]>;
  /** Root field → its `affected_rows`; a number alone: the operation's one root field. */
  affectedRows?: number | Record<string, number>;
  /** The first error's code (exact) and message (contained). */
  error?: { code?: string; message?: string };
  /** `Type.field` names the role's schema must not have (a hidden column, a missing root field). */
  fieldsAbsent?: string[];
  /** Every event the operation created, in any order: each entry matches one (trigger name, partial payload). */
  events?: ExpectedCall[];
  /** Every call the operation made to an action handler, in any order: each entry matches one. */
  actionCalls?: ExpectedCall[];
}

/** An event (`name` the trigger) or an action call (`name` the action); `payload` is matched partially. */
export interface ExpectedCall {
  name: string;
  payload?: JsonObject;
}

/** What the mocked handler of an action answers during a case. */
export interface ActionResponse {
  status: number;
  body: Json;
}

export interface TestCase {
  name: string;
  role: string;
  session: Record<string, string>;
  seed?: Seed;
  query: string;
  variables?: JsonObject;
  operationName?: string;
  /** Action name → the answer of its handler, mocked for the case (the project's handlers are never called). */
  actionResponses?: Record<string, ActionResponse>;
  expect: Expectation;
  /** Where the case is written: `file:line`. */
  file: string;
  line: number;
}

export interface TestFile {
  file: string;
  seed?: Seed;
  cases: TestCase[];
}

const FILE_KEYS = new Set(['seed', 'cases']);
const CASE_KEYS = new Set(['name', 'role', 'session', 'jwt_claims', 'seed', 'query', 'variables', 'operation_name', 'action_responses', 'expect']);
const EXPECT_KEYS = new Set(['data', 'rows_include', 'rows_exclude', 'affected_rows', 'error', 'fields_absent', 'events', 'action_calls']);

class Reader {
  constructor(readonly file: string, readonly doc: Document, readonly lines: LineCounter) {}

  fail(node: Node | null | undefined, message: string, path: string): never {
    const at = node?.range ? this.lines.linePos(node.range[0]) : { line: 1, col: 1 };
    throw new CliError('test-file-invalid', message, 1, { file: this.file, line: at.line, column: at.col, path });
  }

  node(parent: Node | null | undefined, key: string | number): Node | undefined {
    if (isMap(parent)) {
      const pair = parent.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
      return (pair?.value ?? pair?.key) as Node | undefined;
    }
    if (isSeq(parent) && typeof key === 'number') return parent.items[key] as Node | undefined;
    return undefined;
  }

  line(node: Node | undefined): number {
    return node?.range ? this.lines.linePos(node.range[0]).line : 1;
  }
}

function checkKeys(r: Reader, node: Node | undefined, value: JsonObject, allowed: Set<string>, path: string): void {
  for (const k of Object.keys(value)) {
    if (!allowed.has(k)) r.fail(keyNode(node, k) ?? node, `unknown key "${k}" (expected one of ${[...allowed].join(', ')})`, `${path}.${k}`);
  }
}

function keyNode(parent: Node | undefined, key: string): Node | undefined {
  if (!isMap(parent)) return undefined;
  return parent.items.find((p) => (p.key as { value?: unknown } | null)?.value === key)?.key as Node | undefined;
}

const isRowList = (v: unknown): v is JsonObject[] => Array.isArray(v) && v.every(isObject);

function seedOf(r: Reader, node: Node | undefined, v: unknown, path: string): Seed {
  if (typeof v === 'string') return { sql: v };
  if (isObject(v) && Object.values(v).every(isRowList)) return { rows: v as Record<string, JsonObject[]> };
  return r.fail(node, 'seed must be SQL text or a map of table name to a list of rows', path);
}

/** The incumbent's `x-hasura-*` names are the engine's `x-engine-*` ones; names are case-insensitive. */
const sessionName = (k: string): string => k.toLowerCase().replace(/^x-hasura-/, 'x-engine-');

function stringMap(r: Reader, node: Node | undefined, v: unknown, path: string): Record<string, string> {
  if (!isObject(v)) return r.fail(node, 'expected a map of names to values', path);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') out[sessionName(k)] = String(x);
    else if (Array.isArray(x) || isObject(x)) out[sessionName(k)] = JSON.stringify(x);
  }
  return out;
}

/**
 * The role and session variables a JWT with these claims would give, as the engine reads them: the claims of the
 * `…/jwt/claims` namespace when there is one, else the top level; `*-default-role` is the role unless the case names
 * one.
 */
export function sessionFromClaims(claims: JsonObject): { role?: string; session: Record<string, string> } {
  const nsKey = Object.keys(claims).find((k) => /\/jwt\/claims$/.test(k) && isObject(claims[k]));
  const ns = nsKey ? (claims[nsKey] as JsonObject) : claims;
  const session: Record<string, string> = {};
  let role: string | undefined;
  for (const [k, v] of Object.entries(ns)) {
    const key = sessionName(k);
    if (!key.startsWith('x-engine-')) continue;
    if (key.endsWith('-default-role') && typeof v === 'string') role = v;
    else if (key.endsWith('-allowed-roles')) continue;
    else session[key] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return role === undefined ? { session } : { role, session };
}

function rowsByPath(r: Reader, node: Node | undefined, v: unknown, path: string): Record<string, JsonObject[]> {
  if (!isObject(v) || !Object.values(v).every(isRowList)) return r.fail(node, 'expected a map of a path in data (e.g. article or author.articles) to a list of partial rows', path);
  return v as Record<string, JsonObject[]>;
}

/** `events` (each `{trigger, payload?}`) or `action_calls` (each `{action, payload?}`). */
function callsOf(r: Reader, node: Node | undefined, v: unknown, nameKey: 'trigger' | 'action', path: string): ExpectedCall[] {
  const shape = `${path.endsWith('events') ? 'events' : 'action_calls'} must be a list of maps with ${nameKey} (a name) and optionally payload (a map matched partially)`;
  if (!Array.isArray(v)) return r.fail(node, shape, path);
  return v.map((item, i) => {
    const at = r.node(node, i);
    if (!isObject(item) || typeof item[nameKey] !== 'string' || item[nameKey] === '' || ('payload' in item && !isObject(item['payload']))) return r.fail(at ?? node, shape, `${path}[${i}]`);
    checkKeys(r, at, item, new Set([nameKey, 'payload']), `${path}[${i}]`);
    return { name: item[nameKey] as string, ...(isObject(item['payload']) ? { payload: item['payload'] } : {}) };
  });
}

function actionResponsesOf(r: Reader, node: Node | undefined, v: unknown, path: string): Record<string, ActionResponse> {
  const shape = 'action_responses must map an action name to {status (optional, default 200), body}';
  if (!isObject(v)) return r.fail(node, shape, path);
  const out: Record<string, ActionResponse> = {};
  for (const [name, x] of Object.entries(v)) {
    const at = r.node(node, name);
    const status = isObject(x) ? (x['status'] ?? 200) : null;
    if (!isObject(x) || !('body' in x) || typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) return r.fail(at ?? node, shape, `${path}.${name}`);
    checkKeys(r, at, x, new Set(['status', 'body']), `${path}.${name}`);
    out[name] = { status, body: x['body'] as Json };
  }
  return out;
}

function expectationOf(r: Reader, node: Node | undefined, v: unknown, path: string): Expectation {
  if (!isObject(v) || Object.keys(v).length === 0) return r.fail(node, `expect must be a map with at least one of ${[...EXPECT_KEYS].join(', ')}`, path);
  checkKeys(r, node, v, EXPECT_KEYS, path);
  const out: Expectation = {};
  const at = (k: string) => r.node(node, k);
  if ('data' in v) out.data = v['data'] as Json;
  if ('rows_include' in v) out.rowsInclude = rowsByPath(r, at('rows_include'), v['rows_include'], `${path}.rows_include`);
  if ('rows_exclude' in v) out.rowsExclude = rowsByPath(r, at('rows_exclude'), v['rows_exclude'], `${path}.rows_exclude`);
  if ('affected_rows' in v) {
    const a = v['affected_rows'];
    if (typeof a === 'number' && Number.isInteger(a)) out.affectedRows = a;
    else if (isObject(a) && Object.values(a).every((n) => typeof n === 'number' && Number.isInteger(n))) out.affectedRows = a as Record<string, number>;
    else r.fail(at('affected_rows'), 'affected_rows must be an integer or a map of mutation field to integer', `${path}.affected_rows`);
  }
  if ('error' in v) {
    const e = v['error'];
    if (!isObject(e) || Object.keys(e).some((k) => k !== 'code' && k !== 'message') || Object.values(e).some((x) => typeof x !== 'string')) {
      r.fail(at('error'), 'error must be a map with code and/or message (strings)', `${path}.error`);
    }
    out.error = e as { code?: string; message?: string };
  }
  if ('fields_absent' in v) {
    const f = v['fields_absent'];
    if (!Array.isArray(f) || !f.every((x) => typeof x === 'string' && /^[_A-Za-z][_0-9A-Za-z]*\.[_A-Za-z][_0-9A-Za-z]*$/.test(x))) {
      r.fail(at('fields_absent'), 'fields_absent must be a list of Type.field names', `${path}.fields_absent`);
    }
    out.fieldsAbsent = f as string[];
  }
  if ('events' in v) out.events = callsOf(r, at('events'), v['events'], 'trigger', `${path}.events`);
  if ('action_calls' in v) out.actionCalls = callsOf(r, at('action_calls'), v['action_calls'], 'action', `${path}.action_calls`);
  if (out.error && (out.data !== undefined || out.rowsInclude || out.affectedRows !== undefined)) {
    r.fail(node, 'an expected error cannot be combined with data, rows_include or affected_rows', path);
  }
  return out;
}

function caseOf(r: Reader, node: Node | undefined, v: unknown, path: string): TestCase {
  if (!isObject(v)) return r.fail(node, 'a case must be a map', path);
  checkKeys(r, node, v, CASE_KEYS, path);
  const at = (k: string) => r.node(node, k);
  for (const k of ['name', 'query']) {
    if (typeof v[k] !== 'string' || (v[k] as string).trim() === '') r.fail(at(k) ?? node, `${k} is required (a non-empty string)`, `${path}.${k}`);
  }
  if (!('expect' in v)) r.fail(node, 'expect is required', `${path}.expect`);
  let role = typeof v['role'] === 'string' ? v['role'] : undefined;
  let session: Record<string, string> = {};
  if ('jwt_claims' in v) {
    if ('session' in v) r.fail(at('jwt_claims'), 'give session or jwt_claims, not both', `${path}.jwt_claims`);
    if (!isObject(v['jwt_claims'])) r.fail(at('jwt_claims'), 'jwt_claims must be a map', `${path}.jwt_claims`);
    const fromClaims = sessionFromClaims(v['jwt_claims'] as JsonObject);
    session = fromClaims.session;
    role ??= fromClaims.role;
  } else if ('session' in v) session = stringMap(r, at('session'), v['session'], `${path}.session`);
  if (role === undefined || role === '') return r.fail(at('role') ?? node, 'role is required (or a default role in jwt_claims)', `${path}.role`);
  if ('variables' in v && !isObject(v['variables'])) r.fail(at('variables'), 'variables must be a map', `${path}.variables`);
  if ('operation_name' in v && typeof v['operation_name'] !== 'string') r.fail(at('operation_name'), 'operation_name must be a string', `${path}.operation_name`);
  return {
    name: v['name'] as string, role, session, query: v['query'] as string,
    ...('seed' in v ? { seed: seedOf(r, at('seed'), v['seed'], `${path}.seed`) } : {}),
    ...('variables' in v ? { variables: v['variables'] as JsonObject } : {}),
    ...('operation_name' in v ? { operationName: v['operation_name'] as string } : {}),
    ...('action_responses' in v ? { actionResponses: actionResponsesOf(r, at('action_responses'), v['action_responses'], `${path}.action_responses`) } : {}),
    expect: expectationOf(r, at('expect'), v['expect'], `${path}.expect`),
    file: r.file, line: r.line(node),
  };
}

/** Parses one test file's text; `file` is the path as messages show it. Throws `test-file-invalid` at the first problem. */
export function parseTestFile(file: string, text: string): TestFile {
  const lines = new LineCounter();
  const doc = parseDocument(text.replace(/^\uFEFF/, ''), { lineCounter: lines, uniqueKeys: true, prettyErrors: false, schema: 'core' });
  const r = new Reader(file, doc, lines);
  const err = doc.errors[0];
  if (err) {
    const at = lines.linePos(err.pos[0]);
    throw new CliError('test-file-invalid', err.message.split('\n')[0] ?? 'YAML syntax error', 1, { file, line: at.line, column: at.col });
  }
  const root = doc.contents as Node | null;
  const v: unknown = doc.toJS({ maxAliasCount: 100 });
  if (!isObject(v)) return r.fail(root, 'a test file must be a map with "cases"', '$');
  checkKeys(r, root ?? undefined, v, FILE_KEYS, '$');
  const casesNode = r.node(root, 'cases');
  if (!Array.isArray(v['cases']) || v['cases'].length === 0) return r.fail(casesNode ?? root, 'cases must be a non-empty list', '$.cases');
  const cases = v['cases'].map((c, i) => caseOf(r, r.node(casesNode, i), c, `$.cases[${i}]`));
  const names = new Set<string>();
  cases.forEach((c, i) => {
    if (names.has(c.name)) r.fail(r.node(r.node(casesNode, i), 'name'), `two cases are named "${c.name}"`, `$.cases[${i}].name`);
    names.add(c.name);
  });
  return { file, ...('seed' in v ? { seed: seedOf(r, r.node(root, 'seed'), v['seed'], '$.seed') } : {}), cases };
}
