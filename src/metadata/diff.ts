/**
 * The metadata diff of cli.md §4.12: objects matched by (kind, name), field diffs of changed objects, and the text and
 * JSON renderings used by `metadata diff` (§5.4) and the plan of `metadata apply` (§5.3).
 */
import { isObject, pathKey } from './json.js';
import { compareObjects, metadataObjects, objectKey, type CanonicalDocument, type MetadataObject } from './objects.js';

export type { CanonicalDocument, MetadataObject } from './objects.js';

export type ChangeType = 'added' | 'removed' | 'changed';

export interface FieldChange {
  /** Path of mapping keys from the object's value, e.g. `permission.filter.author_id` (non-identifier keys: `['k']`). */
  path: string;
  /** `+` only in `to`, `-` only in `from`, `~` different. */
  change: '+' | '-' | '~';
  from?: unknown;
  to?: unknown;
}

export interface Change {
  change: ChangeType;
  kind: string;
  name: string;
  /** Only for `changed`: never empty. */
  fields?: FieldChange[];
}

export interface DiffSummary {
  added: number;
  removed: number;
  changed: number;
}

export interface Origin {
  file: string;
  line: number;
  column: number;
}

/** Where an object is written; the caller looks on the directory side holding it (`to` unless removed). */
export type OriginLookup = (kind: string, name: string, change: ChangeType) => Origin | undefined;

/** One element of the JSON `changes` array (cli.md §4.12), keys in this order. */
export interface JsonChange {
  change: ChangeType;
  kind: string;
  name: string;
  file?: string;
  line?: number;
  column?: number;
  fields?: FieldChange[];
}

/** JSON equality; the order of mapping keys does not matter, the order of array elements does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = presentKeys(a);
    const kb = presentKeys(b);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

const presentKeys = (o: Record<string, unknown>): string[] => Object.keys(o).filter((k) => o[k] !== undefined);
const has = (o: Record<string, unknown>, k: string): boolean => Object.hasOwn(o, k) && o[k] !== undefined;

/** Keys of `a` in order, with those only in `b` inserted after the key preceding them in `b`: canonical order is kept. */
function mergeKeys(a: string[], b: string[]): string[] {
  const out = [...a];
  let pos = 0;
  for (const k of b) {
    const i = out.indexOf(k);
    if (i >= 0) pos = i + 1;
    else out.splice(pos++, 0, k);
  }
  return out;
}

const join = (path: string, key: string): string => {
  const p = pathKey('', key);
  return path === '' && p.startsWith('.') ? p.slice(1) : path + p;
};

/** The field diff of two values: mapping keys one by one, recursing into mappings; arrays and scalars compared whole. */
export function fieldChanges(from: unknown, to: unknown, path = ''): FieldChange[] {
  if (!isObject(from) || !isObject(to)) return jsonEqual(from, to) ? [] : [{ path, change: '~', from, to }];
  const out: FieldChange[] = [];
  for (const k of mergeKeys(presentKeys(from), presentKeys(to))) {
    const p = join(path, k);
    if (!has(from, k)) out.push({ path: p, change: '+', to: to[k] });
    else if (!has(to, k)) out.push({ path: p, change: '-', from: from[k] });
    else out.push(...fieldChanges(from[k], to[k], p));
  }
  return out;
}

/** First object of each (kind, name); a valid document has no repeats. */
function byKey(objects: MetadataObject[]): Map<string, MetadataObject> {
  const m = new Map<string, MetadataObject>();
  for (const o of objects) {
    const k = objectKey(o.kind, o.name);
    if (!m.has(k)) m.set(k, o);
  }
  return m;
}

/** Diff of two object lists (as `metadataObjects` returns them), ordered by kind order, then name. */
export function diffObjects(from: MetadataObject[], to: MetadataObject[]): Change[] {
  const a = byKey(from);
  const b = byKey(to);
  const out: Change[] = [];
  for (const [k, x] of a) {
    const y = b.get(k);
    if (y === undefined) out.push({ change: 'removed', kind: x.kind, name: x.name });
    else if (!jsonEqual(x.value, y.value)) {
      out.push({ change: 'changed', kind: x.kind, name: x.name, fields: fieldChanges(x.value, y.value) });
    }
  }
  for (const [k, y] of b) if (!a.has(k)) out.push({ change: 'added', kind: y.kind, name: y.name });
  return out.sort(compareObjects);
}

/** diff(from → to) of two metadata documents (cli.md §4.12); `[]` when they are equal under normalisation. */
export function diffMetadata(from: CanonicalDocument, to: CanonicalDocument): Change[] {
  const [a, b] = comparedObjects(from, to);
  return diffObjects(a, b);
}

/** The objects of both documents that a diff compares (equal table entries set aside), keyed by (kind, name). */
export function comparedObjects(from: CanonicalDocument, to: CanonicalDocument): [MetadataObject[], MetadataObject[]] {
  const [a, b] = withoutEqualTables(from, to);
  return [metadataObjects(a), metadataObjects(b)];
}

const tableKey = (t: unknown): string => JSON.stringify(isObject(t) ? t['table'] : t);

/**
 * Both documents without the table entries that are equal on both sides: every object of a table entry (the table, its
 * relationships, permissions, …) is named after its table, so equal entries give equal objects and no change. A change
 * to one table of thousands then splits two entries into objects, not every table of both documents.
 */
function withoutEqualTables(from: CanonicalDocument, to: CanonicalDocument): [CanonicalDocument, CanonicalDocument] {
  const ft = from['tables'];
  const tt = to['tables'];
  if (!Array.isArray(ft) || !Array.isArray(tt)) return [from, to];
  // Only keys written once on each side: a repeated entry (an invalid document) is diffed as it always was.
  const once = (ts: unknown[]) => {
    const m = new Map<string, unknown>();
    const repeated = new Set<string>();
    for (const t of ts) {
      const k = tableKey(t);
      if (m.has(k)) repeated.add(k);
      else m.set(k, t);
    }
    for (const k of repeated) m.delete(k);
    return m;
  };
  const mine = once(ft);
  const other = once(tt);
  const same = new Set<string>();
  for (const [k, t] of mine) if (other.has(k) && jsonEqual(t, other.get(k))) same.add(k);
  if (same.size === 0) return [from, to];
  const keep = (ts: unknown[]) => ts.filter((t) => !same.has(tableKey(t)));
  return [{ ...from, tables: keep(ft) } as CanonicalDocument, { ...to, tables: keep(tt) } as CanonicalDocument];
}

export function summarize(changes: readonly Change[]): DiffSummary {
  const s: DiffSummary = { added: 0, removed: 0, changed: 0 };
  for (const c of changes) s[c.change]++;
  return s;
}

const MAX_VALUE = 60;

/** Compact JSON, cut to 60 characters (59 and `…`); characters are code points, so a cut never splits a pair. */
export function showValue(v: unknown): string {
  const s = v === undefined ? 'null' : JSON.stringify(v);
  const chars = [...s];
  return chars.length > MAX_VALUE ? `${chars.slice(0, MAX_VALUE - 1).join('')}…` : s;
}

const MARK: Record<ChangeType, string> = { added: '+', removed: '-', changed: '~' };

function fieldLine(f: FieldChange): string {
  const value = f.change === '+' ? showValue(f.to) : f.change === '-' ? showValue(f.from) : `${showValue(f.from)} → ${showValue(f.to)}`;
  return `    ${f.change} ${f.path}: ${value}`;
}

/** The text form of cli.md §4.12, without a trailing newline; `No differences.` when there are none. */
export function renderDiffText(changes: readonly Change[]): string {
  if (changes.length === 0) return 'No differences.';
  const lines: string[] = [];
  for (const c of changes) {
    lines.push(`${MARK[c.change]} ${c.kind} ${c.name}`);
    for (const f of c.fields ?? []) lines.push(fieldLine(f));
  }
  const s = summarize(changes);
  lines.push('', `Summary: ${s.added} added, ${s.removed} removed, ${s.changed} changed.`);
  return lines.join('\n');
}

/** The JSON `changes` array of cli.md §4.12: full values, and the object's position when `origins` knows it. */
export function renderDiffJson(changes: readonly Change[], origins?: OriginLookup): JsonChange[] {
  return changes.map((c) => {
    const out: JsonChange = { change: c.change, kind: c.kind, name: c.name };
    const at = origins?.(c.kind, c.name, c.change);
    if (at) {
      out.file = at.file;
      out.line = at.line;
      out.column = at.column;
    }
    if (c.fields) {
      out.fields = c.fields.map((f) => {
        const g: FieldChange = { path: f.path, change: f.change };
        if (f.change !== '+') g.from = f.from;
        if (f.change !== '-') g.to = f.to;
        return g;
      });
    }
    return out;
  });
}
