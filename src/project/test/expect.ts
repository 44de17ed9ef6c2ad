import { isObject, type Json, type JsonObject } from '../../metadata/json.js';
import type { ExpectedCall, Expectation } from './format.js';

/** One unmet expectation: what was expected and what came, both shown as a diff. */
export interface Mismatch {
  message: string;
  expected: Json;
  actual: Json;
}

/** The GraphQL response of a case, as the engine sent it. */
export interface Response {
  data?: Json;
  errors?: { message: string; extensions?: { code?: string; path?: string } }[];
}

/** Deep equality of JSON values; object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Whether `row` has every key of `partial` with an equal value (nested maps matched partially too). */
export function rowMatches(row: unknown, partial: JsonObject): boolean {
  if (!isObject(row)) return false;
  return Object.entries(partial).every(([k, v]) => k in row && (isObject(v) ? rowMatches(row[k], v) : jsonEqual(row[k], v)));
}

/** The value at a dotted path of `data` (`author.articles`); list items along the way are flattened. */
export function atPath(data: Json | undefined, path: string): Json | undefined {
  let values: Json[] = data === undefined ? [] : [data];
  for (const key of path.split('.')) {
    const next: Json[] = [];
    for (const v of values) {
      const items = Array.isArray(v) ? v : [v];
      for (const item of items) if (isObject(item) && item[key] !== undefined) next.push(item[key] as Json);
    }
    if (next.length === 0) return undefined;
    values = next;
  }
  return values.length === 1 ? values[0] : values.flat();
}

function rows(data: Json | undefined, path: string): Json[] | null {
  const v = atPath(data, path);
  if (v === undefined) return null;
  return Array.isArray(v) ? v : [v];
}

function firstError(res: Response): Json {
  const e = res.errors?.[0];
  return e ? { code: e.extensions?.code ?? null, message: e.message } : null;
}

/** An event the operation created (`name` its trigger) or a call it made to an action handler (`name` the action). */
export interface Observed {
  name: string;
  payload: Json;
}

/** What the case saw besides the response: the events and the action calls of its operation. */
export interface Seen {
  events?: Observed[];
  actionCalls?: Observed[];
}

/**
 * Whether the observed list is exactly the expected one, in any order: each expected entry takes the first observed
 * one not yet taken with its name and a payload that has every key of the expected payload (nested maps partially).
 */
function callsMismatch(what: 'events' | 'action calls', key: 'trigger' | 'action', expected: ExpectedCall[], observed: Observed[]): Mismatch | null {
  const free = [...observed];
  const missing = expected.filter((e) => {
    const i = free.findIndex((o) => o.name === e.name && rowMatches(o.payload, e.payload ?? {}));
    if (i < 0) return true;
    free.splice(i, 1);
    return false;
  });
  if (missing.length === 0 && free.length === 0) return null;
  const shown = (list: { name: string; payload?: Json }[]): Json => list.map((o) => ({ [key]: o.name, ...(o.payload !== undefined ? { payload: o.payload } : {}) }));
  const message = missing.length > 0 ? `${what} missing: ${missing.map((m) => m.name).join(', ')}` : `${what} not expected: ${free.map((m) => m.name).join(', ')}`;
  return { message, expected: shown(expected), actual: shown(observed) };
}

/** What the response did not meet, in the order of the expectation's keys; empty when the case passes. */
export function check(exp: Expectation, res: Response, present: string[] = [], seen: Seen = {}): Mismatch[] {
  const out: Mismatch[] = [];
  const error = firstError(res);
  if (exp.error) {
    const e = error as { code: string | null; message: string } | null;
    const okCode = exp.error.code === undefined || e?.code === exp.error.code;
    const okMessage = exp.error.message === undefined || (e?.message ?? '').includes(exp.error.message);
    if (!e || !okCode || !okMessage) {
      out.push({ message: e ? 'the error differs' : 'expected an error, the operation succeeded', expected: { error: exp.error }, actual: e ? { error: e } : { data: res.data ?? null } });
    }
  } else if (error !== null && (exp.data !== undefined || exp.rowsInclude || exp.rowsExclude || exp.affectedRows !== undefined)) {
    out.push({ message: 'the operation failed', expected: exp.data !== undefined ? { data: exp.data } : 'no error', actual: { errors: res.errors as Json } });
    return out;
  }
  if (exp.data !== undefined && !jsonEqual(res.data, exp.data)) out.push({ message: 'data differs', expected: exp.data, actual: res.data ?? null });
  for (const [path, wanted] of Object.entries(exp.rowsInclude ?? {})) {
    const got = rows(res.data, path);
    const missing = wanted.filter((w) => !(got ?? []).some((row) => rowMatches(row, w)));
    if (missing.length > 0) out.push({ message: `rows missing at ${path}`, expected: missing, actual: got ?? null });
  }
  for (const [path, unwanted] of Object.entries(exp.rowsExclude ?? {})) {
    const got = rows(res.data, path) ?? [];
    const found = got.filter((row) => unwanted.some((u) => rowMatches(row, u)));
    if (found.length > 0) out.push({ message: `rows at ${path} that must not be there`, expected: [], actual: found });
  }
  if (exp.affectedRows !== undefined) {
    const data = isObject(res.data) ? res.data : {};
    const wanted = typeof exp.affectedRows === 'number'
      ? Object.keys(data).length === 1 ? { [Object.keys(data)[0] as string]: exp.affectedRows } : { '(one mutation field)': exp.affectedRows }
      : exp.affectedRows;
    const got: JsonObject = {};
    for (const k of Object.keys(wanted)) {
      const field = data[k];
      got[k] = isObject(field) && typeof field['affected_rows'] === 'number' ? field['affected_rows'] : null;
    }
    if (!jsonEqual(got, wanted)) out.push({ message: 'affected_rows differs', expected: wanted, actual: got });
  }
  if (exp.fieldsAbsent && present.length > 0) {
    out.push({ message: 'fields that must be absent from the schema of the role', expected: [], actual: present });
  }
  const events = exp.events ? callsMismatch('events', 'trigger', exp.events, seen.events ?? []) : null;
  if (events) out.push(events);
  const calls = exp.actionCalls ? callsMismatch('action calls', 'action', exp.actionCalls, seen.actionCalls ?? []) : null;
  if (calls) out.push(calls);
  return out;
}
