/**
 * Entries of functions.yaml (engine-api.md §4.1.4, §6.1) and of the files of engine-api.md §6.5: remote_schemas.yaml,
 * query_collections.yaml (queries parsed with graphql's `parse`), allow_list.yaml and cron_triggers.yaml.
 */
import { GraphQLError } from 'graphql/error/GraphQLError.js';
import { parse } from 'graphql/language/parser.js';
import {
  boolean, checkKeys, comment, envName, exactlyOne, headers, integer, isObj, list, mapping, named, optional, qname, qnameText,
  string, urlTemplate, type Ctx, type Path,
} from './validate-core.js';

/**
 * A function entry: a FunctionName (a string, or `{schema?, name}`), or `{function: R FunctionName, configuration: O
 * {session_argument: O string}}`. A mapping with neither `function` nor `name` is read as the second form.
 */
export function checkFunction(c: Ctx, v: unknown, path: Path, i: number): void {
  if (typeof v === 'string') return;
  const o = mapping(c, v, path);
  if (!o) return;
  const short = !('function' in o) && 'name' in o;
  const name = qnameText(short ? o : o['function']);
  const thing = name === undefined ? `function #${i + 1}` : `function ${name}`;
  if (short) {
    checkKeys(c, o, path, thing, ['name', 'schema'], ['name']);
    optional(o, path, 'name', (x, p) => string(c, x, p));
    optional(o, path, 'schema', (x, p) => string(c, x, p));
    return;
  }
  checkKeys(c, o, path, thing, ['function', 'configuration'], ['function']);
  optional(o, path, 'function', (x, p) => qname(c, x, p, thing));
  optional(o, path, 'configuration', (x, p) => {
    const conf = mapping(c, x, p);
    if (!conf) return;
    checkKeys(c, conf, p, `"configuration" of ${thing}`, ['session_argument']);
    optional(conf, p, 'session_argument', (s, sp) => string(c, s, sp));
  });
}

export function checkRemoteSchema(c: Ctx, v: unknown, path: Path, i: number): void {
  const o = mapping(c, v, path);
  if (!o) return;
  const thing = named('remote schema', o['name'], i);
  checkKeys(c, o, path, thing, ['name', 'definition', 'comment'], ['name', 'definition']);
  optional(o, path, 'name', (x, p) => string(c, x, p));
  comment(c, o, path);
  optional(o, path, 'definition', (x, p) => {
    const d = mapping(c, x, p);
    if (!d) return;
    const dThing = `"definition" of ${thing}`;
    checkKeys(c, d, p, dThing, ['url', 'url_from_env', 'timeout_seconds', 'forward_client_headers', 'headers']);
    const which = exactlyOne(c, d, p, dThing, 'url', 'url_from_env');
    if (which === 'url') urlTemplate(c, d[which], [...p, which], 'url');
    if (which === 'url_from_env') envName(c, d[which], [...p, which], which);
    optional(d, p, 'timeout_seconds', (t, tp) => integer(c, t, tp, 1));
    optional(d, p, 'forward_client_headers', (f, fp) => boolean(c, f, fp));
    headers(c, d, p, thing);
  });
}

export function checkQueryCollection(c: Ctx, v: unknown, path: Path, i: number): void {
  const o = mapping(c, v, path);
  if (!o) return;
  const thing = named('query collection', o['name'], i);
  checkKeys(c, o, path, thing, ['name', 'definition', 'comment'], ['name', 'definition']);
  optional(o, path, 'name', (x, p) => string(c, x, p));
  comment(c, o, path);
  optional(o, path, 'definition', (x, p) => {
    const d = mapping(c, x, p);
    if (!d) return;
    checkKeys(c, d, p, `"definition" of ${thing}`, ['queries'], ['queries']);
    const collection = typeof o['name'] === 'string' ? `"${o['name']}"` : `#${i + 1}`;
    optional(d, p, 'queries', (qs, qp) => list(c, qs, qp)?.forEach((q, j) => query(c, q, [...qp, j], j, collection)));
  });
}

/** `collection` is `"<name>"`, or `#<n>` for a collection without a name. */
function query(c: Ctx, v: unknown, path: Path, i: number, collection: string): void {
  const o = mapping(c, v, path);
  if (!o) return;
  const thing = `${named('query', o['name'], i)} in collection ${collection}`;
  checkKeys(c, o, path, thing, ['name', 'query'], ['name', 'query']);
  optional(o, path, 'name', (x, p) => string(c, x, p));
  optional(o, path, 'query', (x, p) => {
    const text = string(c, x, p);
    if (text === undefined) return;
    try {
      parse(text);
    } catch (e) {
      if (!(e instanceof GraphQLError)) throw e;
      const loc = e.locations?.[0];
      const where = loc ? ` (query line ${loc.line}, column ${loc.column})` : '';
      c.error('query-invalid', `${thing} is not valid GraphQL: ${e.message}${where}`, p);
    }
  });
}

/** An allow-list entry `{collection}`; `collections` are the names of query_collections.yaml. */
export function checkAllowListEntry(c: Ctx, v: unknown, path: Path, i: number, collections: Set<string>): void {
  const o = mapping(c, v, path);
  if (!o) return;
  const thing = named('allow list entry', o['collection'], i);
  checkKeys(c, o, path, thing, ['collection'], ['collection']);
  optional(o, path, 'collection', (x, p) => {
    const name = string(c, x, p);
    if (name !== undefined && !collections.has(name)) {
      c.error('reference-invalid', `allow list entry refers to unknown query collection "${name}"`, p);
    }
  });
}

/** The names of the query collections of a file's value (malformed entries are reported elsewhere). */
export function collectionNames(value: unknown): Set<string> {
  const items = Array.isArray(value) ? value : [];
  return new Set(items.filter(isObj).map((q) => q['name']).filter((n): n is string => typeof n === 'string'));
}

export function checkCronTrigger(c: Ctx, v: unknown, path: Path, i: number): void {
  const o = mapping(c, v, path);
  if (!o) return;
  const thing = named('cron trigger', o['name'], i);
  const required = ['name', 'webhook', 'schedule', 'include_in_metadata'];
  checkKeys(c, o, path, thing, [...required, 'payload', 'retry_conf', 'headers', 'comment'], required);
  optional(o, path, 'name', (x, p) => string(c, x, p));
  optional(o, path, 'webhook', (x, p) => urlTemplate(c, x, p, 'webhook'));
  optional(o, path, 'schedule', (x, p) => {
    const s = string(c, x, p);
    if (s !== undefined) for (const message of cronProblems(s)) c.error('cron-schedule-invalid', message, p);
  });
  optional(o, path, 'include_in_metadata', (x, p) => boolean(c, x, p));
  optional(o, path, 'retry_conf', (x, p) => mapping(c, x, p));
  headers(c, o, path, thing);
  comment(c, o, path);
}

/** The five fields of a cron schedule with their ranges; day of week 0–7 (0 and 7 are Sunday, as in cron). */
const CRON_FIELDS: [string, number, number][] = [
  ['minute', 0, 59], ['hour', 0, 23], ['day-of-month', 1, 31], ['month', 1, 12], ['day-of-week', 0, 7],
];
const CRON_ITEM = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/;

function cronFieldOk(text: string, min: number, max: number): boolean {
  return text.split(',').every((item) => {
    const m = CRON_ITEM.exec(item);
    if (!m) return false;
    if (m[4] !== undefined && Number(m[4]) < 1) return false;
    if (m[1] === '*') return true;
    const from = Number(m[2]);
    const to = m[3] === undefined ? from : Number(m[3]);
    return from >= min && to <= max && from <= to;
  });
}

/**
 * The problems of a cron schedule: five whitespace-separated fields of numbers, `*`, ranges `a-b`, lists `a,b` and
 * steps `/n` (n ≥ 1), each within its range. `<f>` of `field "<f>" is out of range` is the field's name
 * (`minute`, …, `day-of-week`); a field that is not of that syntax is reported the same way, one message per field.
 */
export function cronProblems(schedule: string): string[] {
  const fields = schedule.trim().split(/\s+/).filter((f) => f !== '');
  if (fields.length !== CRON_FIELDS.length) {
    return [`invalid cron schedule "${schedule}": expected 5 fields (minute hour day-of-month month day-of-week)`];
  }
  return CRON_FIELDS.flatMap(([name, min, max], i) =>
    cronFieldOk(fields[i] as string, min, max) ? [] : [`invalid cron schedule "${schedule}": field "${name}" is out of range`]);
}
