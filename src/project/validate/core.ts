/**
 * The building blocks of offline validation (cli.md §4.13): a context that turns paths into positions, the
 * `metadata-invalid` shape messages of cli.md §6, unknown-key warnings with the nearest known key, and the URL-template
 * and env-variable rules. The walker of walk.ts words every shape problem with them.
 *
 * Message conventions (where cli.md §6 leaves the wording open):
 * - `"<key>"` in `expected … for "<key>"` is the key holding the value; a list item is named by its list key and
 *   index (`headers[1]`, `tables[0]` for an item of a top-level file).
 * - `got <type>` is `a list`, `a mapping`, `a string`, `a boolean`, `null`, `an empty list`, `an empty string`, or
 *   the number itself (`got 0`, `got 1.5`), which says more than "a number" for the integer bounds.
 * - Two bounds the five forms of cli.md §6 cannot express are written in the same style: `a non-empty string`
 *   (role and header names) and `a non-empty list` (event-trigger `columns` and `payload`).
 * - A QName that is neither a string nor a mapping reads `expected a mapping` (the canonical form).
 * - `<thing>` names the entry: `table public.author`, `object relationship "author" of public.article`,
 *   `select permission for role "user" on public.author` (also for its `permission` mapping), `event trigger
 *   "e" of public.article`, `function public.search`, `remote schema "s"`, `query collection "c"`, `query "q" in
 *   collection "c"`, `allow list entry "c"`, `cron trigger "n"`, `header "x-token" of …`; an entry without a usable
 *   name is numbered from 1 (`table #3`, `select permission #2 on public.author`); a nested mapping is
 *   `"<key>" of <thing>` (`"using" of object relationship "author" of public.article`).
 * - Unknown keys name the nearest known key by Levenshtein distance (ties broken by code-point order) when one is
 *   within distance 3; otherwise the parenthesis is left out.
 * - Positions: a wrong value at the value; an unknown key at the key; a missing key, and the exactly-one rule when
 *   neither key is set, at the enclosing mapping; the exactly-one rule when both are set, at the key of the second
 *   alternative (`manual_configuration`, `webhook_from_env`, `url_from_env`, `value_from_env`).
 */
import { isHttpUrl, reservedEnv } from '../../metadata/kinds/common.js';
import { levenshtein, nearest as nearestWithin } from '../../text.js';
import type { Position, Problems } from '../problems.js';
import { isObj, named, qnameText, type Obj } from './shapes-core.js';
import { lazyPosition, type YamlSource } from '../yaml-source.js';

export { isObj, named, qnameText, type Obj };

export type Key = string | number;
export type Path = readonly Key[];

/** Set (not absent and not `null`: an optional key given as `null` is absent, engine-api.md §1.6). */
export const present = (v: unknown): boolean => v !== undefined && v !== null;

export const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** What a value is, for `got <type>`. */
export function got(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return v.length === 0 ? 'an empty list' : 'a list';
  if (typeof v === 'string') return v === '' ? 'an empty string' : 'a string';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return 'a boolean';
  return 'a mapping';
}

/** One YAML file being validated; `rootKey` is its metadata key, naming the items of a top-level list. */
export class Ctx {
  constructor(
    readonly src: YamlSource,
    readonly problems: Problems,
    readonly rootKey: string,
  ) {}

  pos(path: Path, key = false): Position {
    return lazyPosition(this.src, [...path], key);
  }

  error(code: string, message: string, path: Path, key = false): void {
    this.problems.error(code, message, this.pos(path, key));
  }

  warn(code: string, message: string, path: Path, key = false): void {
    this.problems.warn(code, message, this.pos(path, key));
  }

  /** The key a value is held by: `limit`, `headers[1]`, `tables[0]`. */
  label(path: Path): string {
    const last = path[path.length - 1];
    if (last === undefined) return this.rootKey;
    if (typeof last === 'number') return `${this.label(path.slice(0, -1))}[${last}]`;
    return last;
  }

  /** `expected <what> for "<key>", got <type>` at the value. */
  invalid(what: string, v: unknown, path: Path): void {
    this.error('metadata-invalid', `expected ${what} for "${this.label(path)}", got ${got(v)}`, path);
  }

  /** `file:line:col` of a path, for "first defined at". */
  where(path: Path): string {
    const p = this.pos(path);
    return `${p.file}:${p.line}:${p.column}`;
  }
}

export { levenshtein };

/** The nearest candidate within distance 3, ties in code-point order; undefined when none is that close. */
export const nearest = (word: string, candidates: Iterable<string>): string | undefined => nearestWithin(word, candidates, 3);

export const didYouMean = (word: string, candidates: Iterable<string>): string => {
  const n = nearest(word, candidates);
  return n === undefined ? '' : ` (did you mean "${n}"?)`;
};

/**
 * Unknown keys are reported at the key as warnings, which the build turns into errors unless `--allow-unknown-keys`
 * (build.ts); required keys that are absent or `null` are errors (at the mapping).
 */
export function checkKeys(c: Ctx, o: Obj, path: Path, thing: string, known: readonly string[], required: readonly string[] = []): void {
  for (const k of Object.keys(o)) {
    if (!known.includes(k)) {
      c.warn('metadata-unknown-key', `unknown key "${k}" in ${thing}${didYouMean(k, known)}`, [...path, k], true);
    }
  }
  for (const k of required) if (!present(o[k])) c.error('metadata-invalid', `${thing} is missing required key "${k}"`, path);
}

/** Exactly one of two keys; returns the one set, or undefined after reporting. */
export function exactlyOne(c: Ctx, o: Obj, path: Path, thing: string, a: string, b: string): string | undefined {
  const hasA = present(o[a]);
  const hasB = present(o[b]);
  if (hasA !== hasB) return hasA ? a : b;
  const at = hasA ? [...path, b] : path;
  c.error('metadata-invalid', `${thing} must set exactly one of "${a}" or "${b}"`, at, hasA);
  return undefined;
}

export function mapping(c: Ctx, v: unknown, path: Path): Obj | undefined {
  if (isObj(v)) return v;
  c.invalid('a mapping', v, path);
  return undefined;
}

export function list(c: Ctx, v: unknown, path: Path): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  c.invalid('a list', v, path);
  return undefined;
}

export function string(c: Ctx, v: unknown, path: Path, nonEmpty = false): string | undefined {
  if (typeof v !== 'string') c.invalid('a string', v, path);
  else if (nonEmpty && v === '') c.invalid('a non-empty string', v, path);
  else return v;
  return undefined;
}

/** Runs `check` on an optional key's value when it is set. */
export function optional(o: Obj, path: Path, key: string, check: (v: unknown, p: Path) => void): void {
  const v = o[key];
  if (present(v)) check(v, [...path, key]);
}

const reservedMessage = (key: string, name: string): string =>
  `env variables starting with "ENGINE_GRAPHQL_" are not allowed in ${key}: ${name}`;

/** The name of an environment variable (`value_from_env`, `webhook_from_env`, `url_from_env`). */
export function envName(c: Ctx, s: string, path: Path, key: string): void {
  if (reservedEnv(s)) c.error('metadata-invalid', reservedMessage(key, s), path);
}

const TEMPLATE_AT = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/;

/** The names of the `{{NAME}}` templates of a string, or undefined when a `{{` opens no well-formed template. */
export function templateNames(s: string): string[] | undefined {
  const names: string[] = [];
  let i = s.indexOf('{{');
  while (i >= 0) {
    const m = TEMPLATE_AT.exec(s.slice(i));
    if (!m) return undefined;
    names.push(m[1] as string);
    i = s.indexOf('{{', i + m[0].length);
  }
  return names;
}

/** A URL template (engine-api.md §4.0); `key` is `handler`, `webhook` or `url`. */
export function urlTemplate(c: Ctx, s: string, path: Path, key: string): void {
  const names = templateNames(s);
  if (names === undefined || (names.length === 0 && !isHttpUrl(s))) {
    c.error('url-invalid', `invalid ${key} "${s}": expected an http(s) URL or a {{ENV_VAR}} template`, path);
    return;
  }
  for (const n of names) if (reservedEnv(n)) c.error('metadata-invalid', reservedMessage(key, n), path);
}
